// Creating and freeing communicators: MPI_Comm_dup (and _with_info, idup), MPI_Comm_split,
// MPI_Comm_split_type, MPI_Comm_create, MPI_Comm_create_group and MPI_Comm_free.
//
// Every creation agrees on a context id among its creators (api/comm_cid.h) over the parent's
// collective channel; split first gathers every rank's colour and key.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "api/attr.h"
#include "api/bsend.h"
#include "api/checks.h"
#include "api/comm_build.h"
#include "api/connect.h"
#include "api/group.h"
#include "api/info.h"
#include "api/requests.h"
#include "api/stream.h"

namespace gpurun::api {
namespace {

std::unique_ptr<core::Info> copy_hints(const core::Info* info) {
  return info ? std::make_unique<core::Info>(*info) : nullptr;
}

CommSpec spec_like(const CommEntry& parent, core::GroupPtr group) {
  CommSpec spec;
  spec.group = std::move(group);
  spec.errhandler = parent.errhandler;
  spec.session = parent.session;
  return spec;
}

// Blocking duplicate: agree, install, then copy the attributes (a failing copy callback frees
// the new communicator again, on this process only).
int dup(const Call& call, MPI_Comm comm, CommEntry& entry, std::unique_ptr<core::Info> hints,
        MPI_Comm* newcomm) {
  CommSpec spec = spec_like(entry, entry.comm->shared_group());
  spec.hints = std::move(hints);
  spec.topology = entry.topology;
  MPI_Comm made = MPI_COMM_NULL;
  int rc = entry.comm->inter() ? dup_inter(call, comm, entry, &made)
                               : create_over(call, comm, entry, std::move(spec), &made);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<Attribute> copies;
  int failed_keyval = MPI_KEYVAL_INVALID;
  if (int failed = copy_attributes(comm, entry, &copies, &failed_keyval); failed != MPI_SUCCESS) {
    retire(state().comms.release(handle_index(made)));
    return raise_callback_error(call, comm, "copy", failed_keyval, failed);
  }
  find_comm(made)->attributes = std::move(copies);
  *newcomm = made;
  return MPI_SUCCESS;
}

// A pending MPI_Comm_idup: completes its request when the agreement ends.
struct PendingDup {
  std::unique_ptr<Creation> creation;
  core::Request* request;
  MPI_Comm* newcomm;
};

std::vector<std::unique_ptr<PendingDup>>& finished_dups() {
  static auto* list = new std::vector<std::unique_ptr<PendingDup>>();
  return *list;
}

void complete_dup(void* context) {
  auto* p = static_cast<PendingDup*>(context);
  Result<MPI_Comm> made = p->creation->finish();
  core::Request* r = p->request;
  if (made.ok()) {
    *p->newcomm = *made;
  } else {
    r->status.error = made.status().code();
    *p->newcomm = MPI_COMM_NULL;
  }
  r->set_complete();
  if (r->orphan) the_pml().requests().release(r);
  // The creation may be calling us: it is destroyed at the next creation, not now.
  finished_dups().emplace_back(p);
}

int idup(const Call& call, MPI_Comm comm, CommEntry& entry, std::unique_ptr<core::Info> hints,
         MPI_Comm* newcomm, MPI_Request* request) {
  if (entry.comm->inter()) return idup_inter(call, comm, entry, std::move(hints), newcomm, request);
  finished_dups().clear();
  reclaim_retired();
  CommSpec spec = spec_like(entry, entry.comm->shared_group());
  spec.hints = std::move(hints);
  spec.topology = entry.topology;
  int failed_keyval = MPI_KEYVAL_INVALID;
  if (int rc = copy_attributes(comm, entry, &spec.attributes, &failed_keyval); rc != MPI_SUCCESS)
    return raise_callback_error(call, comm, "copy", failed_keyval, rc);
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kColl;
  r->active = true;
  r->comm = entry.comm.get();
  coll::Team team = whole_team(entry, /*blocking=*/false);
  std::uint64_t key = creation_key(entry, team.tag);
  auto* pending =
      new PendingDup{Creation::start(std::move(team), key, std::move(spec)), r, newcomm};
  r->owner = pending;
  *request = handle_of(r);
  if (pending->creation->done()) {
    complete_dup(pending);
  } else {
    pending->creation->agreement().on_done(complete_dup, pending);
  }
  return MPI_SUCCESS;
}

// MPI_Comm_split, and split_type once it has a colour. With `strict`, a split that would
// leave the parent whole gives MPI_COMM_NULL everywhere (MPI_COMM_TYPE_HW_UNGUIDED).
int split(const Call& call, MPI_Comm comm, CommEntry& entry, int color, int key, bool strict,
          MPI_Comm* newcomm) {
  const core::Communicator& parent = *entry.comm;
  int mine[2] = {color, key};
  std::vector<int> pairs(2 * static_cast<std::size_t>(parent.size()));
  coll::Team team = whole_team(entry);
  team.call_kind = static_cast<int>(coll::BasicKind::kAllgather);
  team.call_bytes = sizeof mine;
  auto gather = coll::allgather(the_pml(), team, mine, sizeof mine, pairs.data());
  if (Status st = wait_collective(*gather); !st.ok()) return raise_status(call, comm, st);
  bool one_colour = true;
  for (std::size_t at = 2; at < pairs.size(); at += 2)
    one_colour = one_colour && pairs[at] == pairs[0];
  core::GroupPtr group;
  if (color != MPI_UNDEFINED && !(strict && one_colour)) group = split_group(parent, pairs, color);
  return create_over_team(call, comm, entry, spec_like(entry, std::move(group)), newcomm,
                          std::move(team));
}

// The colour of this process for split_type, or MPI_UNDEFINED (MPI_COMM_NULL). Sets
// `strict` for the types whose parts must be strict subsets of the parent.
int split_type_colour(int split_type, const core::Info* info, bool* strict) {
  int node = state().bootstrap->job().node_id;
  *strict = false;
  switch (split_type) {
    case MPI_COMM_TYPE_SHARED:
      return node;
    case MPI_COMM_TYPE_HW_GUIDED: {
      // The one hardware resource known here: the host's shared memory.
      const std::string* v = info ? info->get("mpi_hw_resource_type") : nullptr;
      return (v != nullptr && *v == "mpi_shared_memory") ? node : MPI_UNDEFINED;
    }
    case MPI_COMM_TYPE_HW_UNGUIDED:
      *strict = true;
      return node;
    default:
      return MPI_UNDEFINED;  // MPIX_COMM_TYPE_NEIGHBORHOOD: no such split here
  }
}

// The communicator-creation tag of MPI_Comm_create_group's traffic on the parent: below the
// tags of the parent's own collectives and of coll's own messages (coll/basic.h).
int create_group_tag(int tag) { return coll::team_tag(tag); }

}  // namespace

int duplicate(const Call& call, MPI_Comm comm, CommEntry& entry, std::unique_ptr<core::Info> hints,
              MPI_Comm* newcomm) {
  return dup(call, comm, entry, std::move(hints), newcomm);
}

core::GroupPtr split_group(const core::Communicator& parent, const std::vector<int>& pairs,
                           int color) {
  std::vector<std::pair<int, int>> chosen;  // (key, parent rank)
  for (int r = 0; r < parent.size(); ++r) {
    std::size_t at = 2 * static_cast<std::size_t>(r);
    if (pairs[at] == color) chosen.emplace_back(pairs[at + 1], r);
  }
  std::sort(chosen.begin(), chosen.end());
  std::vector<int> members;
  for (const auto& [key, r] : chosen) members.push_back(parent.group().job_rank(r));
  return core::Group::of(std::move(members));
}

int create_group(const Call& call, MPI_Comm comm, CommEntry& entry, core::GroupPtr g, int tag,
                 const MPI_Errhandler* errhandler, MPI_Comm* newcomm) {
  coll::Team team{.comm = entry.comm.get(), .members = {}, .tag = create_group_tag(tag)};
  for (int r = 0; r < g->size(); ++r) {
    int parent_rank = entry.comm->group().rank_of(g->job_rank(r));
    if (parent_rank < 0) {
      return raise(call, comm, MPI_ERR_GROUP,
                   "argument group holds a process (rank %d of MPI_COMM_WORLD) that is not in "
                   "the communicator",
                   g->job_rank(r));
    }
    team.members.push_back(parent_rank);
  }
  if (!g->contains(world_rank())) {
    *newcomm = MPI_COMM_NULL;  // only the group's members take part
    return MPI_SUCCESS;
  }
  CommSpec spec = spec_like(entry, std::move(g));
  if (errhandler != nullptr) spec.errhandler = ErrhandlerRef(*errhandler);
  return create_among(call, comm, entry, std::move(team.members), tag, std::move(spec), newcomm);
}

std::unique_ptr<Creation> start_among(CommEntry& entry, std::vector<int> members, int tag,
                                      CommSpec spec, bool blocking) {
  coll::Team team{.comm = entry.comm.get(), .members = std::move(members),
                  .tag = create_group_tag(tag), .blocking = blocking};
  std::uint64_t key = creation_key(entry, 0) | 0x80000000u | static_cast<std::uint32_t>(tag);
  return Creation::start(std::move(team), key, std::move(spec));
}

int create_among(const Call& call, MPI_Comm comm, CommEntry& entry, std::vector<int> members,
                 int tag, CommSpec spec, MPI_Comm* newcomm) {
  reclaim_retired();
  auto c = start_among(entry, std::move(members), tag, std::move(spec), true);
  wait_until([&c] { return c->done(); });
  gpurun::Result<MPI_Comm> made = c->finish();
  if (!made.ok()) return raise_status(call, comm, made.status());
  *newcomm = *made;
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
namespace core = gpurun::core;
namespace coll = gpurun::coll;

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_dup");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  return dup(call, comm, *entry, copy_hints(entry->hints.get()), newcomm);
}

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_dup_with_info");
  GPURUN_CHECK_COMM(entry, comm);
  core::Info* hints = find_info(info);
  if (hints == nullptr)
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  return dup(call, comm, *entry, copy_hints(hints), newcomm);
}

