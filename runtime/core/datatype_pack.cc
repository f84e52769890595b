// Packing and unpacking a compiled layout: a walk of the node tree that copies whole blocks.
//
// The walk starts at any byte of the packed stream: each level divides (repeat) or searches
// (blocks, list) its way to the first block, so a fragment at any offset costs at most
// O(depth x log blocks) to find. Nothing is stored in the type, so the walk may run on one type
// from several threads. Consecutive fragments of one message (the pml's pipeline) find their
// place in O(1) through a per-thread hint of where the last walk stopped. Repeats of one
// block, the common vector case, copy in a tight loop specialised for the common block sizes.
#include <algorithm>
#include <cstring>

#include "runtime/core/datatype_layout.h"

namespace gpurun::core::layout {
namespace {

using Kind = Layout::Kind;

std::uintptr_t at(std::uintptr_t origin, std::int64_t offset) {
  return origin + static_cast<std::uintptr_t>(offset);
}

// Where the last walk on this thread stopped in a list of runs or items. The next fragment of
// the same message usually starts there, and finding it by binary search would touch
// log2(blocks) cache lines of a list that may be megabytes long. The hint is checked against
// the list before use, so a stale one (another message, a freed type) costs a search, never a
// wrong copy.
struct SeekHint {
  const void* list = nullptr;
  std::size_t index = 0;
};
thread_local SeekHint t_hint;

// The entry of `v` (runs or items, by increasing start) that holds packed byte `skip`.
template <class Entry>
std::size_t seek(const std::vector<Entry>& v, std::int64_t skip) {
  auto holds = [&](std::size_t i) {
    return i < v.size() && v[i].start <= skip && (i + 1 == v.size() || skip < v[i + 1].start);
  };
  if (t_hint.list == &v) {
    if (holds(t_hint.index)) return t_hint.index;
    if (holds(t_hint.index + 1)) return t_hint.index + 1;
  }
  auto after = std::upper_bound(v.begin(), v.end(), skip,
                                [](std::int64_t s, const Entry& e) { return s < e.start; });
  return static_cast<std::size_t>(after - v.begin()) - 1;
}

// What a walk does with each block: copy it into the packed stream, out of it, or hand it to
// a BlockSink (visit_blocks).
enum class Mode : std::uint8_t { kPack, kUnpack, kVisit };

template <Mode kMode>
class Mover {
 public:
  static constexpr bool kPack = kMode == Mode::kPack;

  Mover(std::byte* packed, std::int64_t length) : packed_(packed), left_(length) {}
  Mover(const BlockSink& sink, std::int64_t length) : left_(length), sink_(&sink) {}

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
    if constexpr (kMode == Mode::kVisit) {
      sink_->fn(sink_->context, user, bytes);
    } else {
      // Blocks of a basic type's size are common (struct members): copy them without a call.
      switch (bytes) {
        case 4:
          copy<4>(user);
          break;
        case 8:
          copy<8>(user);
          break;
        case 16:
          copy<16>(user);
          break;
        default:
          copy_any(user, bytes);
      }
      packed_ += bytes;
    }
    left_ -= bytes;
  }
  template <std::size_t N>
  void copy(std::uintptr_t user) {
    if constexpr (kPack) {
      std::memcpy(packed_, reinterpret_cast<const void*>(user), N);
    } else {
      std::memcpy(reinterpret_cast<void*>(user), packed_, N);
    }
  }
  void copy_any(std::uintptr_t user, std::int64_t bytes) {
    if constexpr (kPack) {
      std::memcpy(packed_, reinterpret_cast<const void*>(user), static_cast<std::size_t>(bytes));
    } else {
      std::memcpy(reinterpret_cast<void*>(user), packed_, static_cast<std::size_t>(bytes));
    }
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
      case Kind::kIndexed:
        segments(n, at(origin, n.disp), skip);
        return;
      case Kind::kList:
        list(*n.items, at(origin, n.disp), skip);
        return;
    }
  }

  void blocks(const std::vector<Run>& runs, std::uintptr_t origin, std::int64_t skip) {
    std::size_t i = skip > 0 ? seek(runs, skip) : 0;
    skip -= runs[i].start;
    for (; i < runs.size() && left_ > 0; ++i) {
      move(at(origin, runs[i].disp + skip), std::min(runs[i].bytes - skip, left_));
      skip = 0;
    }
    t_hint = {&runs, i - 1};
  }

