// Test data for the shared-memory collective tests: arrays of `count` elements of a test type
// holding known integers, with the holes of non-contiguous types kept at a sentinel so that a
// test sees any write outside the data.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/datatype.h"

namespace gpurun::coll::shm::testing {

inline constexpr std::int32_t kHole = -7;

// The integer at position i of block `block` of rank `rank`'s data.
inline std::int32_t value(int rank, int block, std::int64_t i) {
  return static_cast<std::int32_t>(rank * 1000003 + block * 7919 + i * 3 + 1);
}

class IntArray {
 public:
  // `blocks` blocks of `count` elements of `type` (int32, or the strided type of the harness:
  // 2 ints at int offsets 0 and 2 of each 16-byte element).
  IntArray(const core::Datatype& type, std::int64_t count, int blocks = 1)
      : strided_(!type.contiguous()),
        ints_per_element_(strided_ ? 2 : 1),
        ints_((strided_ ? 4 : 1) * count * blocks + 1, kHole),
        count_(count) {}

  void* data() { return ints_.data(); }
  // Logical integer i of block b (the data, holes skipped).
  std::int32_t& at(int block, std::int64_t i) {
    std::int64_t element = block * count_ + i / ints_per_element_;
    std::int64_t k = i % ints_per_element_;
    return ints_[strided_ ? element * 4 + k * 2 : element];
  }
  std::int64_t ints() const { return count_ * ints_per_element_; }  // per block
  void fill(int rank, int blocks = 1) {
    for (int b = 0; b < blocks; ++b)
      for (std::int64_t i = 0; i < ints(); ++i) at(b, i) = value(rank, b, i);
  }
  // Whether block b holds value(rank, block, i) everywhere.
  bool holds(int b, int rank, int block) {
    for (std::int64_t i = 0; i < ints(); ++i)
      if (at(b, i) != value(rank, block, i)) return false;
    return true;
  }
  bool holes_intact() const {
    if (ints_.back() != kHole) return false;
    if (!strided_) return true;
    for (std::size_t i = 0; i + 1 < ints_.size(); i += 2)
      if (ints_[i + 1] != kHole) return false;
    return true;
  }

 private:
  bool strided_;
  int ints_per_element_;
  std::vector<std::int32_t> ints_;
  std::int64_t count_;
};

}  // namespace gpurun::coll::shm::testing
