// Datatype constructors with a regular layout: MPI_Type_contiguous, MPI_Type_vector,
// MPI_Type_create_hvector, MPI_Type_create_resized, MPI_Type_dup, their large-count _c forms
// and the deprecated MPI_Type_hvector.
#include "api/datatype_args.h"
#include "api/type_attr.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::api {
namespace {

using core::Combiner;

template <class Count>
int contiguous(const Call& call, Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (int rc = check_non_negative(call, count, MPI_ERR_COUNT, "count")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  return new_type(call, core::make_contiguous(count, *old),
                  call_args(Combiner::kContiguous, kLargeCount<Count>, {count}, {}, {old}),
                  newtype);
}

// MPI_Type_vector (stride in extents, `hetero` false) and MPI_Type_create_hvector (in bytes).
template <class Count, class Stride>
int vector(const Call& call, bool hetero, Count count, Count blocklength, Stride stride,
           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (int rc = check_non_negative(call, count, MPI_ERR_COUNT, "count")) return rc;
  if (int rc = check_non_negative(call, blocklength, MPI_ERR_ARG, "blocklength")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  constexpr bool large = kLargeCount<Count>;
  if (!hetero) {
    return new_type(call, core::make_vector(count, blocklength, stride, *old),
                    call_args(Combiner::kVector, large, {count, blocklength, stride}, {}, {old}),
                    newtype);
  }
  return new_type(call, core::make_hvector(count, blocklength, stride, *old),
                  call_args(Combiner::kHvector, large, {count, blocklength}, {stride}, {old}),
                  newtype);
}

int resized(const Call& call, bool large, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
            MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  return new_type(call, core::make_resized(*old, lb, extent),
                  call_args(Combiner::kResized, large, {}, {lb, extent}, {old}), newtype);
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_contiguous");
  return gpurun::api::contiguous(call, count, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_contiguous)

extern "C" int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_contiguous_c");
  return gpurun::api::contiguous(call, count, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_contiguous_c)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_vector");
  return gpurun::api::vector(call, false, count, blocklength, stride, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_vector)

extern "C" int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_vector_c");
  return gpurun::api::vector(call, false, count, blocklength, stride, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_vector_c)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_hvector");
  return gpurun::api::vector(call, true, count, blocklength, stride, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_hvector)

extern "C" int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_hvector_c");
  return gpurun::api::vector(call, true, count, blocklength, stride, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_hvector_c)

extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_hvector");
  return gpurun::api::vector(call, true, count, blocklength, stride, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_hvector)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_resized");
  return gpurun::api::resized(call, false, oldtype, lb, extent, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_resized)

extern "C" int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_resized_c");
  return gpurun::api::resized(call, true, oldtype, lb, extent, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_resized_c)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_dup");
  using namespace gpurun::api;
  const gpurun::core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  int rc = new_type(call, gpurun::core::make_dup(*old),
                    call_args(gpurun::core::Combiner::kDup, false, {}, {}, {old}), newtype);
  if (rc != MPI_SUCCESS) return rc;
  if ((rc = copy_type_attributes(call, oldtype, *newtype)) != MPI_SUCCESS) {
    erase_datatype(*newtype);
    *newtype = MPI_DATATYPE_NULL;
  }
  return rc;
}
GPURUN_MPI_ALIAS(MPI_Type_dup)
