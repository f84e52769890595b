// What the guard against calls that do not match between ranks (coll/select_guard.h) keeps per
// communicator: the notices that a rank stuck in a call sends the other members, the notices
// that came in, and this rank's recent calls, from which it answers. Shared by the guard of
// collective calls (select_guard.cc) and the watch over communicator creation's collectives
// (guard_basic.cc).
//
// Threading: like the engine, not thread-safe; the API layer serialises callers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pml/pml.h"
#include "runtime/base/status.h"
#include "runtime/core/communicator.h"

namespace gpurun::coll::guard {

// Notice::state. kFailed: the call ended with an error (Notice::error). kNotStarted: the
// answer of a member that has not started the call asked about and is blocked in another one.
inline constexpr std::int32_t kWaiting = 1, kDone = 2, kFailed = 3, kNotStarted = 4;
// Notice::collective of the internal collectives that create a communicator (coll/basic.h:
// MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create, the topology constructors), which take the
// parent's next collective tag as a collective call does.
inline constexpr std::int32_t kCreation = 100;

struct Notice {
  std::int32_t tag = 0;
  std::int32_t collective = 0;  // a Collective, or kCreation
  std::int32_t algorithm = -1;  // index in Registry::of(collective): the same in every process
  std::int32_t state = 0;       // kWaiting or kDone
  std::int32_t memory = 0;      // accel::MemoryKind of the call's buffers
  std::int32_t root = -1;       // a rooted collective's root; -1 for the others
  std::int64_t bytes = 0;
  std::int32_t error = 0;  // kFailed: the ErrorCode the call ended with
  // kNotStarted: the blocking call this rank waits in (its communicator's context id, its tag
  // and collective), which the asking rank may not have reached: then neither can go on.
  std::uint32_t blocked_context = 0;
  std::int32_t blocked_tag = -1;
  std::int32_t blocked_collective = -1;
};

struct Received {
  int source = 0;
  Notice notice;
};

inline constexpr std::size_t kHistory = 16;  // calls per communicator a late notice can ask about

struct Told {
  std::int32_t tag = 0;
  int member = 0;
  std::int32_t state = 0;
};

struct CommGuard {
  pml::Pml* pml = nullptr;
  const core::Communicator* comm = nullptr;
  core::Request* control = nullptr;                            // the posted receive for notices
  std::unique_ptr<Notice> inbox = std::make_unique<Notice>();  // the posted receive's buffer
  std::vector<Received> received;
  std::array<Notice, kHistory> history{};  // this rank's calls, by tag % kHistory
  std::vector<Told> told;                  // the notices this rank sent
  int unanswered = 0;        // waiting notices of calls this rank had not started when they came
  std::int32_t latest = -1;  // the tag of the last call this rank started here
};

// The state of `comm`, made (with its posted receive for notices) on first use; null when it
// cannot be (the receive could not be posted, or the state of a communicator that had the same
// context id was not dropped).
std::shared_ptr<CommGuard> of(pml::Pml& pml, const core::Communicator& comm);

// Answers the notices of members that asked about call `mine` before this rank started it.
void answer_late(CommGuard& g, const Notice& mine);

// This rank starts call `tag` (state kWaiting): kept for the members that ask about it, and
// sent at once to those that already did. Inline: every collective call runs it.
// `base` is the call's notice but for its tag and state: a kept operation's, made before, is
// only read whole, never right after stores to some of its fields (a wide load waits until such
// stores have left the store buffer, behind any store of the last collective to a line another
// core shares: a cache-line hop on every call).
inline void remember(CommGuard& g, const Notice& base, int tag) {
  Notice& kept = g.history[static_cast<std::size_t>(tag) % kHistory];
  kept = base;
  kept.tag = tag;
  kept.state = kWaiting;
  g.latest = tag;
  if (g.unanswered != 0) [[unlikely]]
    answer_late(g, kept);
}
// This rank's call `tag` is over: completed, or failed with `error`.
inline void mark_done(CommGuard& g, int tag, ErrorCode error = ErrorCode::kOk) {
  Notice& kept = g.history[static_cast<std::size_t>(tag) % kHistory];
  if (kept.tag != tag) return;
  kept.state = error == ErrorCode::kOk ? kDone : kFailed;
  kept.error = static_cast<std::int32_t>(error);
}
// Sends `mine` to every other member that does not have it yet.
void tell_others(CommGuard& g, const Notice& mine);

// Deadlocks between communicators: ranks that call the collectives of two communicators
// they share in different orders (rank 0 a barrier on A then on B, rank 1 on B then on A)
// wait for each other for ever, each in a call the other has not reached. A blocking call
// that has waited GPURUN_COLL_MISMATCH_WAIT marks this process blocked in it (one call at a
// time: detection is off under MPI_THREAD_MULTIPLE, where another thread may yet make the
// call a member waits for). A blocked process answers the notices of calls it has not started,
// on any communicator, with kNotStarted naming the call it is blocked in, and a blocked
// member that gets such an answer and has not reached that call either knows that neither
// can go on: were every collective synchronising, each would wait for the other, which the
// standard makes erroneous (MPI 4.1, 6.14). Switched by coll::detect_deadlocks.
void block(const CommGuard& g, const Notice& mine);
void unblock();
// The failure of this rank's blocking call `mine` on `g` when member r.source's kNotStarted
// answer names a call of a communicator this rank shares with it and has not reached.
std::optional<Status> deadlock(const CommGuard& g, const Received& r, const Notice& mine);
// The failure of this rank's call `mine` where member r.source ended it with an error.
Status member_failed(const Received& r, const Notice& mine);

// Names for messages: "bcast", "communicator creation"; the algorithm, "shm".
std::string call_name(const Notice& n);
std::string algorithm_name(const Notice& n);
// Whether the call runs on the communicator's shared segment (coll/shm: "shm", or its
// single-copy form "cma"), whose own count check meets any other member there.
bool is_shm(const Notice& n);
const char* memory_name(std::int32_t kind);

// The failure of this rank's call `mine` where member `r.source` runs another call at its tag
// (MPI_ERR_ARG naming both calls).
Status other_call(const Received& r, const Notice& mine);

}  // namespace gpurun::coll::guard