extern "C" int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Comm_idup");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  GPURUN_CHECK_NOT_NULL(comm, request);
  return idup(call, comm, *entry, copy_hints(entry->hints.get()), newcomm, request);
}

extern "C" int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                                        MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Comm_idup_with_info");
  GPURUN_CHECK_COMM(entry, comm);
  core::Info* hints = find_info(info);
  if (hints == nullptr)
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  GPURUN_CHECK_NOT_NULL(comm, request);
  return idup(call, comm, *entry, copy_hints(hints), newcomm, request);
}

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_split");
  GPURUN_CHECK_COMM(entry, comm);
  if (color < 0 && color != MPI_UNDEFINED) {
    return raise(call, comm, MPI_ERR_ARG, "argument color %d is negative (and not MPI_UNDEFINED)",
                 color);
  }
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  if (entry->comm->inter()) return split_inter(call, comm, *entry, color, key, newcomm);
  return split(call, comm, *entry, color, key, false, newcomm);
}

extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_split_type");
  GPURUN_CHECK_INTRACOMM(entry, comm);
  bool known = split_type == MPI_UNDEFINED || split_type == MPI_COMM_TYPE_SHARED ||
               split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_HW_UNGUIDED ||
               split_type == MPIX_COMM_TYPE_NEIGHBORHOOD;
  if (!known)
    return raise(call, comm, MPI_ERR_ARG, "argument split_type %d is not a split type", split_type);
  core::Info* hints = nullptr;
  if (info != MPI_INFO_NULL && (hints = find_info(info)) == nullptr)
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  bool strict = false;
  int color = split_type_colour(split_type, hints, &strict);
  // Processes of two jobs share no memory here, even on one host: the job goes into the colour.
  if (color != MPI_UNDEFINED && has_other_jobs(entry->comm->group()))
    color = string_tag((job_key() + "/" + std::to_string(color)).c_str());
  return split(call, comm, *entry, color, key, strict, newcomm);
}

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_create");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_GROUP(g, group, "group");
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  const bool inter = entry->comm->inter();
  const core::Group& mine = inter ? *entry->comm->shared_local_group() : entry->comm->group();
  for (int r = 0; r < g->size(); ++r) {
    if (!mine.contains(g->job_rank(r))) {
      return raise(call, comm, MPI_ERR_GROUP,
                   "argument group holds a process (rank %d of MPI_COMM_WORLD) that is not in "
                   "the communicator%s",
                   g->job_rank(r), inter ? "'s local group" : "");
    }
  }
  if (inter) return create_inter(call, comm, *entry, group, *g, newcomm);
  if (!g->contains(world_rank())) g = nullptr;
  return create_over(call, comm, *entry, spec_like(*entry, std::move(g)), newcomm);
}

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_create_group");
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  GPURUN_CHECK_GROUP(g, group, "group");
  GPURUN_CHECK_TAG(comm, tag, false);
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  return create_group(call, comm, *entry, std::move(g), tag, nullptr, newcomm);
}

