// What the communicator creation calls share: running the internal collectives, the creation
// itself (agree on a context id, then install the communicator), and retiring freed ones.
//
// A freed communicator's handle is invalid at once, but the communicator itself, and its
// context id, stay until no request refers to it any more (MPI_Comm_free "takes effect when
// the pending operations complete"): retired communicators are reclaimed at the next creation
// or free.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "api/call.h"
#include "api/comm_cid.h"
#include "api/state.h"
#include "coll/basic.h"
#include "runtime/core/group.h"

namespace gpurun::api {

// What a new communicator starts with, besides its context id.
struct CommSpec {
  core::GroupPtr group;      // null: this process takes part in the creation but gets MPI_COMM_NULL
  ErrhandlerRef errhandler;  // the parent's, which the new communicator inherits
  std::unique_ptr<core::Info> hints;
  bool device_only = false;  // set by the creation: every member asserted device memory only
  std::vector<Attribute> attributes;         // copied already (by MPI_Comm_idup at its call)
  std::shared_ptr<const Topology> topology;  // api/topo.h; shared by MPI_Comm_dup
  core::GroupPtr remote;  // an intercommunicator's remote group (`group` is the local one)
  MPI_Comm local = MPI_COMM_NULL;  // ... a duplicate of its local group's communicator
  MPI_Session session = MPI_SESSION_NULL;  // the session it derives from (CommEntry::session)
};

// A communicator being created: the context-id agreement among a team, then the installation.
class Creation {
 public:
  static std::unique_ptr<Creation> start(coll::Team team, std::uint64_t key, CommSpec spec);
  bool done() const { return agreement_->done(); }
  CidAgreement& agreement() { return *agreement_; }
  // Once done: installs the communicator, or gives the id back when this process is not in
  // it. Returns the new handle, MPI_COMM_NULL, or the failure.
  Result<MPI_Comm> finish();
  // What finish() installs, until then.
  CommSpec& spec() { return spec_; }

 private:
  std::unique_ptr<CidAgreement> agreement_;
  CommSpec spec_;
};

// Every rank of `entry`'s communicator, with the creation tag (coll::creation_tag) of its next
// collective call's sequence number.
coll::Team whole_team(CommEntry& entry, bool blocking = true);
// The agreement key (ContextIds) of a creation over the parent `entry` whose collective tag is
// `tag`: the parent's id first, so that every member orders concurrent creations alike.
std::uint64_t creation_key(const CommEntry& entry, int tag);

// Waits for `c` (progress, and the wait policy); returns its status.
Status wait_collective(coll::BasicCollective& c);

// Creates a communicator over all of `parent` (blocking): every rank of it takes part; those
// for which spec.group is null get MPI_COMM_NULL. Errors go through `parent_handle`'s handler.
int create_over(const Call& call, MPI_Comm parent_handle, CommEntry& parent, CommSpec spec,
                MPI_Comm* newcomm);
// The same, at the tag of `team` (whole_team of the parent), which a collective of the same
// call took first (MPI_Comm_split's exchange of colours): one tag for the call, so that a
// rank whose first collective failed and one whose first succeeded stay in step.
int create_over_team(const Call& call, MPI_Comm parent_handle, CommEntry& parent, CommSpec spec,
                     MPI_Comm* newcomm, coll::Team team);

// Installs a communicator with context id `id` (table entry, handle, pml). Gives the id back
// on failure.
Result<MPI_Comm> install(CommSpec spec, int id);
// MPI_Comm_free once the handle is gone: the communicator goes when no request uses it.
void retire(std::unique_ptr<CommEntry> entry);
// Destroys the retired communicators that no request uses any more, giving their ids back.
void reclaim_retired();

// MPI_Comm_create_group's work (MPI_Comm_create_from_group's too, over MPI_COMM_WORLD): the
// members of `g`, all in `entry`'s communicator `comm`, make a communicator with `tag`. It
// gets `*errhandler` (predefined or checked), or the parent's handler when that is null.
int create_group(const Call& call, MPI_Comm comm, CommEntry& entry, core::GroupPtr g, int tag,
                 const MPI_Errhandler* errhandler, MPI_Comm* newcomm);
// A creation tag (0 to 2^30 - 1) that every process derives alike: from a string
// (MPI_Comm_create_from_group's stringtag) or from numbers, hashed (FNV-1a).
int string_tag(const char* text);
int numbers_tag(std::initializer_list<int> values);
// MPI_Comm_dup of `entry` (attributes copied, `hints` as its info), blocking.
int duplicate(const Call& call, MPI_Comm comm, CommEntry& entry, std::unique_ptr<core::Info> hints,
              MPI_Comm* newcomm);
// MPI_Comm_dup of intercommunicator `entry` (api/intercomm.cc): its attributes are the caller's.
int dup_inter(const Call& call, MPI_Comm comm, CommEntry& entry, MPI_Comm* newcomm);
// The members of `parent` that chose `color`, ordered by key, then by rank in the parent.
// `pairs` holds each rank's colour and key (2 per rank of `parent`; for an intercommunicator,
// of its remote group).
core::GroupPtr split_group(const core::Communicator& parent, const std::vector<int>& pairs,
                           int color);
// MPI_Comm_split of intercommunicator `entry`: the members of each group that pass one colour
// and those of the other group that pass it too form a new intercommunicator (ordered by key,
// then rank); MPI_UNDEFINED, or a colour the other group does not pass, gives MPI_COMM_NULL.
int split_inter(const Call& call, MPI_Comm comm, CommEntry& entry, int color, int key,
                MPI_Comm* newcomm);
// MPI_Comm_create of intercommunicator `entry`: `group` (handle; `g`, checked to be part of
// the local group) and the other group's choice form a new intercommunicator; members outside
// them, or every member where either choice is empty, get MPI_COMM_NULL.
int create_inter(const Call& call, MPI_Comm comm, CommEntry& entry, MPI_Group group,
                 const core::Group& g, MPI_Comm* newcomm);
// MPI_Comm_idup(_with_info) of intercommunicator `entry`: the attributes are copied now, and
// the request completes (from progress) once both groups agreed.
int idup_inter(const Call& call, MPI_Comm comm, CommEntry& entry,
               std::unique_ptr<core::Info> hints, MPI_Comm* newcomm, MPI_Request* request);
// The creation of create_among(), started and not waited for (`blocking`: coll::Team's).
std::unique_ptr<Creation> start_among(CommEntry& entry, std::vector<int> members, int tag,
                                      CommSpec spec, bool blocking);
// The agreement among `members` (ranks of `entry`'s communicator `comm`, this process one of
// them, every one calling alike) at `tag`, then the installation of `spec`.
int create_among(const Call& call, MPI_Comm comm, CommEntry& entry, std::vector<int> members,
                 int tag, CommSpec spec, MPI_Comm* newcomm);
// Whether a request (pending, or complete but not yet freed) refers to `comm`.
bool comm_in_use(const core::Communicator* comm);

// MPI_Finalize's first step: deletes MPI_COMM_SELF's attributes (callbacks last set first),
// while the library is still fully usable, as the standard requires. Returns an MPI error code.
int finalize_communicators();

}  // namespace gpurun::api