  void segments(const Layout& n, std::uintptr_t origin, std::int64_t skip) {
    const std::vector<Segment>& segs = *n.segments;
    std::size_t i = skip > 0 ? seek(segs, skip) : 0;
    skip -= segs[i].start;
    for (; i < segs.size() && left_ > 0; ++i) {
      repeat(*n.child, segs[i].count, n.stride, at(origin, segs[i].disp), skip);
      skip = 0;
    }
    t_hint = {&segs, i - 1};
  }

  void list(const std::vector<Item>& items, std::uintptr_t origin, std::int64_t skip) {
    std::size_t i = skip > 0 ? seek(items, skip) : 0;
    skip -= items[i].start;
    for (; i < items.size() && left_ > 0; ++i) {
      node(*items[i].node, origin, skip);
      skip = 0;
    }
    t_hint = {&items, i - 1};
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
    if (stride == bytes && whole > 1) {
      // Adjacent blocks (count elements of a basic type): one block. A put of 64 KiB of
      // MPI_CHAR visited 65536 one-byte blocks, each its own copy.
      move(first, whole * bytes);
      first = at(first, whole * stride);
    } else if constexpr (kMode == Mode::kVisit) {
      for (std::int64_t i = 0; i < whole; ++i, first = at(first, stride)) move(first, bytes);
    } else {
      first = copy_blocks(first, stride, whole, bytes);
    }
    if (whole < count && left_ > 0) move(first, left_);  // a part of the last block
  }

  // `n` whole blocks of `bytes`, the first at `first`, `stride` apart; returns where the next
  // would start.
  std::uintptr_t copy_blocks(std::uintptr_t first, std::int64_t stride, std::int64_t n,
                             std::int64_t bytes) {
    switch (bytes) {
      case 1:
        return fixed<1>(first, stride, n);
      case 2:
        return fixed<2>(first, stride, n);
      case 4:
        return fixed<4>(first, stride, n);
      case 8:
        return fixed<8>(first, stride, n);
      case 16:
        return fixed<16>(first, stride, n);
      case 32:
        return fixed<32>(first, stride, n);
      case 64:
        return fixed<64>(first, stride, n);
      case 128:
        return fixed<128>(first, stride, n);
      default:
        return sized(first, stride, n, bytes);
    }
  }

  // `n` blocks of `bytes` (a size the compiler does not know).
  std::uintptr_t sized(std::uintptr_t user, std::int64_t stride, std::int64_t n,
                       std::int64_t bytes) {
    std::byte* p = packed_;
    auto len = static_cast<std::size_t>(bytes);
    for (std::int64_t i = 0; i < n; ++i, p += len, user = at(user, stride)) {
      if constexpr (kPack) {
        std::memcpy(p, reinterpret_cast<const void*>(user), len);
      } else {
        std::memcpy(reinterpret_cast<void*>(user), p, len);
      }
    }
    packed_ = p;
    left_ -= bytes * n;
    return user;
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

  std::byte* packed_ = nullptr;
  std::int64_t left_;
  const BlockSink* sink_ = nullptr;
};

}  // namespace

void pack(const Layout& node, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
          std::int64_t skip, std::byte* packed, std::int64_t length) {
  Mover<Mode::kPack>(packed, length).repeat(node, count, stride, origin, skip);
}

void unpack(const Layout& node, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
            std::int64_t skip, const std::byte* packed, std::int64_t length) {
  // The unpacking walk only reads through the pointer.
  Mover<Mode::kUnpack>(const_cast<std::byte*>(packed), length)
      .repeat(node, count, stride, origin, skip);
}

namespace {

// Joins blocks that follow each other in memory before handing them on.
struct Joiner {
  const BlockSink& out;
  std::uintptr_t at = 0;
  std::int64_t bytes = 0;

  static void add(void* context, std::uintptr_t address, std::int64_t n) {
    auto* j = static_cast<Joiner*>(context);
    if (n == 0) return;
    if (j->bytes > 0 && address == j->at + static_cast<std::uintptr_t>(j->bytes)) {
      j->bytes += n;
      return;
    }
    j->flush();
    j->at = address;
    j->bytes = n;
  }
  void flush() {
    if (bytes > 0) out.fn(out.context, at, bytes);
    bytes = 0;
  }
};

}  // namespace

void visit_blocks(const Layout& node, std::int64_t count, std::int64_t stride,
                  std::uintptr_t origin, std::int64_t skip, std::int64_t length,
                  const BlockSink& sink) {
  Joiner joiner{sink};
  BlockSink joined{&joiner, &Joiner::add};
  Mover<Mode::kVisit>(joined, length).repeat(node, count, stride, origin, skip);
  joiner.flush();
}

}  // namespace gpurun::core::layout
