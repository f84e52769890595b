// Scatter through the root's slot.
//
// Idea: the root writes the blocks for everyone into its flag line (when all p fit in 56
// bytes) or, in rounds, chunk k of every block into half k mod 2 of its slot (chunk =
// half / p), and posts step 2k + 2; each rank copies its piece out and posts step 2k + 2,
// which frees the half for round k + 2. The root runs up to two rounds ahead.
// Requirements: the members share memory (one host); host buffers; any datatypes; the slot
// holds at least one 64-byte chunk per rank (p <= slot / 128).
// Cost: p ranks, blocks of n bytes, c = half / p: (n / c + 1) x 2 hops; the root copies p n
// in while the others copy their n out.
#include <algorithm>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"

namespace gpurun::coll::shm {
namespace {

class Scatter final : public ShmOp {
 public:
  Scatter(Arena& arena, const Args& args)
      : ShmOp(arena, args),
        root_(args.root),
        is_root_(arena.rank() == args.root),
        skip_own_(is_root_ && args.in_place),
        send_(is_root_ ? Buffer(args.sendbuf, args.count, args.type) : Buffer()),
        recv_(skip_own_ ? Buffer() : Buffer(args.recvbuf, args.recvcount, args.recvtype)),
        hold_send_(is_root_ ? args.type : nullptr),
        hold_recv_(skip_own_ ? nullptr : args.recvtype),
        block_(is_root_ ? send_.bytes() : recv_.bytes()) {}

 private:
  void plan() override {
    std::uint64_t fits = arena_.slot_bytes() / 2 / arena_.size() / kLineBytes * kLineBytes;
    chunk_ = std::min<std::uint64_t>(fits, std::max<std::uint64_t>(block_, 1));
    rounds_ = (block_ + chunk_ - 1) / chunk_;
  }
  void reset() override { round_ = 0; }
  bool run() override {
    if (block_ == 0) return true;
    if (block_ * arena_.size() <= kInlineBytes) return is_root_ ? put_line() : get_line();
    for (; round_ < rounds_; ++round_) {
      if (is_root_ ? !put_round() : !get_round()) return false;
    }
    return true;
  }
  bool put_line() {
    if (!arena_.line_writable(seq_)) return false;
    std::byte* line = arena_.line(root_, seq_).data;
    for (int r = 0; r < arena_.size(); ++r) send_.block(r).pack(0, line + r * block_, block_);
    post_line();
    arena_.line_written(seq_, Arena::kAllReaders);
    if (!skip_own_) recv_.unpack(0, line + root_ * block_, block_);
    return true;
  }
  bool get_line() {
    if (!arena_.line_ready(root_, seq_)) return false;
    recv_.unpack(0, arena_.line(root_, seq_).data + arena_.rank() * block_, block_);
    return true;
  }
  std::byte* piece(std::uint64_t k, int block) const {
    return arena_.slot(root_) + (k % 2) * (arena_.slot_bytes() / 2) + block * chunk_;
  }
  std::size_t length(std::uint64_t k) const {
    return static_cast<std::size_t>(std::min(chunk_, block_ - k * chunk_));
  }
  bool put_round() {
    int first = static_cast<int>(round_ % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    for (int r = 0; r < arena_.size(); ++r) {
      if (r == root_) continue;
      send_.block(r).pack(round_ * chunk_, piece(round_, r), length(round_));
    }
    std::uint64_t done = step_value(seq_, 2 * round_ + 2);
    arena_.post(done);
    arena_.parts_written(first, 2, done, Arena::kAllReaders);
    if (!skip_own_) {
      send_.block(root_).pack(round_ * chunk_, piece(round_, root_), length(round_));
      recv_.unpack(round_ * chunk_, piece(round_, root_), length(round_));
    }
    return true;
  }
  bool get_round() {
    std::uint64_t done = step_value(seq_, 2 * round_ + 2);
    if (!arena_.reached(root_, done)) return false;
    recv_.unpack(round_ * chunk_, piece(round_, arena_.rank()), length(round_));
    arena_.post(done);
    return true;
  }

  int root_;
  bool is_root_;
  bool skip_own_;
  Buffer send_;
  Buffer recv_;
  TypeHold hold_send_;
  TypeHold hold_recv_;
  std::uint64_t block_;
  std::uint64_t chunk_ = 0;
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
};

}  // namespace

std::unique_ptr<ShmOp> make_scatter(Arena& arena, const Args& args) {
  return std::make_unique<Scatter>(arena, args);
}

}  // namespace gpurun::coll::shm
