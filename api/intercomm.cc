// Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge, MPI_Comm_test_inter,
// MPI_Comm_remote_size and MPI_Comm_remote_group, and MPI_Comm_dup, MPI_Comm_split and
// MPI_Comm_create of one (MPI_Comm_idup: api/intercomm_idup.cc).
//
// An intercommunicator's core::Communicator names the remote group as its group (the ranks of
// point-to-point calls are remote ranks, so the pml moves its messages as any other) and keeps
// the local one beside it (runtime/core/communicator.h). Every process of the job is in
// MPI_COMM_WORLD, so the members of both groups agree on its context id as MPI_Comm_create_group
// does over MPI_COMM_WORLD, at a tag both sides derive alike. Each intercommunicator keeps a
// duplicate of its local group's communicator (CommEntry::local) for the agreements of merge
// and dup, for the collectives (api/intercomm_coll.h), and to split it (MPI_Comm_split and
// MPI_Comm_create of an intercommunicator split the local communicator, and the groups tell
// each other their choices through the intercommunicator's collectives). MPI_Comm_split_type
// refuses intercommunicators (MPI_ERR_UNSUPPORTED_OPERATION); topologies, which the standard
// gives intracommunicators only, fail with MPI_ERR_COMM.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/attr.h"
#include "api/checks.h"
#include "api/comm_build.h"
#include "api/datatypes.h"
#include "api/errhandler.h"
#include "api/group.h"
#include "api/intercomm_place.h"
#include "api/requests.h"
#include "coll/basic.h"

