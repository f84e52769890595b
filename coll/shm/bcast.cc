// Bcast through the root's slot in shared memory.
//
// Idea: up to 56 bytes travel in the root's flag line with the flag itself: the others see
// flag and data in one cache-line hop. Larger messages are pipelined: the root packs chunk k
// into quarter k mod 4 of its slot and posts step k + 1; every other rank copies each chunk
// out as soon as it is posted and posts the same step, which tells the root the quarter is
// free again. The root runs up to four chunks ahead; all readers copy at once.
// Single copy (the "cma" algorithm): the root publishes where its data lies (coll/shm/cma.h;
// a packed copy for a non-contiguous type) and returns once every other rank has read it
// from there by CMA and posted that it is done.
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

namespace gpurun::coll::shm {
namespace {

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
  }
  void reset() override {
    next_ = 0;
    posted_ = false;
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
      put_source(arena_.line(root_, seq_), source_of({data_}, false, copy_));
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      posted_ = true;
    }
    return arena_.all_reached(step_value(seq_, kReadStep));
  }
  bool take() {
    if (!counts_checked()) return false;
    if (mismatched()) return true;
    if (!arena_.line_ready(root_, seq_)) return false;
    Status st = read_block(arena_.cma_pid(root_), get_source(arena_.line(root_, seq_)).base, data_,
                           data_.bytes(), copy_);
    if (!st.ok()) fail(std::move(st.prepend("bcast: reading the root's data")));
    arena_.post(step_value(seq_, kReadStep));
    return true;
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
  bool posted_ = false;          // CMA: the root has published its data
  std::vector<std::byte> copy_;  // CMA: the root's data packed, or a non-root's on its way
};

}  // namespace

std::unique_ptr<ShmOp> make_bcast(Arena& arena, const Args& args) {
  return std::make_unique<Bcast>(arena, args, false);
}

std::unique_ptr<ShmOp> make_bcast_cma(Arena& arena, const Args& args) {
  return std::make_unique<Bcast>(arena, args, true);
}

}  // namespace gpurun::coll::shm
