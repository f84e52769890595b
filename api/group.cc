// The group calls: MPI_Group_* and the group handle table.
#include "api/group.h"

#include <vector>

#include "api/state.h"

namespace gpurun::api {
namespace {

struct GroupEntry {
  core::GroupPtr group;
  MPI_Session session;  // group_session()
};

ObjectTable<GroupEntry>& groups() {
  static auto* table = new ObjectTable<GroupEntry>();
  return *table;
}

// Reports a failed group operation: MPI_ERR_RANK for bad ranks, MPI_ERR_ARG otherwise.
int raise_group_status(const Call& call, const Status& st) {
  int error_class = st.code() == ErrorCode::kOutOfRange ? MPI_ERR_RANK : MPI_ERR_ARG;
  return raise(call, MPI_COMM_NULL, error_class, "%.*s", static_cast<int>(st.message().size()),
               st.message().data());
}

int deliver(const Call& call, core::GroupPtr group, MPI_Group* newgroup,
            MPI_Session session = MPI_SESSION_NULL) {
  MPI_Group h = new_group_handle(std::move(group), session);
  if (h == MPI_GROUP_NULL)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many groups; free some");
  *newgroup = h;
  return MPI_SUCCESS;
}

int deliver(const Call& call, Result<core::GroupPtr> group, MPI_Group* newgroup,
            MPI_Session session) {
  if (!group.ok()) return raise_group_status(call, group.status());
  return deliver(call, std::move(group).value(), newgroup, session);
}

// Checks a rank array argument: n >= 0, and the array present when n > 0.
int check_array(const Call& call, int n, const void* array, const char* name) {
  if (n < 0) return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument n %d is negative", n);
  if (n > 0 && array == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument %s is a null pointer", name);
  return MPI_SUCCESS;
}

std::vector<core::RankRange> ranges_of(int n, int ranges[][3]) {
  std::vector<core::RankRange> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[i] = core::RankRange{ranges[i][0], ranges[i][1], ranges[i][2]};
  return out;
}

int set_operation(const Call& call, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup,
                  core::GroupPtr (*op)(const core::Group&, const core::Group&)) {
  GPURUN_CHECK_GROUP(a, group1, "group1");
  GPURUN_CHECK_GROUP(b, group2, "group2");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newgroup);
  MPI_Session session = group_session(group1);
  return deliver(call, op(*a, *b), newgroup,
                 session != MPI_SESSION_NULL ? session : group_session(group2));
}

}  // namespace

core::GroupPtr find_group(MPI_Group handle) {
  if (handle == MPI_GROUP_EMPTY) return core::Group::empty();
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kGroup)
    return nullptr;
  GroupEntry* e = groups().find(handle_index(handle));
  return e ? e->group : nullptr;
}

MPI_Session group_session(MPI_Group handle) {
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kGroup)
    return MPI_SESSION_NULL;
  GroupEntry* e = groups().find(handle_index(handle));
  return e ? e->session : MPI_SESSION_NULL;
}

