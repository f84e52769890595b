// A rank's typed data in a collective, seen as the packed byte stream that the shared-memory
// algorithms move: `count` elements of `type` at `base`. Contiguous data is copied with
// memcpy; other layouts go through the datatype engine's pack/unpack of a byte range.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/shm/layout.h"
#include "runtime/base/copy.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::coll::shm {

class Buffer {
 public:
  Buffer() = default;
  Buffer(const void* base, std::int64_t count, const core::Datatype* type)
      : base_(static_cast<std::byte*>(const_cast<void*>(base))), count_(count), type_(type) {
    if (type_ != nullptr) {
      bytes_ = static_cast<std::uint64_t>(count_) * static_cast<std::uint64_t>(type_->size());
      contiguous_ = type_->contiguous();
    }
  }

  std::uint64_t bytes() const { return bytes_; }
  bool contiguous() const { return contiguous_; }
  // Block `index` of an array of blocks of `count` elements (allgather, alltoall...).
  Buffer block(int index) const {
    return Buffer(base_ + static_cast<std::int64_t>(index) * count_ * type_->extent(), count_,
                  type_);
  }
  // Copies bytes [offset, offset + length) of the stream to `dst`.
  void pack(std::uint64_t offset, void* dst, std::size_t length) const {
    if (length == 0) return;
    if (contiguous_) {
      copy_bytes(dst, base_ + type_->true_lb() + offset, length);
    } else {
      type_->pack(base_, count_, offset, dst, length);
    }
  }
  // Copies `length` bytes from `src` into bytes [offset, offset + length) of the stream.
  void unpack(std::uint64_t offset, const void* src, std::size_t length) const {
    if (length == 0) return;
    if (contiguous_) {
      copy_bytes(base_ + type_->true_lb() + offset, src, length);
    } else {
      type_->unpack(base_, count_, offset, src, length);
    }
  }
  // Contiguous data only: where byte `offset` of the stream lies in memory.
  std::byte* packed(std::uint64_t offset) const { return base_ + type_->true_lb() + offset; }

 private:
  std::byte* base_ = nullptr;
  std::int64_t count_ = 0;
  const core::Datatype* type_ = nullptr;
  std::uint64_t bytes_ = 0;
  bool contiguous_ = true;
};

// The blocks of a per-rank array of `size` ranks in elements of `type` from `base`: block r
// has `count` elements at r * count, or (v forms, `counts` given) counts[r] at displs[r].
inline std::vector<Buffer> blocks_of(const void* base, const core::Datatype* type, int size,
                                     std::int64_t count, const std::int64_t* counts,
                                     const std::int64_t* displs) {
  std::vector<Buffer> blocks;
  blocks.reserve(static_cast<std::size_t>(size));
  const auto* at = static_cast<const std::byte*>(base);
  for (int r = 0; r < size; ++r) {
    std::int64_t n = counts != nullptr ? counts[r] : count;
    std::int64_t displ = counts != nullptr ? displs[r] : r * count;
    // An empty block has no address to find (the buffer may be null, its displacement anything).
    blocks.emplace_back(n == 0 ? at : at + displ * type->extent(), n, type);
  }
  return blocks;
}

// The bytes of the largest of `blocks`.
inline std::uint64_t largest(const std::vector<Buffer>& blocks) {
  std::uint64_t most = 0;
  for (const Buffer& b : blocks) most = std::max(most, b.bytes());
  return most;
}

// A block's byte stream in rounds through a slot: chunk k takes a piece of `chunk` bytes, and
// round 0's piece may start with a head line (the v forms' HeadLine: the byte count and the
// sequence number), after which the data starts on the next line, or, for a block that fits
// in the head (and a chunk of at least two lines, so that round 1 has nothing of it), in the
// head itself.
struct HeadedChunks {
  std::uint64_t chunk = 0;
  std::uint64_t head = 0;

  bool in_head(std::uint64_t bytes) const {
    return head != 0 && bytes <= kHeadBytes && chunk >= 2 * kLineBytes;
  }
  // Where chunk k's data starts in its piece, for a block of `bytes` (the writer's count).
  std::uint64_t skip(std::uint64_t k, std::uint64_t bytes) const {
    if (k != 0) return 0;
    return in_head(bytes) ? offsetof(HeadLine, data) : head;
  }
  // Where chunk k starts in the block's stream.
  std::uint64_t offset(std::uint64_t k) const { return k == 0 ? 0 : k * chunk - head; }
  // The length of chunk k of a block of `bytes` (0 past its end).
  std::size_t length(std::uint64_t bytes, std::uint64_t k) const {
    if (bytes <= offset(k)) return 0;
    return static_cast<std::size_t>(std::min(chunk - (k == 0 ? head : 0), bytes - offset(k)));
  }
  // Where chunk k of a block of `bytes` (the writer's count) lies when its rounds alternate
  // between the halves of one slot (gather, allgather): in half k mod 2, after the head.
  std::byte* in_halves(std::byte* slot, std::uint64_t k, std::uint64_t bytes) const {
    return slot + (k % 2) * chunk + skip(k, bytes);
  }
  // The rounds a block of `bytes` takes (with a head, at least one).
  std::uint64_t rounds(std::uint64_t bytes) const { return (head + bytes + chunk - 1) / chunk; }

