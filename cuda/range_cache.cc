#include "cuda/range_cache.h"

#include <iterator>

namespace gpurun::cuda {

std::optional<Allocation> RangeCache::find(std::uintptr_t address, std::uint64_t buffer_id) {
  std::vector<Allocation> forgotten;
  std::optional<Allocation> found;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_base_.upper_bound(address);
    if (it != by_base_.begin()) {
      --it;
      Entry& entry = it->second;
      if (entry.allocation.contains(address)) {
        if (entry.allocation.buffer_id == buffer_id) {
          uses_.splice(uses_.begin(), uses_, entry.use);
          found = entry.allocation;
        } else {
          erase(it, forgotten);
        }
      }
    }
  }
  notify(forgotten);
  return found;
}

void RangeCache::insert(const Allocation& allocation) {
  std::vector<Allocation> forgotten;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    take_overlapping(allocation.base, allocation.size, forgotten);
    uses_.push_front(allocation.base);
    by_base_.emplace(allocation.base, Entry{allocation, uses_.begin()});
    while (by_base_.size() > capacity_) erase(by_base_.find(uses_.back()), forgotten);
  }
  notify(forgotten);
}

void RangeCache::forget(std::uintptr_t base, std::size_t size) {
  std::vector<Allocation> forgotten;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    take_overlapping(base, size, forgotten);
  }
  notify(forgotten);
}

void RangeCache::subscribe(Listener listener, void* context) {
  std::lock_guard<std::mutex> lock(mutex_);
  listeners_.emplace_back(listener, context);
}

std::size_t RangeCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_base_.size();
}

void RangeCache::take_overlapping(std::uintptr_t base, std::size_t size,
                                  std::vector<Allocation>& out) {
  std::size_t span = size == 0 ? 1 : size;
  auto it = by_base_.upper_bound(base);
  // The entry before `base` overlaps when it extends past it.
  if (it != by_base_.begin()) {
    auto before = std::prev(it);
    if (before->second.allocation.contains(base)) erase(before, out);
  }
  while (it != by_base_.end() && it->first - base < span) {
    auto next = std::next(it);
    erase(it, out);
    it = next;
  }
}

void RangeCache::erase(Map::iterator it, std::vector<Allocation>& out) {
  out.push_back(it->second.allocation);
  uses_.erase(it->second.use);
  by_base_.erase(it);
}

void RangeCache::notify(const std::vector<Allocation>& forgotten) {
  if (forgotten.empty()) return;
  std::vector<std::pair<Listener, void*>> listeners;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    listeners = listeners_;
  }
  for (const Allocation& a : forgotten)
    for (const auto& [fn, context] : listeners) fn(context, a);
}

}  // namespace gpurun::cuda
