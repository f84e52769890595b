// Bcast through the root's slot in shared memory.
//
// Idea: up to 56 bytes travel in the root's flag line with the flag itself: the others see
// flag and data in one cache-line hop. Larger messages are pipelined: the root packs chunk k
// into quarter k mod 4 of its slot and posts step k + 1; every other rank copies each chunk
// out as soon as it is posted and posts the same step, which tells the root the quarter is
// free again. The root runs up to four chunks ahead; all readers copy at once.
// Single copy (the "cma" algorithm): the root publishes where its data lies (coll/shm/cma.h;
// a packed copy for a non-contiguous type) and returns once every other rank has read it
// from there by CMA and posted that it is done. With two ranks and a message of at least
// kSplitMin both cores copy: the reader publishes where its buffer lies (when contiguous) and
// reads the first half while the root writes the second into it (process_vm_writev); the
// reader reads that half too where the root could not write it.
// Requirements: the members share memory (one host); host buffers; any datatype.
// Cost: n bytes, chunk c: (n / c + 1) hops + the root's copy of n + one chunk's copy-out
// (the copies overlap); memory traffic n in, n out per rank, all within the cache. Single
// copy: 2 hops at the root, 1 elsewhere, and one read of n by CMA per other rank.
#include <algorithm>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"
#include "coll/shm/cma.h"
#include "coll/shm/params.h"
#include "runtime/transport/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

// Two ranks split a message from this size on: a second copier pays for its system call and
// the flag it posts (osu_bcast -np 2, medians of 7 interleaved runs: 32K 1.56 us split vs
// binomial 1.73, 64K 2.21 vs 3.00; the reader alone took 1.84 and 3.00).
constexpr std::uint64_t kSplitMin = 32 << 10;
// The root's step once it has written the reader's second half, or found it could not.
constexpr std::uint64_t kWroteStep = kReadStep + 1;
constexpr std::uint64_t kUnwrittenStep = kReadStep + 2;

// The pipeline chunk for a message of `bytes`: the knob, or a quarter of the message (enough
// chunks to overlap the root's copy-in with the copies out) between 8K and a quarter slot.
std::uint64_t chunk_for(std::uint64_t bytes, std::size_t quarter) {
  std::uint64_t chunk;
  if (auto knob = params::chunk_size().get()) {
    chunk = knob->bytes;
  } else {
    chunk = std::max<std::uint64_t>(bytes / 4, 8192);
  }
  chunk = std::clamp<std::uint64_t>(chunk, kLineBytes, quarter);
  return chunk / kLineBytes * kLineBytes;
}

class Bcast final : public ShmOp {
 public:
  Bcast(Arena& arena, const Args& args, bool cma)
      : ShmOp(arena, args),
        cma_(cma),
        data_(args.recvbuf != nullptr ? args.recvbuf : args.sendbuf, args.count, args.type),
        hold_(args.type),
        root_(args.root) {}