MPI_Group new_group_handle(core::GroupPtr group, MPI_Session session) {
  if (group->size() == 0) return MPI_GROUP_EMPTY;
  std::uint32_t index =
      groups().insert(std::make_unique<GroupEntry>(GroupEntry{std::move(group), session}));
  if (index == ObjectTable<GroupEntry>::kFull) return MPI_GROUP_NULL;
  return make_handle(HandleKind::kIndirect, ObjectType::kGroup, index);
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
namespace core = gpurun::core;

extern "C" int PMPI_Group_size(MPI_Group group, int* size) {
  GPURUN_API_ENTER("MPI_Group_size");
  GPURUN_CHECK_GROUP(g, group, "group");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, size);
  *size = g->size();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Group_rank(MPI_Group group, int* rank) {
  GPURUN_API_ENTER("MPI_Group_rank");
  GPURUN_CHECK_GROUP(g, group, "group");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, rank);
  int r = g->rank_of(world_rank());
  *rank = r < 0 ? MPI_UNDEFINED : r;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Group_free(MPI_Group* group) {
  GPURUN_API_ENTER("MPI_Group_free");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, group);
  GPURUN_CHECK_GROUP(g, *group, "group");
  // MPI_GROUP_EMPTY is predefined: freeing it only clears the caller's handle.
  if (*group != MPI_GROUP_EMPTY) groups().release(handle_index(*group));
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  GPURUN_API_ENTER("MPI_Group_compare");
  GPURUN_CHECK_GROUP(a, group1, "group1");
  GPURUN_CHECK_GROUP(b, group2, "group2");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, result);
  switch (core::compare(*a, *b)) {
    case core::GroupRelation::kIdent:
      *result = MPI_IDENT;
      break;
    case core::GroupRelation::kSimilar:
      *result = MPI_SIMILAR;
      break;
    case core::GroupRelation::kUnequal:
      *result = MPI_UNEQUAL;
      break;
  }
  return MPI_SUCCESS;
}

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                          MPI_Group group2, int ranks2[]) {
  GPURUN_API_ENTER("MPI_Group_translate_ranks");
  GPURUN_CHECK_GROUP(a, group1, "group1");
  GPURUN_CHECK_GROUP(b, group2, "group2");
  if (int rc = check_array(call, n, ranks1, "ranks1"); rc != MPI_SUCCESS) return rc;
  if (int rc = check_array(call, n, ranks2, "ranks2"); rc != MPI_SUCCESS) return rc;
  auto out =
      core::translate(*a, {ranks1, static_cast<std::size_t>(n)}, *b, MPI_UNDEFINED, MPI_PROC_NULL);
  if (!out.ok()) return raise_group_status(call, out.status());
  for (int i = 0; i < n; ++i) ranks2[i] = (*out)[i];
  return MPI_SUCCESS;
}

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_incl");
  GPURUN_CHECK_GROUP(g, group, "group");
  if (int rc = check_array(call, n, ranks, "ranks"); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newgroup);
  return deliver(call, core::include(*g, {ranks, static_cast<std::size_t>(n)}), newgroup,
                 group_session(group));
}

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_excl");
  GPURUN_CHECK_GROUP(g, group, "group");
  if (int rc = check_array(call, n, ranks, "ranks"); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newgroup);
  return deliver(call, core::exclude(*g, {ranks, static_cast<std::size_t>(n)}), newgroup,
                 group_session(group));
}

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_range_incl");
  GPURUN_CHECK_GROUP(g, group, "group");
  if (int rc = check_array(call, n, ranges, "ranges"); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newgroup);
  return deliver(call, core::include_ranges(*g, ranges_of(n, ranges)), newgroup,
                 group_session(group));
}

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_range_excl");
  GPURUN_CHECK_GROUP(g, group, "group");
  if (int rc = check_array(call, n, ranges, "ranges"); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newgroup);
  return deliver(call, core::exclude_ranges(*g, ranges_of(n, ranges)), newgroup,
                 group_session(group));
}

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_union");
  return set_operation(call, group1, group2, newgroup, core::set_union);
}

extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_intersection");
  return set_operation(call, group1, group2, newgroup, core::intersection);
}

extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_difference");
  return set_operation(call, group1, group2, newgroup, core::difference);
}

GPURUN_MPI_ALIAS(MPI_Group_size)
GPURUN_MPI_ALIAS(MPI_Group_rank)
GPURUN_MPI_ALIAS(MPI_Group_free)
GPURUN_MPI_ALIAS(MPI_Group_compare)
GPURUN_MPI_ALIAS(MPI_Group_translate_ranks)
GPURUN_MPI_ALIAS(MPI_Group_incl)
GPURUN_MPI_ALIAS(MPI_Group_excl)
GPURUN_MPI_ALIAS(MPI_Group_range_incl)
GPURUN_MPI_ALIAS(MPI_Group_range_excl)
GPURUN_MPI_ALIAS(MPI_Group_union)
GPURUN_MPI_ALIAS(MPI_Group_intersection)
GPURUN_MPI_ALIAS(MPI_Group_difference)