namespace gpurun::api {
namespace {

std::vector<int> sorted_union(const core::Group& a, const core::Group& b) {
  std::vector<int> all = a.job_ranks();
  std::vector<int> more = b.job_ranks();
  all.insert(all.end(), more.begin(), more.end());
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

int shared_tag(const std::vector<int>& members, int salt) {
  auto [lo, hi] = std::minmax_element(members.begin(), members.end());
  return numbers_tag({*lo, *hi, salt});
}

int Place::rank_of(int id) const {
  return entry == &state().world ? id : entry->comm->group().rank_of(id);
}

std::vector<int> Place::ranks(const core::Group& a, const core::Group& b) const {
  std::vector<int> all = sorted_union(a, b);
  for (int& r : all) r = rank_of(r);
  std::sort(all.begin(), all.end());
  return all;
}

Place place_of(MPI_Comm span) {
  return Place{span == MPI_COMM_NULL ? &state().world : find_comm(span)};
}

int dup_salt(CommEntry& entry) {
  return static_cast<int>(entry.comm->context_id() * 1024 + (++entry.inter_made % 1024)) * 2;
}

namespace {

// An intercommunicator of `local` and `remote` (process numbers), whose local group's
// communicator is `local_comm` (duplicated for it), agreed in `span`'s place (place_of).
// Errors go to `report`'s handler.
int make_inter(const Call& call, MPI_Comm report, MPI_Comm local_comm, core::GroupPtr local,
               ErrhandlerRef errhandler, core::GroupPtr remote, int salt, MPI_Comm* newcomm,
               MPI_Comm span = MPI_COMM_NULL) {
  CommSpec spec;
  spec.group = std::move(local);
  spec.remote = std::move(remote);
  spec.errhandler = std::move(errhandler);
  Place place = place_of(span);
  std::vector<int> members = place.ranks(*spec.group, *spec.remote);
  int tag = shared_tag(members, salt);
  if (int rc = PMPI_Comm_dup(local_comm, &spec.local); rc != MPI_SUCCESS) return rc;
  MPI_Comm dup = spec.local;
  int rc = create_among(call, report, *place.entry, members, tag, std::move(spec), newcomm);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(&dup);
    return rc;
  }
  if (span != MPI_COMM_NULL) rc = PMPI_Comm_dup(span, &find_comm(*newcomm)->span);
  return rc;
}

// The local leader's part: the remote group's MPI_COMM_WORLD ranks from the remote leader, or
// an empty list when the arguments only it checks are wrong (the caller then fails everywhere).
std::vector<int> leaders_exchange(const Call& call, const CommEntry& entry, MPI_Comm peer_comm,
                                  int remote_leader, int tag, int* rc) {
  CommEntry* peer = find_comm(peer_comm);
  if (peer == nullptr || peer->comm->inter()) {
    *rc = raise(call, MPI_COMM_NULL, MPI_ERR_COMM,
                "argument peer_comm (0x%x) is not an intracommunicator (at the local leader)",
                static_cast<unsigned>(peer_comm));
    return {};
  }
  if (remote_leader < 0 || remote_leader >= peer->comm->size()) {
    *rc = raise(call, peer_comm, MPI_ERR_RANK,
                "argument remote_leader %d is not a rank of peer_comm (size %d)", remote_leader,
                peer->comm->size());
    return {};
  }
  std::vector<int> mine = entry.comm->group().job_ranks();
  int n = static_cast<int>(mine.size()), m = 0;
  PMPI_Sendrecv(&n, 1, MPI_INT, remote_leader, tag, &m, 1, MPI_INT, remote_leader, tag, peer_comm,
                MPI_STATUS_IGNORE);
  std::vector<int> theirs(static_cast<std::size_t>(std::max(m, 0)));
  PMPI_Sendrecv(mine.data(), n, MPI_INT, remote_leader, tag, theirs.data(), m, MPI_INT,
                remote_leader, tag, peer_comm, MPI_STATUS_IGNORE);
  return theirs;
}

int intercomm_create(const Call& call, MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                     int remote_leader, int tag, MPI_Comm* newintercomm) {
  GPURUN_CHECK_COMM(entry, local_comm);
  if (entry->comm->inter())
    return raise(call, local_comm, MPI_ERR_COMM, "argument local_comm is an intercommunicator");
  GPURUN_CHECK_RANK(local_comm, entry, "local_leader", local_leader, false);
  GPURUN_CHECK_TAG(local_comm, tag, false);
  GPURUN_CHECK_NOT_NULL(local_comm, newintercomm);
  // The leader's size of the remote group (-1: the leader's checks failed) and tag, then the
  // group itself, to every local member.
  int rc = MPI_SUCCESS, head[2] = {-1, tag};
  std::vector<int> remote;
  if (entry->comm->rank() == local_leader) {
    remote = leaders_exchange(call, *entry, peer_comm, remote_leader, tag, &rc);
    head[0] = rc == MPI_SUCCESS ? static_cast<int>(remote.size()) : -1;
  }
  PMPI_Bcast(head, 2, MPI_INT, local_leader, local_comm);
  if (head[0] < 0) {
    return rc != MPI_SUCCESS ? rc
                             : raise(call, local_comm, MPI_ERR_ARG,
                                     "the local leader's peer_comm or remote_leader is wrong");
  }
  remote.resize(static_cast<std::size_t>(head[0]));
  PMPI_Bcast(remote.data(), head[0], MPI_INT, local_leader, local_comm);
  for (int r : remote) {
    if (entry->comm->group().contains(r)) {
      return raise(call, local_comm, MPI_ERR_ARG,
                   "the two groups overlap (rank %d of MPI_COMM_WORLD is in both)", r);
    }
  }
  return make_inter(call, local_comm, local_comm, entry->comm->shared_group(), entry->errhandler,
                    core::Group::of(std::move(remote)), head[1], newintercomm);
}

// The remote leader's `value`, exchanged by the two local leaders and spread in each group. The
// leaders' messages take the intercommunicator's next collective sequence number, in the
// tags of communicator creation (coll/basic.h): a nonblocking collective still in flight on
// it has a number of its own.
int remote_value(CommEntry& entry, int value) {
  const int tag = coll::creation_tag(entry.next_coll_tag());
  int theirs = 0;
  if (entry.comm->rank() == 0) {
    pml::Pml& pml = the_pml();
    const core::Datatype* type = find_datatype(MPI_INT);
    core::Request* s = pml.requests().allocate();
    core::Request* r = pml.requests().allocate();
    (void)pml.irecv({entry.comm.get(), &theirs, 1, type, 0, tag, pml::Channel::kColl}, r);
    (void)pml.isend(
        {entry.comm.get(), &value, 1, type, 0, tag, pml::SendMode::kStandard, pml::Channel::kColl},
        s);
    wait_until([&] { return s->complete() && r->complete(); });
    pml.requests().release(s);
    pml.requests().release(r);
  }
  PMPI_Bcast(&theirs, 1, MPI_INT, 0, entry.local);
  return theirs;
}

int intercomm_merge(const Call& call, MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  GPURUN_CHECK_COMM(entry, intercomm);
  if (!entry->comm->inter()) {
    return raise(call, intercomm, MPI_ERR_COMM,
                 "argument intercomm is an intracommunicator (MPI_Intercomm_merge takes an "
                 "intercommunicator)");
  }
  GPURUN_CHECK_NOT_NULL(intercomm, newintracomm);
  const core::Group& local = *entry->comm->shared_local_group();
  const core::Group& remote = entry->comm->group();
  bool mine_high = high != 0, theirs_high = remote_value(*entry, mine_high ? 1 : 0) != 0;
  // The group that passed high = false first; on a tie, the one with the lower MPI_COMM_WORLD
  // rank at its rank 0.
  Place place = place_of(entry->span);
  bool local_first = mine_high != theirs_high
                         ? !mine_high
                         : place.rank_of(local.job_rank(0)) < place.rank_of(remote.job_rank(0));
  std::vector<int> order = (local_first ? local : remote).job_ranks();
  std::vector<int> second = (local_first ? remote : local).job_ranks();
  order.insert(order.end(), second.begin(), second.end());
  std::vector<int> members = place.ranks(local, remote);
  CommSpec spec;
  spec.group = core::Group::of(std::move(order));
  spec.errhandler = entry->errhandler;
  spec.session = entry->session;
  int tag = shared_tag(members, static_cast<int>(entry->comm->context_id()) * 2 + 1);
  return create_among(call, intercomm, *place.entry, members, tag, std::move(spec), newintracomm);
}

// MPI_Intercomm_create_from_groups: every member knows both groups, so the leaders need not
// speak first; the local group's communicator is made from the group for the new one's use.
int from_groups(const Call& call, MPI_Group local_group, MPI_Group remote_group,
                const char* stringtag, MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  GPURUN_CHECK_GROUP(local, local_group, "local_group");
  GPURUN_CHECK_GROUP(remote, remote_group, "remote_group");
  if (stringtag == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument stringtag is a null pointer");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newintercomm);
  if (std::string problem = errhandler_problem(errhandler, ErrhandlerFor::kComm); !problem.empty())
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "%s", problem.c_str());
  if (!local->contains(world_rank())) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_GROUP,
                 "argument local_group does not hold this process");
  }
  for (int r : remote->job_ranks()) {
    if (local->contains(r)) {
      return raise(call, MPI_COMM_NULL, MPI_ERR_GROUP,
                   "arguments local_group and remote_group overlap (rank %d of MPI_COMM_WORLD)", r);
    }
  }
  int salt = string_tag(stringtag);
  MPI_Comm local_comm = MPI_COMM_NULL;
  int rc = create_group(call, MPI_COMM_NULL, state().world, local, salt ^ 0x2aaaaaaa, &errhandler,
                        &local_comm);
  if (rc != MPI_SUCCESS) return rc;
  rc = make_inter(call, MPI_COMM_NULL, local_comm, local, ErrhandlerRef(errhandler), remote, salt,
                  newintercomm);
  PMPI_Comm_free(&local_comm);
  return rc;
}

}  // namespace

