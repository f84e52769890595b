#include "coll/scratch.h"

#include <algorithm>
#include <array>
#include <bit>
#include <new>
#include <vector>

namespace gpurun::coll {
namespace {

constexpr std::size_t kAlign = 64;
constexpr int kMinShift = 8;   // 256 bytes
constexpr int kMaxShift = 26;  // blocks above 64 MiB go straight back to the allocator
constexpr std::size_t kKeepPerClass = 8;

struct Pool {
  std::array<std::vector<std::byte*>, kMaxShift + 1> free;
};

// Never destroyed: blocks held by other static objects may come back during exit.
Pool& pool() {
  static auto* p = new Pool;
  return *p;
}

int shift_of(std::size_t capacity) { return std::countr_zero(capacity); }

}  // namespace

ScratchBlock& ScratchBlock::operator=(ScratchBlock&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ScratchPool::give(data_, capacity_);
    data_ = other.data_;
    capacity_ = other.capacity_;
    other.data_ = nullptr;
    other.capacity_ = 0;
  }
  return *this;
}

ScratchBlock::~ScratchBlock() {
  if (data_ != nullptr) ScratchPool::give(data_, capacity_);
}

ScratchBlock ScratchPool::take(std::size_t bytes) {
  std::size_t capacity = std::bit_ceil(std::max<std::size_t>(bytes, std::size_t{1} << kMinShift));
  int shift = shift_of(capacity);
  if (shift <= kMaxShift && !pool().free[shift].empty()) {
    std::byte* p = pool().free[shift].back();
    pool().free[shift].pop_back();
    return ScratchBlock(p, capacity);
  }
  auto* p = static_cast<std::byte*>(::operator new[](capacity, std::align_val_t{kAlign}));
  return ScratchBlock(p, capacity);
}

void ScratchPool::give(std::byte* data, std::size_t capacity) {
  int shift = shift_of(capacity);
  if (shift <= kMaxShift && pool().free[shift].size() < kKeepPerClass) {
    pool().free[shift].push_back(data);
    return;
  }
  ::operator delete[](data, std::align_val_t{kAlign});
}

std::size_t ScratchPool::held() {
  std::size_t n = 0;
  for (const auto& list : pool().free) n += list.size();
  return n;
}

}  // namespace gpurun::coll
