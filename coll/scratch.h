// Scratch memory for schedules: blocks of power-of-two sizes, 64-byte aligned, kept in a
// process-wide pool so that a collective called again (or a persistent one) does not go back
// to the allocator. The pool keeps a few blocks of each size up to a bound and frees the rest.
//
// Threading: not thread-safe; the API layer serialises callers.
#pragma once

#include <cstddef>
#include <memory>

namespace gpurun::coll {

class ScratchBlock {
 public:
  ScratchBlock() = default;
  ScratchBlock(ScratchBlock&& other) noexcept : data_(other.data_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.capacity_ = 0;
  }
  ScratchBlock& operator=(ScratchBlock&& other) noexcept;
  ScratchBlock(const ScratchBlock&) = delete;
  ScratchBlock& operator=(const ScratchBlock&) = delete;
  ~ScratchBlock();  // gives the block back to the pool

  std::byte* data() const { return data_; }
  std::size_t capacity() const { return capacity_; }

 private:
  friend class ScratchPool;
  ScratchBlock(std::byte* data, std::size_t capacity) : data_(data), capacity_(capacity) {}
  std::byte* data_ = nullptr;
  std::size_t capacity_ = 0;
};

class ScratchPool {
 public:
  // A block of at least `bytes` (a valid, empty block for 0).
  static ScratchBlock take(std::size_t bytes);
  // Blocks held by the pool now (for tests).
  static std::size_t held();

 private:
  friend class ScratchBlock;
  static void give(std::byte* data, std::size_t capacity);
};

}  // namespace gpurun::coll
