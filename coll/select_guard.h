// Calls that do not match between ranks: counts across the selection table's boundaries,
// roots, and different collectives (or communicator creation) at one call.
//
// Selection (coll/selector.h) looks at the call's byte count, which every rank of a correct
// program shares. When a program passes different counts on different ranks (erroneous, but
// it must not hang the ranks that were right), the ranks can pick different algorithms and
// wait forever for messages or flags that the others' algorithms never produce; the
// algorithms themselves detect counts that differ only when everyone runs the same one
// (coll/schedule.h: short and truncated messages; coll/shm/check.h: published counts, which
// carry the collective too). Likewise for ranks in different collectives at one call (every
// collective call, and every creation of a communicator, takes the communicator's next tag).
//
// The guard wraps the operation of every collective call on communicators of two ranks or
// more, and watches the collectives of communicator creation (coll/basic.h: watch_creation).
// It costs nothing while the operation progresses: a
// counter per progress() call and a clock read every 64. Once the operation has been
// incomplete for GPURUN_COLL_MISMATCH_WAIT (coll/params.h; 100 ms), the rank sends a notice
// of its call (tag, collective, algorithm, byte count, root, waiting or done) to every other
// member, on the collective channel with a tag that collective calls never use; each member keeps a
// wildcard receive posted for notices (from its first guarded call on the communicator) and answers
// a waiting rank with its own notice of that call (at once when it has started it, else when it
// does). A stuck rank then compares (coll/guard_state.h holds the notices):
//   - a member in another collective at that tag (or creating a communicator there, or creating
//     one in another way: MPI_Comm_split against MPI_Comm_dup): the call ends with MPI_ERR_ARG
//     naming both calls; a shared-memory operation ends as on a count mismatch
//     (Operation::abort: its segment stays in step), any other is abandoned;
//   - a member in the same call with the same algorithm, count (the v forms' counts may
//     differ) and root: nothing wrong (slow);
//   - the same, from another root (each rank passing its own rank, say: two ranks that both
//     take themselves for a gather's root wait for each other): the call ends with
//     MPI_ERR_ROOT naming the member's root, the same way; a member a shm operation stopped
//     waiting for reports MPI_ERR_ARG, "another root";
//   - a member in the shared-memory algorithm ("shm") while this rank runs another: this
//     rank joins "shm" with its own arguments (shm's count check then fails on both sides
//     with the usual error, and its segment stays in step; if the counts were the same after
//     all, the call simply completes);
//   - otherwise (another pml algorithm or count): the
//     call fails with a message naming the member, its count and algorithm, and this rank's
//     (or the memory kinds, where only they differ: ranks of a correct program whose
//     buffers are of different kinds may pick algorithms that cannot meet):
//     MPI_ERR_TRUNCATE when the member has more bytes than this rank, MPI_ERR_ARG otherwise.
// Host staging (coll/staging.h) is not guarded itself: the host algorithm inside it is.
// A failed or joined rank abandons its own operation, which is kept (never destroyed) so that
// the pml requests it posted stay valid: a small leak in an erroneous program. A rank in
// "shm" whose member ran a pml algorithm of the same collective and finished (the root of a
// bcast, a non-root of a reduce: they wait for nobody) does not leave its shm operation (its
// segment's order would break): shm itself fails it once that member's step counter passes
// the call without a count for it, which the member's next shared-memory collective on the
// communicator does (coll/shm/check.h), or once the member finalizes.
// The shm segment's setup has messages of its own tag (coll/shm/setup.h), so a mismatch in a
// communicator's first collective resolves alike.
// A member that ended the call with an error (kFailed in its notice) ends this rank's too, with
// its error class: it takes no further part. Blocking calls that wait in collectives of two
// communicators called in different orders end with MPI_ERR_ARG (guard_state.h: deadlocks).
//
// Threading: like the engine, not thread-safe; the API layer serialises callers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "coll/algorithm.h"

namespace gpurun::coll {

// `op` (made by `algorithm` for `args`, whose selection size is `bytes`; `blocking`: for a
// blocking call) wrapped in a guard, or `op` itself for calls that need none.
std::unique_ptr<Operation> guard_operation(std::unique_ptr<Operation> op, const Args& args,
                                           const Algorithm& algorithm, std::int64_t bytes,
                                           bool blocking);

// This rank could not make the operation of call `args` by `algorithm` (no memory for its
// scratch, say): the call is kept as failed with `error`, so that members waiting in it learn
// of it (kFailed) and end theirs instead of waiting for this rank.
void guard_failed(const Args& args, const Algorithm& algorithm, std::int64_t bytes,
                  ErrorCode error);

// Whether blocking calls look for deadlocks between communicators (guard_state.h: on unless
// the program runs under MPI_THREAD_MULTIPLE).
void detect_deadlocks(bool on);

// Makes the guard's state of `comm` (its posted receive for notices) now, not at its first
// collective call, so that this rank answers members that wait in a call it has not reached
// (a deadlock between communicators shows only so). Nothing for a communicator of one rank.
void watch_comm(pml::Pml& pml, const core::Communicator& comm);

// Drops what the guard keeps for the communicator with `context_id` (it is being freed),
// cancelling its posted receive for notices.
void forget_guard(std::uint32_t context_id);

class BasicCollective;
struct Team;
enum class BasicKind : std::uint8_t;
// Watches `collective`, a collective of communicator creation (coll/basic.h) that runs at
// team.tag = creation_tag(t) for the call sequence number t of its communicator, until
// unwatch_creation (guard_basic.cc):
// it answers the notices of members stuck in another call at that tag, and ends with
// BasicCollective::abort when it waits long and a member runs another call there. Returns
// whether it watches (not the teams of MPI_Comm_create_group, whose tags are their own, nor
// a team of one).
// `kind` and `bytes` (per member) describe it: members that create communicators in other
// ways (MPI_Comm_split on one, MPI_Comm_dup on another) end too.
bool watch_creation(BasicCollective& collective, pml::Pml& pml, const Team& team, BasicKind kind,
                    std::size_t bytes);
// `error`: the collective failed with it (members that ask learn that it did).
void unwatch_creation(BasicCollective& collective, ErrorCode error = ErrorCode::kOk);

}  // namespace gpurun::coll
