// RangeCache: the device allocations this process has seen, as an interval map from address
// ranges to what the driver said about them (kind, device, buffer id). An entry is trusted
// only while the driver reports the same buffer id for an address in it: a cudaFree and a new
// cudaMalloc at the same address give a new buffer id, and the old entry is then forgotten.
// The cache is bounded: beyond its capacity the least recently used entry is forgotten.
//
// Listeners hear of every forgotten allocation (freed, its addresses reused, or evicted), so
// that state kept per allocation elsewhere (exported IPC handles, registrations) is dropped
// with it and never outlives the memory.
//
// Thread-safety: every member may be called concurrently (one mutex); listeners run outside
// the lock, on the thread whose call forgot the allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "runtime/accel/memory.h"

namespace gpurun::cuda {

struct Allocation {
  std::uintptr_t base = 0;
  std::size_t size = 0;
  std::uint64_t buffer_id = 0;  // CU_POINTER_ATTRIBUTE_BUFFER_ID: unique for the process' life
  accel::MemoryKind kind = accel::MemoryKind::kCudaDevice;
  int device = -1;

  bool contains(std::uintptr_t address) const { return address - base < size; }
};

class RangeCache {
 public:
  using Listener = void (*)(void* context, const Allocation& forgotten);

  explicit RangeCache(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // The remembered allocation that holds `address`, if its buffer id is `buffer_id`. An entry
  // that holds the address under another buffer id is stale (its memory was freed): it is
  // forgotten, and the call misses.
  std::optional<Allocation> find(std::uintptr_t address, std::uint64_t buffer_id);
  // Remembers `allocation`, forgetting the entries it overlaps (their memory was freed and the
  // addresses reused) and the least recently used one beyond the capacity.
  void insert(const Allocation& allocation);
  // Forgets every entry that overlaps [base, base + size).
  void forget(std::uintptr_t base, std::size_t size);

  // Adds a listener for forgotten allocations; listeners stay for the cache's life.
  void subscribe(Listener listener, void* context);

  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    Allocation allocation;
    std::list<std::uintptr_t>::iterator use;  // position in uses_ (front: most recent)
  };
  using Map = std::map<std::uintptr_t, Entry>;

  // Moves the entries overlapping [base, base + size) to `out` (under the lock).
  void take_overlapping(std::uintptr_t base, std::size_t size, std::vector<Allocation>& out);
  void erase(Map::iterator it, std::vector<Allocation>& out);
  void notify(const std::vector<Allocation>& forgotten);

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  Map by_base_;
  std::list<std::uintptr_t> uses_;
  std::vector<std::pair<Listener, void*>> listeners_;
};

}  // namespace gpurun::cuda