int dup_inter(const Call& call, MPI_Comm comm, CommEntry& entry, MPI_Comm* newcomm) {
  return make_inter(call, comm, entry.local, entry.comm->shared_local_group(), entry.errhandler,
                    entry.comm->shared_group(), dup_salt(entry), newcomm, entry.span);
}

namespace {

// The salt of the `made`-th communicator that MPI_Comm_split or MPI_Comm_create makes of
// intercommunicator `entry` for members passing `color`: every member of both groups derives
// it alike.
int made_salt(const CommEntry& entry, std::uint32_t made, int color) {
  return numbers_tag({static_cast<int>(entry.comm->context_id()), static_cast<int>(made), color});
}

// Between two jobs, the members of `mine` and `remote`: a communicator of them made of `span`
// (only they call), where the new intercommunicator is agreed and which becomes its span.
int span_of(MPI_Comm span, const core::Group& mine, const core::Group& remote, int salt,
            MPI_Comm* out) {
  std::vector<int> ranks = place_of(span).ranks(mine, remote);
  MPI_Group whole = MPI_GROUP_NULL, part = MPI_GROUP_NULL;
  int rc = PMPI_Comm_group(span, &whole);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Group_incl(whole, static_cast<int>(ranks.size()), ranks.data(), &part);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_create_group(span, part, salt, out);
  if (part != MPI_GROUP_NULL) PMPI_Group_free(&part);
  if (whole != MPI_GROUP_NULL) PMPI_Group_free(&whole);
  return rc;
}

// The new intercommunicator of the members that passed their part of the local group
// (`local`, a communicator of them; MPI_COMM_NULL for the others) and remote MPI_COMM_WORLD
// ranks `remote`: MPI_COMM_NULL where either side is empty. Frees `local`.
int pair_up(const Call& call, MPI_Comm comm, const CommEntry& entry, MPI_Comm local,
            std::vector<int> remote, int salt, MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  if (local == MPI_COMM_NULL) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  if (!remote.empty()) {
    core::GroupPtr mine = find_comm(local)->comm->shared_group();
    core::GroupPtr theirs = core::Group::of(std::move(remote));
    MPI_Comm span = MPI_COMM_NULL;
    if (entry.span != MPI_COMM_NULL) rc = span_of(entry.span, *mine, *theirs, salt, &span);
    if (rc == MPI_SUCCESS)
      rc = make_inter(call, comm, local, std::move(mine), entry.errhandler, std::move(theirs), salt,
                      newcomm, span);
    if (span != MPI_COMM_NULL) PMPI_Comm_free(&span);
  }
  PMPI_Comm_free(&local);
  return rc;
}

}  // namespace

