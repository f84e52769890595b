// Questions about communicators and their settings: MPI_Comm_compare, MPI_Comm_group, names,
// info hints (the intercommunicator calls: api/intercomm.cc; MPI_Comm_get_parent: api/spawn.cc).
#include <algorithm>
#include <cstring>

#include "api/checks.h"
#include "api/group.h"
#include "api/info.h"
#include "api/memory_kinds.h"

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
namespace core = gpurun::core;

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  GPURUN_API_ENTER("MPI_Comm_compare");
  GPURUN_CHECK_COMM(a, comm1);
  GPURUN_CHECK_COMM(b, comm2);
  GPURUN_CHECK_NOT_NULL(comm1, result);
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (a->comm->inter() != b->comm->inter()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  core::GroupRelation local =
      core::compare(*a->comm->shared_local_group(), *b->comm->shared_local_group());
  // Intercommunicators compare both groups: the weaker relation of the two.
  core::GroupRelation remote = a->comm->inter() ? core::compare(a->comm->group(), b->comm->group())
                                                : core::GroupRelation::kIdent;
  switch (std::max(local, remote)) {
    case core::GroupRelation::kIdent:
      *result = MPI_CONGRUENT;
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

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  GPURUN_API_ENTER("MPI_Comm_group");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, group);
  MPI_Group h = new_group_handle(entry->comm->shared_local_group(), entry->session);
  if (h == MPI_GROUP_NULL) return raise(call, comm, MPI_ERR_NO_MEM, "too many groups; free some");
  *group = h;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  GPURUN_API_ENTER("MPI_Comm_set_name");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, comm_name);
  // Longer names are cut to what MPI_Comm_get_name can return (MPI_MAX_OBJECT_NAME - 1).
  entry->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  GPURUN_API_ENTER("MPI_Comm_get_name");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, comm_name);
  GPURUN_CHECK_NOT_NULL(comm, resultlen);
  std::memcpy(comm_name, entry->name.c_str(), entry->name.size() + 1);
  *resultlen = static_cast<int>(entry->name.size());
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  GPURUN_API_ENTER("MPI_Comm_set_info");
  GPURUN_CHECK_COMM(entry, comm);
  core::Info* hints = find_info(info);
  if (hints == nullptr)
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  // The hints are kept and returned by MPI_Comm_get_info, and communicators created from this
  // one inherit them where MPI says so (MPI_Comm_dup). No hint changes this communicator:
  // mpi_assert_memory_alloc_kinds takes effect where a communicator is created with it
  // (api/memory_kinds.h), as agreeing here would make this call wait for every member.
  if (!entry->hints) entry->hints = std::make_unique<core::Info>();
  for (int i = 0; i < hints->size(); ++i) entry->hints->set(hints->key(i), hints->value(i));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  GPURUN_API_ENTER("MPI_Comm_get_info");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, info_used);
  auto copy =
      entry->hints ? std::make_unique<core::Info>(*entry->hints) : std::make_unique<core::Info>();
  if (copy->get(kKindsKey) == nullptr) copy->set(kKindsKey, supported_kinds());
  MPI_Info h = new_info_handle(std::move(copy));
  if (h == MPI_INFO_NULL)
    return raise(call, comm, MPI_ERR_NO_MEM, "too many info objects; free some");
  *info_used = h;
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_compare)
GPURUN_MPI_ALIAS(MPI_Comm_group)
GPURUN_MPI_ALIAS(MPI_Comm_set_name)
GPURUN_MPI_ALIAS(MPI_Comm_get_name)
GPURUN_MPI_ALIAS(MPI_Comm_set_info)
GPURUN_MPI_ALIAS(MPI_Comm_get_info)
