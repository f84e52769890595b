// The cache of imported mappings: peers' allocations that this rank mapped to read from, kept
// for the next transfer from the same buffer (opening an IPC handle costs far more than a
// small copy). A mapping keeps its owner's memory alive, so the cache is bounded in bytes and
// entries (least recently used go first) and drops what the owner no longer has:
// - an allocation of the same peer overlapping a new one is gone (live allocations never
//   overlap in one address space), and so is one whose buffer id changed;
// - the owner reports buffers it freed (release notices), and they go at once.
// An entry a copy is reading from is pinned: eviction passes it over, and a release that hits
// it takes effect when the copy ends.
//
// Not thread-safe: the transport that owns it serialises calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <utility>

namespace gpurun::cuda::ipc {

struct CacheEntry {
  int peer = -1;
  std::uint64_t buffer_id = 0;
  std::uint64_t range_start = 0;  // the allocation in the owner's address space
  std::uint64_t range_size = 0;
  std::uint64_t mapped = 0;  // where this process mapped it
  std::uint32_t kind = 0;    // HandleKind
  int pins = 0;              // copies reading from it
  bool doomed = false;       // released while pinned: unmapped at the last unpin
};

struct CacheLimits {
  std::size_t max_bytes = 0;
  std::size_t max_entries = 0;
};

struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;      // for the limits
  std::uint64_t invalidations = 0;  // overlap or buffer id change
  std::uint64_t releases = 0;       // owner's notices
};

class ImportCache {
 public:
  // `unmap` undoes the mapping of an entry leaving the cache.
  ImportCache(CacheLimits limits, std::function<void(const CacheEntry&)> unmap)
      : limits_(limits), unmap_(std::move(unmap)) {}
  ~ImportCache() { clear(); }
  ImportCache(const ImportCache&) = delete;
  ImportCache& operator=(const ImportCache&) = delete;

  // The mapping of (peer, buffer id) covering [range_start, +range_size), most recently used
  // from now on; nullptr when absent. An entry of that buffer id with another range, or one of
  // the peer that overlaps the range, is stale: it goes.
  CacheEntry* find(int peer, std::uint64_t buffer_id, std::uint64_t range_start,
                   std::uint64_t range_size);
  // Adds a new mapping (find() missed), then evicts the least recently used unpinned entries
  // beyond the limits (never the new one). The entry stays valid while pinned or cached.
  CacheEntry* insert(const CacheEntry& entry);
  void pin(CacheEntry* entry) { ++entry->pins; }
  // The last unpin lets the entry go if it was released or the cache is over its limits.
  void unpin(CacheEntry* entry);
  // The owner freed (peer, buffer id): its mapping goes (at the last unpin if pinned).
  bool release(int peer, std::uint64_t buffer_id);
  // Every mapping of `peer` goes (the peer left, or its mappings block a new one).
  void release_peer(int peer);
  // Mappings of `peer` but `buffer_id` that overlap [start, start + size) go: the peer freed
  // their memory (live allocations never overlap).
  void drop_overlapping(int peer, std::uint64_t buffer_id, std::uint64_t start, std::uint64_t size);
  void clear();

  std::size_t bytes() const { return bytes_; }
  std::size_t entries() const { return lru_.size(); }
  const CacheStats& stats() const { return stats_; }

 private:
  using Lru = std::list<CacheEntry>;  // most recently used first
  using Key = std::pair<int, std::uint64_t>;
  void drop(Lru::iterator it);
  void evict();

  CacheLimits limits_;
  std::function<void(const CacheEntry&)> unmap_;
  Lru lru_;
  std::map<Key, Lru::iterator> by_id_;
  // (peer, range start) -> entry, to find overlapping ranges of one peer.
  std::map<Key, Lru::iterator> by_range_;
  Lru doomed_;  // released while pinned
  std::size_t bytes_ = 0;
  CacheStats stats_;
};

}  // namespace gpurun::cuda::ipc
