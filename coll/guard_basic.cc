// The guard's watch over the collectives that create communicators (select_guard.h): each
// takes its parent's next collective tag, so a rank that creates a communicator while another
// runs a collective call there (or the reverse) waits for messages that never come. A watched
// collective that has waited GPURUN_COLL_MISMATCH_WAIT tells the other members, as a guarded
// call does, and ends with the error of guard::other_call when one of them runs another call
// at its tag; its own notice answers theirs, so that they end too.
#include <optional>
#include <string>
#include <vector>

#include "coll/basic.h"
#include "coll/guard_state.h"
#include "coll/params.h"
#include "coll/select_guard.h"
#include "runtime/base/clock.h"
#include "runtime/progress/progress.h"

namespace gpurun::coll {
namespace {

struct Watch {
  BasicCollective* collective = nullptr;
  std::shared_ptr<guard::CommGuard> comm;
  guard::Notice mine;
  std::int64_t since = 0;  // when it started
  std::uint32_t polls = 0;
  bool told = false;
  bool blocking = false;  // Team::blocking
  bool blocked = false;   // this process is marked blocked in it (guard::block)
};

std::vector<Watch>& watches() {
  static auto* list = new std::vector<Watch>;
  return *list;
}
// watches().size(), where the progress engine reads it: it polls the creations only while some
// are watched.
progress::PendingWord g_watched{0};

int poll_creations(void*);

// A member that creates a communicator at this tag in another way (MPI_Comm_split there,
// MPI_Comm_dup here: their collectives differ).
Status other_creation(const guard::Received& r, const guard::Notice& mine) {
  auto what = [](const guard::Notice& n) {
    return std::string(basic_kind_name(n.algorithm)) + " of " + std::to_string(n.bytes) + " bytes";
  };
  return Status(ErrorCode::kInvalidArgument,
                "rank " + std::to_string(r.source) + " creates a communicator at this call (tag " +
                    std::to_string(mine.tag) + ") in another way than this rank (its " +
                    what(r.notice) + ", this rank's " + what(mine) +
                    "): every rank must call the same communicator-creating functions "
                    "(MPI_Comm_dup, MPI_Comm_split...) in the same order");
}

// Why `w` should end, when it has waited long and a member runs another call at its tag.
std::optional<Status> mismatch_of(Watch& w, std::int64_t wait_ns) {
  if ((++w.polls & 63) != 0) [[likely]]
    return std::nullopt;
  if (clock::now_ns() - w.since < wait_ns) return std::nullopt;
  if (!w.told) {
    w.told = true;
    guard::tell_others(*w.comm, w.mine);
    if (w.blocking) {
      w.blocked = true;
      guard::block(*w.comm, w.mine);
    }
  }
  for (const guard::Received& r : w.comm->received) {
    const guard::Notice& n = r.notice;
    if (n.tag != w.mine.tag) continue;
    if (n.state == guard::kNotStarted) {
      if (std::optional<Status> why =
              w.blocked ? guard::deadlock(*w.comm, r, w.mine) : std::nullopt)
        return why;
      continue;
    }
    if (n.collective != guard::kCreation) return guard::other_call(r, w.mine);
    if (n.algorithm != w.mine.algorithm || n.bytes != w.mine.bytes)
      return other_creation(r, w.mine);
    if (n.state == guard::kFailed) return guard::member_failed(r, w.mine);
  }
  return std::nullopt;
}

}  // namespace

bool watch_creation(BasicCollective& collective, pml::Pml& pml, const Team& team, BasicKind kind,
                    std::size_t bytes) {
  if (team.tag < kCreationTags || !team.members.empty() || team.comm->size() < 2) return false;
  std::shared_ptr<guard::CommGuard> g = guard::of(pml, *team.comm);
  if (g == nullptr) return false;
  guard::Notice mine{
      .tag = team.tag - kCreationTags,  // the call's sequence number
      .collective = guard::kCreation,
      .algorithm = team.call_kind >= 0 ? team.call_kind : static_cast<std::int32_t>(kind),
      .state = guard::kWaiting,
      .bytes = static_cast<std::int64_t>(team.call_kind >= 0 ? team.call_bytes : bytes)};
  guard::remember(*g, mine, mine.tag);
  static bool poller_added = false;  // a program that creates no communicator runs no poller
  if (!poller_added) {
    progress::engine().add(poll_creations, nullptr, "coll-guard", &g_watched);
    poller_added = true;
  }
  watches().push_back(Watch{.collective = &collective,
                            .comm = std::move(g),
                            .mine = mine,
                            .since = clock::now_ns(),
                            .blocking = team.blocking});
  g_watched.store(watches().size(), std::memory_order_relaxed);
  return true;
}

void unwatch_creation(BasicCollective& collective, ErrorCode error) {
  std::vector<Watch>& all = watches();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].collective != &collective) continue;
    if (all[i].blocked) guard::unblock();
    guard::mark_done(*all[i].comm, all[i].mine.tag, error);
    all.erase(all.begin() + static_cast<std::ptrdiff_t>(i));
    g_watched.store(all.size(), std::memory_order_relaxed);
    return;
  }
}

namespace {

// Looks at the creation collectives that have waited long.
int poll_creations(void*) {
  std::vector<Watch>& all = watches();
  if (all.empty()) [[likely]]
    return 0;
  std::int64_t wait_ns = params::mismatch_wait().get().count();
  for (Watch& w : all) {
    std::optional<Status> why = mismatch_of(w, wait_ns);
    if (!why) continue;
    // abort() runs the collective's done callback, which may destroy it (unwatching it) or
    // start others: nothing here touches the list after it.
    BasicCollective* c = w.collective;
    unwatch_creation(*c, why->code());
    c->abort(std::move(*why));
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace gpurun::coll