extern "C" int PMPI_Comm_free(MPI_Comm* comm) {
  GPURUN_API_ENTER("MPI_Comm_free");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, comm);
  GPURUN_CHECK_COMM(entry, *comm);
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
    return raise(call, *comm, MPI_ERR_COMM, "argument comm is %s, which cannot be freed",
                 *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  }
  int failed_keyval = MPI_KEYVAL_INVALID;
  if (int rc = delete_attributes(*comm, *entry, &failed_keyval); rc != MPI_SUCCESS)
    return raise_callback_error(call, *comm, "delete", failed_keyval, rc);
  retire_bsend(entry->bsend);  // a buffer still attached: its messages go first
  unbind_streams(*entry);
  retire(state().comms.release(handle_index(*comm)));
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// MPI-4.1: the hardware resource types MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED) takes (its
// info key "mpi_hw_resource_type"), each with the name of the resource of that type this
// process runs in: "mpi_shared_memory", the host.
extern "C" int PMPI_Get_hw_resource_info(MPI_Info* hw_info) {
  GPURUN_API_ENTER("MPI_Get_hw_resource_info");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, hw_info);
  auto info = std::make_unique<core::Info>();
  info->set("mpi_shared_memory", state().bootstrap->job().host);
  MPI_Info h = new_info_handle(std::move(info));
  if (h == MPI_INFO_NULL)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many info objects; free some");
  *hw_info = h;
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_dup)
GPURUN_MPI_ALIAS(MPI_Comm_dup_with_info)
GPURUN_MPI_ALIAS(MPI_Comm_idup)
GPURUN_MPI_ALIAS(MPI_Comm_idup_with_info)
GPURUN_MPI_ALIAS(MPI_Comm_split)
GPURUN_MPI_ALIAS(MPI_Comm_split_type)
GPURUN_MPI_ALIAS(MPI_Comm_create)
GPURUN_MPI_ALIAS(MPI_Comm_create_group)
GPURUN_MPI_ALIAS(MPI_Comm_free)
GPURUN_MPI_ALIAS(MPI_Get_hw_resource_info)
