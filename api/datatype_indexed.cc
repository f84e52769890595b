// Datatype constructors with a list of blocks: MPI_Type_indexed, MPI_Type_create_hindexed,
// MPI_Type_create_indexed_block, MPI_Type_create_hindexed_block, MPI_Type_create_struct, their
// large-count _c forms and the deprecated MPI_Type_hindexed and MPI_Type_struct.
#include <cstdio>

#include "api/datatype_args.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::api {
namespace {

using core::Combiner;

std::vector<std::int64_t> concat(std::int64_t first, const std::vector<std::int64_t>& a,
                                 const std::vector<std::int64_t>& b = {}) {
  std::vector<std::int64_t> out{first};
  out.insert(out.end(), a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// MPI_Type_indexed (displacements in extents, `hetero` false) and MPI_Type_create_hindexed
// (in bytes).
template <class Count, class Disp>
int indexed(const Call& call, bool hetero, Count count, const Count* blocklengths,
            const Disp* displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (int rc = check_non_negative(call, count, MPI_ERR_COUNT, "count")) return rc;
  if (int rc = check_array(call, blocklengths, count, "array_of_blocklengths")) return rc;
  if (int rc = check_array(call, displacements, count, "array_of_displacements")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  return guard_memory(call, MPI_COMM_NULL, "count", [&] {
    std::vector<std::int64_t> lengths = widen(blocklengths, count);
    std::vector<std::int64_t> disps = widen(displacements, count);
    if (int rc = check_elements_non_negative(call, lengths, "array_of_blocklengths")) return rc;
    constexpr bool large = kLargeCount<Count>;
    if (!hetero) {
      return new_type(
          call, core::make_indexed(lengths, disps, *old),
          call_args(Combiner::kIndexed, large, concat(count, lengths, disps), {}, {old}), newtype);
    }
    return new_type(call, core::make_hindexed(lengths, disps, *old),
                    call_args(Combiner::kHindexed, large, concat(count, lengths), disps, {old}),
                    newtype);
  });
}

// MPI_Type_create_indexed_block (displacements in extents) and MPI_Type_create_hindexed_block.
template <class Count, class Disp>
int indexed_block(const Call& call, bool hetero, Count count, Count blocklength,
                  const Disp* displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (int rc = check_non_negative(call, count, MPI_ERR_COUNT, "count")) return rc;
  if (int rc = check_non_negative(call, blocklength, MPI_ERR_ARG, "blocklength")) return rc;
  if (int rc = check_array(call, displacements, count, "array_of_displacements")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  return guard_memory(call, MPI_COMM_NULL, "count", [&] {
    std::vector<std::int64_t> disps = widen(displacements, count);
    constexpr bool large = kLargeCount<Count>;
    if (!hetero) {
      return new_type(
          call, core::make_indexed_block(blocklength, disps, *old),
          call_args(Combiner::kIndexedBlock, large, concat(count, {blocklength}, disps), {}, {old}),
          newtype);
    }
    return new_type(call, core::make_hindexed_block(blocklength, disps, *old),
                    call_args(Combiner::kHindexedBlock, large, {count, blocklength}, disps, {old}),
                    newtype);
  });
}

template <class Count, class Disp>
int create_struct(const Call& call, Count count, const Count* blocklengths,
                  const Disp* displacements, const MPI_Datatype* types, MPI_Datatype* newtype) {
  if (int rc = check_non_negative(call, count, MPI_ERR_COUNT, "count")) return rc;
  if (int rc = check_array(call, blocklengths, count, "array_of_blocklengths")) return rc;
  if (int rc = check_array(call, displacements, count, "array_of_displacements")) return rc;
  if (int rc = check_array(call, types, count, "array_of_types")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  return guard_memory(call, MPI_COMM_NULL, "count", [&] {
    std::vector<const core::Datatype*> olds(static_cast<std::size_t>(count));
    for (Count i = 0; i < count; ++i) {
      char arg[48];
      std::snprintf(arg, sizeof arg, "array_of_types[%lld]", static_cast<long long>(i));
      if (int rc = lookup_type(call, MPI_COMM_NULL, types[i], arg, &olds[i])) return rc;
    }
    std::vector<std::int64_t> lengths = widen(blocklengths, count);
    std::vector<std::int64_t> disps = widen(displacements, count);
    if (int rc = check_elements_non_negative(call, lengths, "array_of_blocklengths")) return rc;
    return new_type(
        call, core::make_struct(lengths, disps, olds),
        call_args(Combiner::kStruct, kLargeCount<Count>, concat(count, lengths), disps, olds),
        newtype);
  });
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_indexed");
  return gpurun::api::indexed(call, false, count, array_of_blocklengths, array_of_displacements,
                              oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_indexed)

extern "C" int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_indexed_c");
  return gpurun::api::indexed(call, false, count, array_of_blocklengths, array_of_displacements,
                              oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_indexed_c)

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_hindexed");
  return gpurun::api::indexed(call, true, count, array_of_blocklengths, array_of_displacements,
                              oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_hindexed)

extern "C" int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_hindexed_c");
  return gpurun::api::indexed(call, true, count, array_of_blocklengths, array_of_displacements,
                              oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_hindexed_c)

extern "C" int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                                  MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_hindexed");
  const int* lengths = array_of_blocklengths;
  const MPI_Aint* disps = array_of_displacements;
  return gpurun::api::indexed(call, true, count, lengths, disps, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_hindexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_indexed_block");
  return gpurun::api::indexed_block(call, false, count, blocklength, array_of_displacements,
                                    oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_indexed_block)

extern "C" int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[],
                                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_indexed_block_c");
  return gpurun::api::indexed_block(call, false, count, blocklength, array_of_displacements,
                                    oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_indexed_block_c)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_hindexed_block");
  return gpurun::api::indexed_block(call, true, count, blocklength, array_of_displacements, oldtype,
                                    newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_hindexed_block)

extern "C" int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_hindexed_block_c");
  return gpurun::api::indexed_block(call, true, count, blocklength, array_of_displacements, oldtype,
                                    newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_hindexed_block_c)

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_struct");
  return gpurun::api::create_struct(call, count, array_of_blocklengths, array_of_displacements,
                                    array_of_types, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_struct)

extern "C" int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[],
                                         const MPI_Datatype array_of_types[],
                                         MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_struct_c");
  return gpurun::api::create_struct(call, count, array_of_blocklengths, array_of_displacements,
                                    array_of_types, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_struct_c)

extern "C" int PMPI_Type_struct(int count, int array_of_blocklengths[],
                                MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                                MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_struct");
  const int* lengths = array_of_blocklengths;
  const MPI_Aint* disps = array_of_displacements;
  const MPI_Datatype* types = array_of_types;
  return gpurun::api::create_struct(call, count, lengths, disps, types, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_struct)
