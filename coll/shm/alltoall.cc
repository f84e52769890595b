// Alltoall through every rank's slot in shared memory.
//
// Idea: each rank writes the blocks for everyone into its own slot, and each rank reads its
// block from every slot. When all p blocks of a rank fit in 56 bytes they travel in its flag
// line. Otherwise they go in rounds: half a slot holds one chunk of each of the p blocks
// (chunk = half / p); in round k a rank packs chunk k of every block it sends to another rank
// into half k mod 2 and posts step 2k + 1, then copies chunk k of its own block straight from
// its send buffer to its receive buffer while the others catch up (in place: nothing to do);
// once everyone has posted, it copies chunk k of its block from every other slot and posts
// step 2k + 2, which frees the half for round k + 2.
// Requirements: the members share memory (one host); host buffers; any datatypes; the slot
// holds at least one 64-byte chunk per rank (p <= slot / 128).
// Cost: p ranks, blocks of n bytes, c = half / p: (n / c + 1) x 2 hops; each rank copies
// (p - 1) n in, (p - 1) n out and its own n once (osu_alltoall -np 4 on 2 cores: 2p - 1
// copies of n instead of 2p).
#include <algorithm>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"

namespace gpurun::coll::shm {
namespace {

std::uint64_t chunk_for(const Arena& arena, std::uint64_t block) {
  std::uint64_t chunk = arena.slot_bytes() / 2 / arena.size() / kLineBytes * kLineBytes;
  return std::min(chunk, std::max<std::uint64_t>(block, 1));
}

class Alltoall final : public ShmOp {
 public:
  Alltoall(Arena& arena, const Args& args)
      : ShmOp(arena, args),
        recv_(args.recvbuf, args.recvcount, args.recvtype),
        send_(args.in_place ? recv_ : Buffer(args.sendbuf, args.count, args.type)),
        hold_send_(args.in_place ? nullptr : args.type),
        hold_recv_(args.recvtype),
        in_place_(args.in_place),
        block_(recv_.bytes()) {}

 private:
  void plan() override {
    chunk_ = chunk_for(arena_, block_);
    rounds_ = (block_ + chunk_ - 1) / chunk_;
  }
  void reset() override {
    round_ = 0;
    posted_ = false;
  }
  bool run() override {
    if (block_ == 0) return true;
    if (block_ * arena_.size() <= kInlineBytes) return run_lines();
    for (; round_ < rounds_; ++round_) {
      if (!posted_ && !put_round()) return false;
      if (!get_round()) return false;
      posted_ = false;
    }
    return true;
  }
  // In place, a rank's blocks leave through its line before any block arrives over them.
  bool run_lines() {
    int me = arena_.rank();
    if (!posted_) {
      if (!arena_.line_writable(seq_)) return false;
      for (int r = 0; r < arena_.size(); ++r)
        send_.block(r).pack(0, arena_.line(me, seq_).data + r * block_, block_);
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      posted_ = true;
    }
    for (int r = 0; r < arena_.size(); ++r)
      if (!arena_.line_ready(r, seq_)) return false;
    for (int r = 0; r < arena_.size(); ++r)
      recv_.block(r).unpack(0, arena_.line(r, seq_).data + me * block_, block_);
    arena_.learn_all_started(seq_);
    return true;
  }
  std::byte* piece(int rank, std::uint64_t k, int block) const {
    return arena_.slot(rank) + (k % 2) * (arena_.slot_bytes() / 2) + block * chunk_;
  }
  std::size_t length(std::uint64_t k) const {
    return static_cast<std::size_t>(std::min(chunk_, block_ - k * chunk_));
  }
  bool put_round() {
    int first = static_cast<int>(round_ % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    int me = arena_.rank();
    for (int r = 0; r < arena_.size(); ++r)
      if (r != me) send_.block(r).pack(round_ * chunk_, piece(me, round_, r), length(round_));
    arena_.post(step_value(seq_, 2 * round_ + 1));
    arena_.parts_written(first, 2, step_value(seq_, 2 * round_ + 2), Arena::kAllReaders);
    posted_ = true;
    if (!in_place_)  // one copy where the slot would take two
      copy_stream(send_.block(me), recv_.block(me), round_ * chunk_, length(round_));
    return true;
  }
  bool get_round() {
    if (!arena_.all_reached(step_value(seq_, 2 * round_ + 1))) return false;
    int me = arena_.rank();
    for (int r = 0; r < arena_.size(); ++r)
      if (r != me) recv_.block(r).unpack(round_ * chunk_, piece(r, round_, me), length(round_));
    arena_.post(step_value(seq_, 2 * round_ + 2));
    return true;
  }

  Buffer recv_;
  Buffer send_;
  TypeHold hold_send_;
  TypeHold hold_recv_;
  bool in_place_;
  std::uint64_t block_;
  std::uint64_t chunk_ = 0;
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;
};

}  // namespace

std::unique_ptr<ShmOp> make_alltoall(Arena& arena, const Args& args) {
  return std::make_unique<Alltoall>(arena, args);
}

}  // namespace gpurun::coll::shm
