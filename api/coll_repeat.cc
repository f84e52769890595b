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

}  // namespace

coll::Operation* repeat_of(const RepeatKey* key, int tag) {
  if (key == nullptr) return nullptr;
  Kept& k = kept_of(key->collective);
  if (k.operation == nullptr || g_device_memory || !(k.key == *key)) return nullptr;
  if (!k.operation->repeat(tag)) {
    k.operation = nullptr;
    return nullptr;
  }
  return k.operation;
}

void keep_repeat(const RepeatKey& key, coll::Operation& operation) {
  if (g_device_memory) return;
  Kept& k = kept_of(key.collective);
  k.key = key;
  k.operation = &operation;
}

void drop_repeat(coll::Collective collective) { kept_of(collective).operation = nullptr; }

void forget_repeats() {
  for (Kept& k : kept()) k.operation = nullptr;
}

}  // namespace gpurun::api
