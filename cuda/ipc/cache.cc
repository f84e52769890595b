#include "cuda/ipc/cache.h"

#include <iterator>

namespace gpurun::cuda::ipc {

CacheEntry* ImportCache::find(int peer, std::uint64_t buffer_id, std::uint64_t range_start,
                              std::uint64_t range_size) {
  auto it = by_id_.find(Key{peer, buffer_id});
  if (it != by_id_.end()) {
    Lru::iterator entry = it->second;
    if (entry->range_start == range_start && entry->range_size == range_size) {
      lru_.splice(lru_.begin(), lru_, entry);
      ++stats_.hits;
      return &*entry;
    }
    ++stats_.invalidations;
    drop(entry);
  }
  ++stats_.misses;
  return nullptr;
}

CacheEntry* ImportCache::insert(const CacheEntry& entry) {
  auto old = by_id_.find(Key{entry.peer, entry.buffer_id});
  if (old != by_id_.end()) {
    ++stats_.invalidations;
    drop(old->second);
  }
  drop_overlapping(entry.peer, entry.buffer_id, entry.range_start, entry.range_size);
  lru_.push_front(entry);
  Lru::iterator it = lru_.begin();
  it->pins = 0;
  it->doomed = false;
  by_id_[Key{entry.peer, entry.buffer_id}] = it;
  by_range_[Key{entry.peer, entry.range_start}] = it;
  bytes_ += entry.range_size;
  evict();
  return &*it;
}

// Cached ranges of one peer never overlap each other (each insert drops those it overlaps), so
// only the nearest range below `start` can reach into the new one.
void ImportCache::drop_overlapping(int peer, std::uint64_t buffer_id, std::uint64_t start,
                                   std::uint64_t size) {
  std::uint64_t end = start + size;
  auto it = by_range_.lower_bound(Key{peer, start});
  if (it != by_range_.begin()) {
    auto before = std::prev(it);
    const CacheEntry& e = *before->second;
    if (before->first.first == peer && e.range_start + e.range_size > start) {
      ++stats_.invalidations;
      drop(before->second);
    }
  }
  it = by_range_.lower_bound(Key{peer, start});
  while (it != by_range_.end() && it->first.first == peer && it->first.second < end) {
    Lru::iterator victim = it->second;
    ++it;
    if (victim->buffer_id == buffer_id) continue;
    ++stats_.invalidations;
    drop(victim);
  }
}

void ImportCache::drop(Lru::iterator it) {
  by_id_.erase(Key{it->peer, it->buffer_id});
  auto range = by_range_.find(Key{it->peer, it->range_start});
  if (range != by_range_.end() && range->second == it) by_range_.erase(range);
  bytes_ -= it->range_size;
  if (it->pins > 0) {
    it->doomed = true;
    doomed_.splice(doomed_.end(), lru_, it);
    return;
  }
  unmap_(*it);
  lru_.erase(it);
}

void ImportCache::evict() {
  while ((bytes_ > limits_.max_bytes || lru_.size() > limits_.max_entries) && lru_.size() > 1) {
    auto victim = lru_.end();
    for (auto it = std::prev(lru_.end()); it != lru_.begin(); --it) {
      if (it->pins == 0) {
        victim = it;
        break;
      }
    }
    if (victim == lru_.end()) return;  // all in use: the limits give way until copies end
    ++stats_.evictions;
    drop(victim);
  }
}

void ImportCache::unpin(CacheEntry* entry) {
  if (--entry->pins > 0) return;
  if (!entry->doomed) {
    evict();  // the limits may have given way while it was in use
    return;
  }
  for (auto it = doomed_.begin(); it != doomed_.end(); ++it) {
    if (&*it == entry) {
      unmap_(*it);
      doomed_.erase(it);
      return;
    }
  }
}

bool ImportCache::release(int peer, std::uint64_t buffer_id) {
  auto it = by_id_.find(Key{peer, buffer_id});
  if (it == by_id_.end()) return false;
  ++stats_.releases;
  drop(it->second);
  return true;
}

void ImportCache::release_peer(int peer) {
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto next = std::next(it);
    if (it->peer == peer) drop(it);
    it = next;
  }
}

void ImportCache::clear() {
  for (auto& e : doomed_) unmap_(e);
  doomed_.clear();
  for (auto& e : lru_) unmap_(e);
  lru_.clear();
  by_id_.clear();
  by_range_.clear();
  bytes_ = 0;
}

}  // namespace gpurun::cuda::ipc
