#include "coll/shm/arenas.h"

#include <memory>
#include <vector>

#include "runtime/progress/progress.h"

namespace gpurun::coll::shm {
namespace {

std::vector<std::unique_ptr<Arena>>& arenas() {
  static auto* table = new std::vector<std::unique_ptr<Arena>>();
  return *table;
}

// The progress engine's poller: every wait of this rank (a blocking collective, MPI_Wait on
// anything) advances the queued collectives, and a rank about to sleep on its doorbell looks
// at their flags once more after announcing its sleep, so that a flag posted just before is
// not missed (its owner's ring saw no sleeper). Counts the collectives it completed.
int poll_arenas(void* /*context*/) {
  if (queued_everywhere() == 0) return 0;
  int completed = 0;
  for (auto& arena : arenas())
    if (arena != nullptr && arena->busy() && arena->state() == Arena::State::kReady)
      completed += arena->advance();
  return completed;
}

}  // namespace

Arena& arena_of(const core::Communicator& comm) {
  auto& table = arenas();
  std::uint32_t id = comm.context_id();
  if (id >= table.size()) table.resize(id + 1);
  std::unique_ptr<Arena>& slot = table[id];
  // A communicator freed without release() leaves its arena behind: a new communicator with
  // the same context id gets a new one.
  if (slot == nullptr || !slot->serves(comm)) {
    static const bool polled = [] {
      progress::engine().add(poll_arenas, nullptr, "coll_shm", queued_word());
      return true;
    }();
    (void)polled;
    slot = std::make_unique<Arena>(comm);
  }
  return *slot;
}

bool arena_broken(const core::Communicator& comm) {
  const auto& table = arenas();
  std::uint32_t id = comm.context_id();
  if (id >= table.size() || table[id] == nullptr || !table[id]->serves(comm)) return false;
  return table[id]->state() == Arena::State::kBroken;
}

void release(std::uint32_t context_id) {
  auto& table = arenas();
  if (context_id >= table.size() || table[context_id] == nullptr) return;
  table[context_id]->leave();
  table[context_id].reset();
}

void leave_all() {
  for (auto& arena : arenas())
    if (arena != nullptr) arena->leave();
}

}  // namespace gpurun::coll::shm