  // The head of `piece`: its count and sequence number, written after the piece's data.
  static void post_head(std::byte* piece, std::uint64_t seq, std::uint64_t bytes) {
    auto* h = reinterpret_cast<HeadLine*>(piece);
    h->bytes = bytes;
    h->seq.store(seq, std::memory_order_release);
  }
  // Whether the head of `piece` is that of collective `seq`; if so, `bytes` is its count.
  static bool head_ready(const std::byte* piece, std::uint64_t seq, std::uint64_t& bytes) {
    const auto* h = reinterpret_cast<const HeadLine*>(piece);
    if (h->seq.load(std::memory_order_acquire) != seq) return false;
    bytes = h->bytes;
    return true;
  }
};

// What a reader of one block from each member (gatherv's root, allgatherv) learns from their
// heads in round 0: what each member sends, and what this rank takes of it (no more than both
// counts). Until then, and in gather and allgather, both are what the receive counts say.
struct MemberHeads {
  int cursor = 0;                     // the next member whose head to look at
  std::vector<std::uint64_t> theirs;  // what each member sends
  std::vector<std::uint64_t> got;     // what this rank takes of each block
  void reset(const std::vector<Buffer>& blocks) {
    cursor = 0;
    got.clear();
    for (const Buffer& b : blocks) got.push_back(b.bytes());
    theirs = got;
  }
};

// Bytes [offset, offset + length) of `from`'s stream into the same bytes of `to`'s: one copy
// where either side is contiguous, else through a line-sized bounce. For a rank's own block,
// which needs no trip through its slot.
inline void copy_stream(const Buffer& from, const Buffer& to, std::uint64_t offset,
                        std::size_t length) {
  if (to.contiguous()) return from.pack(offset, to.packed(offset), length);
  if (from.contiguous()) return to.unpack(offset, from.packed(offset), length);
  alignas(16) std::byte bounce[1024];
  for (std::size_t done = 0; done < length; done += sizeof(bounce)) {
    std::size_t n = std::min(sizeof(bounce), length - done);
    from.pack(offset + done, bounce, n);
    to.unpack(offset + done, bounce, n);
  }
}

// Half `half` (0 or 1) of the first `length` bytes of `from`'s stream into `to`'s, split at a
// cache line: a single-copy exchange copies a rank's own block in two halves around its reads,
// so that each half covers a wait for the other ranks (their addresses, then their reads).
inline void copy_stream_half(const Buffer& from, const Buffer& to, std::size_t length, int half) {
  std::size_t split = length / 2 & ~std::size_t{63};
  if (half == 0) return copy_stream(from, to, 0, split);
  copy_stream(from, to, split, length - split);
}

// The typed address, for core::Op::apply, of packed contiguous data of `type` at `packed`.
inline void* typed_at(void* packed, const core::Datatype& type) {
  return static_cast<std::byte*>(packed) - type.true_lb();
}
inline const void* typed_at(const void* packed, const core::Datatype& type) {
  return static_cast<const std::byte*>(packed) - type.true_lb();
}

// Holds a reference on a datatype while a collective uses it (predefined types live forever).
class TypeHold {
 public:
  TypeHold() = default;
  explicit TypeHold(const core::Datatype* type) : type_(type) {
    if (type_ != nullptr && !type_->predefined()) type_->retain();
  }
  ~TypeHold() {
    if (type_ != nullptr && !type_->predefined()) type_->release();
  }
  TypeHold(const TypeHold&) = delete;
  TypeHold& operator=(const TypeHold&) = delete;

 private:
  const core::Datatype* type_ = nullptr;
};

// Holds a user op while a collective uses it, so that MPI_Op_free leaves it until then.
class OpHold {
 public:
  explicit OpHold(const core::Op* op) : op_(op) {
    if (op_ != nullptr && !op_->is_predefined()) op_->retain();
  }
  ~OpHold() {
    if (op_ != nullptr && !op_->is_predefined()) op_->release();
  }
  OpHold(const OpHold&) = delete;
  OpHold& operator=(const OpHold&) = delete;

 private:
  const core::Op* op_ = nullptr;
};

}  // namespace gpurun::coll::shm