int split_inter(const Call& call, MPI_Comm comm, CommEntry& entry, int color, int key,
                MPI_Comm* newcomm) {
  const std::uint32_t made = ++entry.inter_made;
  // Every remote member's colour and key, then this group's split of its local communicator.
  int mine[2] = {color, key};
  std::vector<int> theirs(2 * static_cast<std::size_t>(entry.comm->size()));
  int rc = PMPI_Allgather(mine, 2, MPI_INT, theirs.data(), 2, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm local = MPI_COMM_NULL;
  if ((rc = PMPI_Comm_split(entry.local, color, key, &local)) != MPI_SUCCESS) return rc;
  // The remote members of this colour, by key, then by rank (the group() of an
  // intercommunicator is its remote group).
  std::vector<int> remote;
  if (color != MPI_UNDEFINED) remote = split_group(*entry.comm, theirs, color)->job_ranks();
  return pair_up(call, comm, entry, local, std::move(remote), made_salt(entry, made, color),
                 newcomm);
}

int create_inter(const Call& call, MPI_Comm comm, CommEntry& entry, MPI_Group group,
                 const core::Group& g, MPI_Comm* newcomm) {
  const std::uint32_t made = ++entry.inter_made;
  // The other group's choice: its size from everyone, its members' ranks in that group from its
  // leader (process numbers differ between two jobs; ranks in the remote group do not).
  int n = g.size();
  std::vector<int> sizes(static_cast<std::size_t>(entry.comm->size()));
  int rc = PMPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return rc;
  const int rn = sizes[0];
  std::vector<int> ranks = g.job_ranks(), remote(static_cast<std::size_t>(rn));
  for (int& r : ranks) r = entry.comm->shared_local_group()->rank_of(r);
  std::vector<int> counts(sizes.size(), 0), displs(sizes.size(), 0);
  counts[0] = rn;
  int leader = entry.comm->rank() == 0;
  rc = PMPI_Allgatherv(ranks.data(), leader ? n : 0, MPI_INT, remote.data(), counts.data(),
                       displs.data(), MPI_INT, comm);
  if (rc != MPI_SUCCESS) return rc;
  for (int& r : remote) r = entry.comm->group().job_rank(r);
  MPI_Comm local = MPI_COMM_NULL;
  if ((rc = PMPI_Comm_create(entry.local, group, &local)) != MPI_SUCCESS) return rc;
  return pair_up(call, comm, entry, local, std::move(remote), made_salt(entry, made, 0), newcomm);
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm* newintercomm) {
  GPURUN_API_ENTER("MPI_Intercomm_create");
  return intercomm_create(call, local_comm, local_leader, peer_comm, remote_leader, tag,
                          newintercomm);
}

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  GPURUN_API_ENTER("MPI_Intercomm_merge");
  return intercomm_merge(call, intercomm, high, newintracomm);
}

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  GPURUN_API_ENTER("MPI_Comm_test_inter");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, flag);
  *flag = entry->comm->inter() ? 1 : 0;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  GPURUN_API_ENTER("MPI_Comm_remote_size");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, size);
  if (!entry->comm->inter())
    return raise(call, comm, MPI_ERR_COMM, "argument comm is an intracommunicator");
  *size = entry->comm->size();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  GPURUN_API_ENTER("MPI_Comm_remote_group");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, group);
  if (!entry->comm->inter())
    return raise(call, comm, MPI_ERR_COMM, "argument comm is an intracommunicator");
  MPI_Group h = new_group_handle(entry->comm->shared_group());
  if (h == MPI_GROUP_NULL) return raise(call, comm, MPI_ERR_NO_MEM, "too many groups; free some");
  *group = h;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int /*local_leader*/,
                                                 MPI_Group remote_group, int /*remote_leader*/,
                                                 const char* stringtag, MPI_Info /*info*/,
                                                 MPI_Errhandler errhandler,
                                                 MPI_Comm* newintercomm) {
  GPURUN_API_ENTER("MPI_Intercomm_create_from_groups");
  return from_groups(call, local_group, remote_group, stringtag, errhandler, newintercomm);
}

GPURUN_MPI_ALIAS(MPI_Intercomm_create)
GPURUN_MPI_ALIAS(MPI_Intercomm_create_from_groups)
GPURUN_MPI_ALIAS(MPI_Intercomm_merge)
GPURUN_MPI_ALIAS(MPI_Comm_test_inter)
GPURUN_MPI_ALIAS(MPI_Comm_remote_size)
GPURUN_MPI_ALIAS(MPI_Comm_remote_group)
