// Packing and unpacking a compiled layout: a walk of the node tree that copies whole blocks.
//
// The walk starts at any byte of the packed stream: each level divides (repeat) or binary
// searches (blocks, list) its way to the first block, so a fragment at offset X costs
// O(depth x log blocks) to find, and no cursor is kept between calls (the walk is stateless and
// may run on one type from several threads). Repeats of one block, the common vector case, copy
// in a tight loop that the compiler specialises for 1, 2, 4, 8 and 16-byte blocks.
#include <algorithm>
#include <cstring>

#include "runtime/core/datatype_layout.h"

namespace gpurun::core::layout {
namespace {

using Kind = Layout::Kind;

std::uintptr_t at(std::uintptr_t origin, std::int64_t offset) {
  return origin + static_cast<std::uintptr_t>(offset);
}

template <bool kPack>
class Mover {
 public:
  Mover(std::byte* packed, std::int64_t length) : packed_(packed), left_(length) {}

  // Copies [skip, ...) of `count` copies of `child`, the k-th at origin + k * stride.
  void repeat(const Layout& child, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
              std::int64_t skip) {
    std::int64_t k = skip / child.size;
    skip %= child.size;
    if (child.kind == Kind::kLeaf) {
      repeat_leaf(child.size, count - k, stride, at(origin, child.disp + k * stride), skip);
      return;
    }
    for (; k < count && left_ > 0; ++k) {
      node(child, at(origin, k * stride), skip);
      skip = 0;
    }
  }

 private:
  void move(std::uintptr_t user, std::int64_t bytes) {
    if constexpr (kPack) {
      std::memcpy(packed_, reinterpret_cast<const void*>(user), static_cast<std::size_t>(bytes));
    } else {
      std::memcpy(reinterpret_cast<void*>(user), packed_, static_cast<std::size_t>(bytes));
    }
    packed_ += bytes;
    left_ -= bytes;
  }

  void node(const Layout& n, std::uintptr_t origin, std::int64_t skip) {
    switch (n.kind) {
      case Kind::kLeaf:
        move(at(origin, n.disp + skip), std::min(n.size - skip, left_));
        return;
      case Kind::kRepeat:
        repeat(*n.child, n.count, n.stride, at(origin, n.disp), skip);
        return;
      case Kind::kBlocks:
        blocks(*n.runs, at(origin, n.disp), skip);
        return;
      case Kind::kList:
        list(*n.items, at(origin, n.disp), skip);
        return;
    }
  }

  void blocks(const std::vector<Run>& runs, std::uintptr_t origin, std::int64_t skip) {
    auto it = runs.begin();
    if (skip > 0) {
      it = std::upper_bound(runs.begin(), runs.end(), skip,
                            [](std::int64_t s, const Run& r) { return s < r.start; }) -
           1;
      skip -= it->start;
    }
    for (; it != runs.end() && left_ > 0; ++it) {
      move(at(origin, it->disp + skip), std::min(it->bytes - skip, left_));
      skip = 0;
    }
  }

  void list(const std::vector<Item>& items, std::uintptr_t origin, std::int64_t skip) {
    auto it = items.begin();
    if (skip > 0) {
      it = std::upper_bound(items.begin(), items.end(), skip,
                            [](std::int64_t s, const Item& i) { return s < i.start; }) -
           1;
      skip -= it->start;
    }
    for (; it != items.end() && left_ > 0; ++it) {
      node(*it->node, origin, skip);
      skip = 0;
    }
  }

  // `count` blocks of `bytes`, the first at `first`, the next ones `stride` apart; the first
  // `skip` bytes of the first block are already done.
  void repeat_leaf(std::int64_t bytes, std::int64_t count, std::int64_t stride,
                   std::uintptr_t first, std::int64_t skip) {
    if (skip > 0) {
      move(first + skip, std::min(bytes - skip, left_));
      first = at(first, stride);
      --count;
    }
    std::int64_t whole = std::min(count, left_ / bytes);
    switch (bytes) {
      case 1:
        first = fixed<1>(first, stride, whole);
        break;
      case 2:
        first = fixed<2>(first, stride, whole);
        break;
      case 4:
        first = fixed<4>(first, stride, whole);
        break;
      case 8:
        first = fixed<8>(first, stride, whole);
        break;
      case 16:
        first = fixed<16>(first, stride, whole);
        break;
      default:
        for (std::int64_t i = 0; i < whole; ++i, first = at(first, stride)) move(first, bytes);
    }
    if (whole < count && left_ > 0) move(first, left_);  // a part of the last block
  }

  template <std::size_t N>
  std::uintptr_t fixed(std::uintptr_t user, std::int64_t stride, std::int64_t n) {
    std::byte* p = packed_;
    for (std::int64_t i = 0; i < n; ++i, p += N, user = at(user, stride)) {
      if constexpr (kPack) {
        std::memcpy(p, reinterpret_cast<const void*>(user), N);
      } else {
        std::memcpy(reinterpret_cast<void*>(user), p, N);
      }
    }
    packed_ = p;
    left_ -= static_cast<std::int64_t>(N) * n;
    return user;
  }

  std::byte* packed_;
  std::int64_t left_;
};

}  // namespace

void pack(const Layout& node, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
          std::int64_t skip, std::byte* packed, std::int64_t length) {
  Mover<true>(packed, length).repeat(node, count, stride, origin, skip);
}

void unpack(const Layout& node, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
            std::int64_t skip, const std::byte* packed, std::int64_t length) {
  // The unpacking walk only reads through the pointer.
  Mover<false>(const_cast<std::byte*>(packed), length).repeat(node, count, stride, origin, skip);
}

}  // namespace gpurun::core::layout
