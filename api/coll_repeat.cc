#include "api/coll_repeat.h"

#include <array>

#include "api/memory.h"

namespace gpurun::api {
namespace {

struct Kept {
  RepeatKey key;
  coll::Operation* operation = nullptr;  // the engine's blocking slot owns it
};

std::array<Kept, static_cast<std::size_t>(coll::Collective::kCount)>& kept() {
  static std::array<Kept, static_cast<std::size_t>(coll::Collective::kCount)> table;
  return table;
}

Kept& kept_of(coll::Collective collective) { return kept()[static_cast<std::size_t>(collective)]; }

// Whether every buffer of the call is host memory (memory_of: at once where the process cannot
// use device memory at all). Calls on device memory always go the whole way: where a buffer is
// can change under the same address.
bool on_host(const RepeatKey& key) {
  for (const void* buf : {key.sendbuf, key.recvbuf})
    if (buf != MPI_IN_PLACE && memory_of(buf) != accel::MemoryKind::kHost) return false;
  return true;
}

}  // namespace

coll::Operation* repeat_of(const RepeatKey* key, int tag) {
  if (key == nullptr) return nullptr;
  Kept& k = kept_of(key->collective);
  if (k.operation == nullptr || !(k.key == *key) || !on_host(*key)) return nullptr;
  if (!k.operation->repeat(tag)) {
    k.operation = nullptr;
    return nullptr;
  }
  return k.operation;
}

void keep_repeat(const RepeatKey& key, coll::Operation& operation) {
  if (!on_host(key)) return;
  Kept& k = kept_of(key.collective);
  k.key = key;
  k.operation = &operation;
}

void drop_repeat(coll::Collective collective) { kept_of(collective).operation = nullptr; }

void forget_repeats() {
  for (Kept& k : kept()) k.operation = nullptr;
}

}  // namespace gpurun::api
