// HostRegions: the fast path of pointer classification. A small direct-mapped table of 2 MiB
// address regions that held a pointer the CUDA driver did not know, so that the next buffer in
// the same region is classified as host memory without a driver call (cuPointerGetAttributes
// takes the driver's locks and costs as much as a whole small message on shared memory).
//
// Why a region is safe to remember: CUDA reserves its device address space (cudaMalloc,
// managed memory, VMM mappings) in whole 2 MiB-aligned chunks that the host cannot read, so a
// 2 MiB region holding a readable byte that CUDA does not know holds no device memory (the
// caller checks that the byte is readable: an unknown address inside a reservation, the free
// part of a chunk of small allocations, is not host memory). Pinned and registered host memory is
// host memory too, but it is not entered here (it may share its region with CUDA mappings).
// The one case this misses: host memory unmapped and its addresses then reused for a CUDA
// mapping while the region is remembered. Callers drop regions that a device allocation is
// found to overlap (forget()); GPURUN_CUDA_HOST_CACHE=0 turns the table off.
//
// Thread-safety: lock-free; every member may be called concurrently. A lookup is one hash and
// one relaxed atomic load.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gpurun::cuda {

class HostRegions {
 public:
  static constexpr int kRegionShift = 21;  // 2 MiB

  // A table of `entries` slots (rounded up to a power of two); 0 disables it.
  explicit HostRegions(int entries) {
    if (entries <= 0) return;
    std::size_t n = 1;
    while (n < static_cast<std::size_t>(entries)) n <<= 1;
    slots_ = std::make_unique<std::atomic<std::uintptr_t>[]>(n);
    for (std::size_t i = 0; i < n; ++i) slots_[i].store(0, std::memory_order_relaxed);
    mask_ = n - 1;
  }

  bool enabled() const { return slots_ != nullptr; }

  bool contains(const void* ptr) const {
    if (!slots_) return false;
    std::uintptr_t tag = tag_of(reinterpret_cast<std::uintptr_t>(ptr));
    return slots_[slot_of(tag)].load(std::memory_order_relaxed) == tag;
  }

  void insert(const void* ptr) {
    if (!slots_) return;
    std::uintptr_t tag = tag_of(reinterpret_cast<std::uintptr_t>(ptr));
    slots_[slot_of(tag)].store(tag, std::memory_order_relaxed);
  }

  // Forgets every region that overlaps [start, start + size).
  void forget(std::uintptr_t start, std::size_t size) {
    if (!slots_ || size == 0) return;
    std::uintptr_t first = start >> kRegionShift;
    std::uintptr_t last = (start + size - 1) >> kRegionShift;
    if (last - first > mask_) {  // larger than the table: cheaper to clear it all
      clear();
      return;
    }
    for (std::uintptr_t region = first; region <= last; ++region) {
      std::uintptr_t tag = region + 1;
      std::uintptr_t expected = tag;
      slots_[slot_of(tag)].compare_exchange_strong(expected, 0, std::memory_order_relaxed);
    }
  }

  void clear() {
    for (std::size_t i = 0; slots_ && i <= mask_; ++i)
      slots_[i].store(0, std::memory_order_relaxed);
  }

 private:
  // The region number plus one, so that 0 marks an empty slot.
  static std::uintptr_t tag_of(std::uintptr_t address) { return (address >> kRegionShift) + 1; }
  // Fibonacci hashing: neighbouring regions (a stack, a heap) land in different slots.
  std::size_t slot_of(std::uintptr_t tag) const {
    return static_cast<std::size_t>((tag * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
  }

  std::unique_ptr<std::atomic<std::uintptr_t>[]> slots_;
  std::size_t mask_ = 0;
};

}  // namespace gpurun::cuda
