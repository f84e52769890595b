#include "coll/shm/arenas.h"

#include <memory>
#include <vector>

namespace gpurun::coll::shm {
namespace {

std::vector<std::unique_ptr<Arena>>& arenas() {
  static auto* table = new std::vector<std::unique_ptr<Arena>>();
  return *table;
}

}  // namespace

Arena& arena_of(const core::Communicator& comm) {
  auto& table = arenas();
  std::uint32_t id = comm.context_id();
  if (id >= table.size()) table.resize(id + 1);
  std::unique_ptr<Arena>& slot = table[id];
  // A communicator freed without release() leaves its arena behind: a new communicator with
  // the same context id gets a new one.
  if (slot == nullptr || !slot->serves(comm)) slot = std::make_unique<Arena>(comm);
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
  if (context_id < table.size()) table[context_id].reset();
}

void release_all() { arenas().clear(); }

}  // namespace gpurun::coll::shm