 private:
  void plan() override {
    chunk_ = chunk_for(data_.bytes(), arena_.slot_bytes() / Arena::kParts);
    chunks_ = (data_.bytes() + chunk_ - 1) / chunk_;
    direct_ = cma_ && arena_.cma() && arena_.size() > 1;
    split_ = direct_ && arena_.size() == 2 && data_.bytes() >= kSplitMin;
    half_ = transport::shm::cma_half(data_.bytes());
  }
  void reset() override {
    next_ = 0;
    posted_ = false;
    wrote_ = false;
    read_ = false;
  }
  bool run() override {
    if (data_.bytes() == 0) return true;
    if (data_.bytes() <= kInlineBytes) return arena_.rank() == root_ ? put_line() : get_line();
    if (direct_) return arena_.rank() == root_ ? offer() : take();
    return arena_.rank() == root_ ? put_chunks() : get_chunks();
  }
  bool put_line() {
    if (!arena_.line_writable(seq_)) return false;
    data_.pack(0, arena_.line(root_, seq_).data, data_.bytes());
    post_line();
    arena_.line_written(seq_, Arena::kAllReaders);
    return true;
  }
  bool get_line() {
    if (!arena_.line_ready(root_, seq_)) return false;
    data_.unpack(0, arena_.line(root_, seq_).data, data_.bytes());
    return true;
  }
  bool offer() {
    if (!posted_) {
      if (!arena_.line_writable(seq_)) return false;
      source_ = source_of({data_}, false, copy_);
      put_source(arena_.line(root_, seq_), seq_, source_);
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      posted_ = true;
    }
    if (split_ && !wrote_) {
      // A reader whose count chose no split (an erroneous call) passes without a line.
      int reader = 1 - root_;
      Source to;
      if (arena_.line_ready(reader, seq_)) {
        if (!get_source(arena_.line(reader, seq_), seq_, to)) to = Source{};
      } else if (!arena_.reached(reader, step_value(seq_, kEndStep))) {
        return false;
      }
      write_half(to);
      wrote_ = true;
    }
    return arena_.all_reached(step_value(seq_, kReadStep));
  }
  // The second half into the reader's buffer, where it published one of this message's size
  // (its count is not checked here: a reader whose count differs reads nothing and fails).
  void write_half(const Source& to) {
    bool wrote = false;
    if (to.base != 0 && to.stride == data_.bytes()) {
      const auto* from = reinterpret_cast<const std::byte*>(source_.base);
      wrote = transport::shm::cma_write(arena_.cma_pid(1 - root_), from + half_, to.base + half_,
                                        data_.bytes() - half_)
                  .ok();  // else the reader reads it itself
    }
    arena_.post(step_value(seq_, wrote ? kWroteStep : kUnwrittenStep));
  }
  // A reader of a split message publishes where its buffer lies, and its byte count.
  bool take() {
    bool writable = split_ && data_.contiguous();
    if (split_ && !posted_) {
      if (!arena_.line_writable(seq_)) return false;
      Source mine{writable ? reinterpret_cast<std::uint64_t>(data_.packed(0)) : 0, data_.bytes()};
      put_source(arena_.line(arena_.rank(), seq_), seq_, mine);
      post_line();
      arena_.line_written(seq_, root_);
      posted_ = true;
    }
    if (!check_counts()) return false;
    if (mismatched()) return true;
    if (!arena_.line_ready(root_, seq_)) return false;
    Source root;
    if (!get_source(arena_.line(root_, seq_), seq_, root)) {
      fail(no_source("bcast", root_));
      return true;
    }
    std::uint64_t from = root.base;
    if (!read_) {
      read(from, 0, writable ? half_ : data_.bytes());
      read_ = true;
    }
    if (writable) {
      if (!arena_.reached(root_, step_value(seq_, kWroteStep))) return false;
      if (arena_.reached(root_, step_value(seq_, kUnwrittenStep)))
        read(from, half_, data_.bytes() - half_);
    }
    arena_.post(step_value(seq_, kReadStep));  // the root's buffer is the caller's again
    return true;
  }
  // Bytes [offset, offset + length) of the root's data at `from` into this rank's buffer.
  void read(std::uint64_t from, std::uint64_t offset, std::uint64_t length) {
    Status st = offset == 0 && length == data_.bytes()
                    ? read_block(arena_.cma_pid(root_), from, data_, length, copy_)
                    : transport::shm::cma_read(arena_.cma_pid(root_), data_.packed(offset),
                                               from + offset, length);
    if (!st.ok()) fail(std::move(st.prepend("bcast: reading the root's data")));
  }
  std::byte* chunk_buffer(std::uint64_t k) const {
    return arena_.slot(root_) + (k % Arena::kParts) * (arena_.slot_bytes() / Arena::kParts);
  }
  std::size_t chunk_length(std::uint64_t k) const {
    return static_cast<std::size_t>(std::min(chunk_, data_.bytes() - k * chunk_));
  }
  bool put_chunks() {
    for (; next_ < chunks_; ++next_) {
      int part = static_cast<int>(next_ % Arena::kParts);
      if (!arena_.parts_writable(part, 1)) return false;
      data_.pack(next_ * chunk_, chunk_buffer(next_), chunk_length(next_));
      std::uint64_t step = step_value(seq_, next_ + 1);
      arena_.post(step);
      arena_.parts_written(part, 1, step, Arena::kAllReaders);
    }
    return true;
  }
  bool get_chunks() {
    for (; next_ < chunks_; ++next_) {
      std::uint64_t step = step_value(seq_, next_ + 1);
      if (!arena_.reached(root_, step)) return false;
      data_.unpack(next_ * chunk_, chunk_buffer(next_), chunk_length(next_));
      arena_.post(step);
    }
    return true;
  }

  bool cma_;             // single copy by CMA asked for (the "cma" algorithm)
  bool direct_ = false;  // ... and possible: every member reaches every other
  Buffer data_;
  TypeHold hold_;
  int root_;
  std::uint64_t chunk_ = 0;
  std::uint64_t chunks_ = 0;
  std::uint64_t next_ = 0;
  bool posted_ = false;          // CMA: this rank has published its line
  std::vector<std::byte> copy_;  // CMA: the root's data packed, or a non-root's on its way
  Source source_;                // CMA, at the root: what it published
  bool split_ = false;           // CMA: two ranks copy a half each
  std::uint64_t half_ = 0;       // ... the first half's length
  bool wrote_ = false;           // ... the root has written (or given up on) the second
  bool read_ = false;            // ... the reader has read the first
};

}  // namespace

std::unique_ptr<ShmOp> make_bcast(Arena& arena, const Args& args) {
  return std::make_unique<Bcast>(arena, args, false);
}

std::unique_ptr<ShmOp> make_bcast_cma(Arena& arena, const Args& args) {
  return std::make_unique<Bcast>(arena, args, true);
}

}  // namespace gpurun::coll::shm
