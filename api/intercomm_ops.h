// The operations of collectives on intercommunicators (api/intercomm_coll.h).
//
// A call becomes a chain of phases that run one after another, each an operation of the
// collective engine:
//   a collective of the group's local communicator (CommEntry::local), made by coll::create
//   with that communicator's next tag (every member of a group takes part in the same local
//   phases of a call, and the groups call the intercommunicator's collectives in one order,
//   so the local tags agree);
//   the messages between the groups: a schedule of one round on the intercommunicator, at
//   the call's tag, receives posted before sends.
// Local phases of calls in flight together start in an order that differs between the
// members (each chain moves on as its messages arrive), which only algorithms whose messages
// carry their tag bear: the shared-memory ones follow the tags' order in their segment. So
// once a nonblocking or persistent collective was made on an intercommunicator
// (CommEntry::inter_overlap), its local phases run the point-to-point algorithms, selected as
// for ranks on separate hosts; until then (blocking calls only, each run to its end before
// the next) they run what the local communicator's selection gives, shared memory included.
// A chain is made whole when the call is made, scratch memory included, so the blocking,
// nonblocking and persistent forms run the same chain (a persistent one again at each
// MPI_Start). A phase that fails does not stop the chain: the later phases still run, so
// that the members that wait on them do not hang, and the first error is the chain's.
#pragma once

#include <memory>
#include <span>

#include "api/intercomm_coll.h"
#include "api/state.h"
#include "coll/algorithm.h"
#include "runtime/base/status.h"

namespace gpurun::api {

// One call on an intercommunicator, its arguments checked.
struct InterCall {
  CommEntry& entry;  // the intercommunicator
  int tag;           // the call's tag on it
  InterKind kind;
  const InterArgs& a;
  const core::Datatype* stype = nullptr;  // the send side's datatype, where it moves data
  const core::Datatype* rtype = nullptr;  // the receive side's
  const core::Op* op = nullptr;           // reductions
  // alltoallw: one datatype per remote process and side.
  std::span<const core::Datatype* const> stypes;
  std::span<const core::Datatype* const> rtypes;
};

// The chain of `c`, not started.
Result<std::unique_ptr<coll::Operation>> inter_operation(const InterCall& c);
// For a call of `kind` with `root` that failed its checks on this member: takes the local
// communicator's tags that its local phases would have taken, so that the member's later calls
// stay in step with its group's.
void skip_local_phases(CommEntry& entry, InterKind kind, int root);

}  // namespace gpurun::api
