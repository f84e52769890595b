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
#include <string>
#include <utility>
#include <vector>

#include "pml/pml.h"
#include "runtime/base/status.h"
#include "runtime/core/communicator.h"

namespace gpurun::coll::guard {

inline constexpr std::int32_t kWaiting = 1, kDone = 2;
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
};

struct Received {
  int source = 0;
  Notice notice;
};

inline constexpr std::size_t kHistory = 16;  // calls per communicator a late notice can ask about

struct CommGuard {
  pml::Pml* pml = nullptr;
  const core::Communicator* comm = nullptr;
  core::Request* control = nullptr;                            // the posted receive for notices
  std::unique_ptr<Notice> inbox = std::make_unique<Notice>();  // the posted receive's buffer
  std::vector<Received> received;
  std::array<Notice, kHistory> history{};  // this rank's calls, by tag % kHistory
  std::vector<std::pair<int, int>> told;   // (tag, member) that have this rank's notice
  int unanswered = 0;  // waiting notices of calls this rank had not started when they came
};

// The state of `comm`, made (with its posted receive for notices) on first use; null when it
// cannot be (the receive could not be posted, or the state of a communicator that had the same
// context id was not dropped).
std::shared_ptr<CommGuard> of(pml::Pml& pml, const core::Communicator& comm);

// Answers the notices of members that asked about call `mine` before this rank started it.
void answer_late(CommGuard& g, const Notice& mine);

// This rank starts call `mine` (state kWaiting): kept for the members that ask about it, and
// sent at once to those that already did. Inline: every collective call runs it.
inline void remember(CommGuard& g, const Notice& mine) {
  g.history[static_cast<std::size_t>(mine.tag) % kHistory] = mine;
  if (g.unanswered != 0) [[unlikely]]
    answer_late(g, mine);
}
// This rank's call `tag` is over (completed or failed).
inline void mark_done(CommGuard& g, int tag) {
  Notice& kept = g.history[static_cast<std::size_t>(tag) % kHistory];
  if (kept.tag == tag) kept.state = kDone;
}
// Sends `mine` to every other member that does not have it yet.
void tell_others(CommGuard& g, const Notice& mine);

// Names for messages: "bcast", "communicator creation"; the algorithm, "shm".
std::string call_name(const Notice& n);
std::string algorithm_name(const Notice& n);
bool is_shm(const Notice& n);
const char* memory_name(std::int32_t kind);

// The failure of this rank's call `mine` where member `r.source` runs another call at its tag
// (MPI_ERR_ARG naming both calls).
Status other_call(const Received& r, const Notice& mine);

}  // namespace gpurun::coll::guard
