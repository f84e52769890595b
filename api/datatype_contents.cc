// Decoding datatypes: MPI_Type_get_envelope, MPI_Type_get_contents and their _c forms.
//
// A type keeps the arguments of the call that made it. The datatypes among them come back as
// they were given: predefined ones as their own handles, derived ones as new handles to the
// same type, which the caller frees.
#include <climits>

#include "api/datatype_args.h"

namespace gpurun::api {
namespace {

int combiner_of(core::Combiner c) {
  switch (c) {
    case core::Combiner::kNamed:
      return MPI_COMBINER_NAMED;
    case core::Combiner::kDup:
      return MPI_COMBINER_DUP;
    case core::Combiner::kContiguous:
      return MPI_COMBINER_CONTIGUOUS;
    case core::Combiner::kVector:
      return MPI_COMBINER_VECTOR;
    case core::Combiner::kHvector:
      return MPI_COMBINER_HVECTOR;
    case core::Combiner::kIndexed:
      return MPI_COMBINER_INDEXED;
    case core::Combiner::kHindexed:
      return MPI_COMBINER_HINDEXED;
    case core::Combiner::kIndexedBlock:
      return MPI_COMBINER_INDEXED_BLOCK;
    case core::Combiner::kHindexedBlock:
      return MPI_COMBINER_HINDEXED_BLOCK;
    case core::Combiner::kStruct:
      return MPI_COMBINER_STRUCT;
    case core::Combiner::kSubarray:
      return MPI_COMBINER_SUBARRAY;
    case core::Combiner::kDarray:
      return MPI_COMBINER_DARRAY;
    case core::Combiner::kResized:
      return MPI_COMBINER_RESIZED;
    case core::Combiner::kF90Real:
      return MPI_COMBINER_F90_REAL;
    case core::Combiner::kF90Complex:
      return MPI_COMBINER_F90_COMPLEX;
    case core::Combiner::kF90Integer:
      return MPI_COMBINER_F90_INTEGER;
  }
  return MPI_COMBINER_NAMED;
}

struct Sizes {
  MPI_Count integers, addresses, large_counts, datatypes;
};

Sizes sizes_of(const core::Envelope& e) {
  auto n = [](const auto& v) { return static_cast<MPI_Count>(v.size()); };
  return {n(e.ints), n(e.addresses), n(e.counts), n(e.types)};
}

int envelope(const Call& call, MPI_Datatype datatype, Sizes* sizes, int* combiner, bool large) {
  const core::Datatype* t;
  if (int rc = lookup_type(call, MPI_COMM_NULL, datatype, "datatype", &t)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, combiner, "combiner")) return rc;
  *sizes = sizes_of(t->envelope());
  if (!large && sizes->large_counts > 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE,
                 "argument datatype was made by a large-count constructor: decode it with "
                 "MPI_Type_get_envelope_c");
  *combiner = combiner_of(t->envelope().combiner);
  return MPI_SUCCESS;
}

struct Arrays {
  int* integers;
  MPI_Aint* addresses;
  MPI_Count* large_counts;
  MPI_Datatype* datatypes;
};

int check_room(const Call& call, MPI_Count max, MPI_Count needed, const void* array,
               const char* arg) {
  if (max < needed)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument max_%s %lld is less than the %lld the datatype has", arg,
                 static_cast<long long>(max), static_cast<long long>(needed));
  if (needed > 0 && array == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument array_of_%s is a null pointer", arg);
  return MPI_SUCCESS;
}

int contents(const Call& call, MPI_Datatype datatype, const Sizes& max, const Arrays& out,
             bool large) {
  const core::Datatype* t;
  if (int rc = lookup_type(call, MPI_COMM_NULL, datatype, "datatype", &t)) return rc;
  const core::Envelope& e = t->envelope();
  if (e.combiner == core::Combiner::kNamed)
    return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE,
                 "argument datatype is the predefined %s, which has no contents",
                 t->name().c_str());
  Sizes need = sizes_of(e);
  if (!large && need.large_counts > 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE,
                 "argument datatype was made by a large-count constructor: decode it with "
                 "MPI_Type_get_contents_c");
  if (int rc = check_room(call, max.integers, need.integers, out.integers, "integers")) return rc;
  if (int rc = check_room(call, max.addresses, need.addresses, out.addresses, "addresses"))
    return rc;
  if (int rc =
          check_room(call, max.large_counts, need.large_counts, out.large_counts, "large_counts"))
    return rc;
  if (int rc = check_room(call, max.datatypes, need.datatypes, out.datatypes, "datatypes"))
    return rc;
  for (std::size_t i = 0; i < e.ints.size(); ++i) out.integers[i] = static_cast<int>(e.ints[i]);
  for (std::size_t i = 0; i < e.addresses.size(); ++i) out.addresses[i] = e.addresses[i];
  for (std::size_t i = 0; i < e.counts.size(); ++i) out.large_counts[i] = e.counts[i];
  for (std::size_t i = 0; i < e.types.size(); ++i) {
    const core::Datatype* child = e.types[i].get();
    out.datatypes[i] =
        child->predefined() ? predefined_handle(child) : insert_datatype(core::DatatypeRef(child));
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  GPURUN_API_ENTER("MPI_Type_get_envelope");
  using namespace gpurun::api;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_integers, "num_integers")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_addresses, "num_addresses")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_datatypes, "num_datatypes")) return rc;
  Sizes sizes;
  if (int rc = envelope(call, datatype, &sizes, combiner, false)) return rc;
  if (int rc = check_fits_int(call, sizes.integers, "num_integers")) return rc;
  if (int rc = check_fits_int(call, sizes.addresses, "num_addresses")) return rc;
  if (int rc = check_fits_int(call, sizes.datatypes, "num_datatypes")) return rc;
  *num_integers = static_cast<int>(sizes.integers);
  *num_addresses = static_cast<int>(sizes.addresses);
  *num_datatypes = static_cast<int>(sizes.datatypes);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_get_envelope)

extern "C" int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                                        MPI_Count* num_addresses, MPI_Count* num_large_counts,
                                        MPI_Count* num_datatypes, int* combiner) {
  GPURUN_API_ENTER("MPI_Type_get_envelope_c");
  using namespace gpurun::api;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_integers, "num_integers")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_addresses, "num_addresses")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_large_counts, "num_large_counts")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, num_datatypes, "num_datatypes")) return rc;
  Sizes sizes;
  if (int rc = envelope(call, datatype, &sizes, combiner, true)) return rc;
  *num_integers = sizes.integers;
  *num_addresses = sizes.addresses;
  *num_large_counts = sizes.large_counts;
  *num_datatypes = sizes.datatypes;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_get_envelope_c)

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  GPURUN_API_ENTER("MPI_Type_get_contents");
  return gpurun::api::contents(call, datatype, {max_integers, max_addresses, 0, max_datatypes},
                               {array_of_integers, array_of_addresses, nullptr, array_of_datatypes},
                               false);
}
GPURUN_MPI_ALIAS(MPI_Type_get_contents)

extern "C" int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                        MPI_Count max_addresses, MPI_Count max_large_counts,
                                        MPI_Count max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[],
                                        MPI_Count array_of_large_counts[],
                                        MPI_Datatype array_of_datatypes[]) {
  GPURUN_API_ENTER("MPI_Type_get_contents_c");
  return gpurun::api::contents(
      call, datatype, {max_integers, max_addresses, max_large_counts, max_datatypes},
      {array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes}, true);
}
GPURUN_MPI_ALIAS(MPI_Type_get_contents_c)
