#include "api/coll_repeat.h"

#include <algorithm>
#include <array>
#include <vector>

#include "api/memory.h"

namespace gpurun::api {
namespace {

struct Kept {
  RepeatKey key;                         // its arrays are not kept: their values are
  coll::Operation* operation = nullptr;  // the engine's blocking slot owns it
  unsigned present = 0;                  // which of the key's arrays were given
  std::vector<std::int64_t> values;      // ... and their values, one after the other
};

unsigned present_in(const RepeatKey& key) {
  unsigned bits = 0;
  for (std::size_t i = 0; i < key.arrays.size(); ++i)
    if (key.arrays[i] != nullptr) bits |= 1u << i;
  return bits;
}

// Whether `key`'s arrays hold the values that `k` kept.
bool same_arrays(const Kept& k, const RepeatKey& key) {
  if (present_in(key) != k.present) return false;
  auto n = static_cast<std::size_t>(key.size);
  std::size_t at = 0;
  for (const std::int64_t* array : key.arrays) {
    if (array == nullptr) continue;
    if (!std::equal(array, array + n, k.values.begin() + static_cast<std::ptrdiff_t>(at)))
      return false;
    at += n;
  }
  return true;
}

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
  if (k.operation == nullptr || !k.key.same_scalars(*key) || !same_arrays(k, *key) ||
      !on_host(*key))
    return nullptr;
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
  k.key.arrays = {};
  k.present = present_in(key);
  k.values.clear();
  for (const std::int64_t* array : key.arrays)
    if (array != nullptr) k.values.insert(k.values.end(), array, array + key.size);
  k.operation = &operation;
}

void drop_repeat(coll::Collective collective) { kept_of(collective).operation = nullptr; }

void forget_repeats() {
  for (Kept& k : kept()) k.operation = nullptr;
}

}  // namespace gpurun::api
