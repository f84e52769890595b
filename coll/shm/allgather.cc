// Allgather and allgatherv through every rank's slot in shared memory.
//
// Idea: blocks up to 56 bytes travel in the flag lines: each rank writes its block and flag in
// one line and reads everyone's. Larger blocks go in rounds of one half slot: in round k each
// rank packs chunk k of its block into half k mod 2 of its slot and posts step 2k + 1, then
// copies chunk k of its own block from its send buffer to its receive buffer while the others
// catch up; once everyone has posted, each copies chunk k of every other block into its
// receive buffer and posts step 2k + 2, which frees the half for round k + 2. The halves
// alternate, so a rank fills round k + 1 while slower ones still read round k.
// Allgatherv: blocks of different sizes, as the receive counts say, in as many rounds as the
// largest needs (a shorter block has empty chunks in the last ones); always in rounds, never
// in the flag lines: a rank whose receive counts differ from the others' (an erroneous call)
// would then wait for a line that they never write, while only it sees the difference.
// Requirements: the members share memory (one host); host buffers; any datatypes.
// Cost: p ranks, blocks of n bytes: (n / half + 1) x 2 hops; each rank copies n in, its own n
// across and (p - 1) n out, all at once (copying its own block out of its slot after the wait
// took twice as long: osu_allgather -np 2, 64K 5.0 -> 2.4 us, 4K 0.46 -> 0.28).
#include <algorithm>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"

namespace gpurun::coll::shm {
namespace {

class Allgather final : public ShmOp {
 public:
  Allgather(Arena& arena, const Args& args)
      : ShmOp(arena, args),
        blocks_(blocks_of(args.recvbuf, args.recvtype, arena.size(), args.recvcount,
                          args.collective == Collective::kAllgatherv ? args.recvcounts : nullptr,
                          args.rdispls)),
        send_(args.in_place ? blocks_[static_cast<std::size_t>(arena.rank())]
                            : Buffer(args.sendbuf, args.count, args.type)),
        in_place_(args.in_place),
        lines_(args.collective == Collective::kAllgather && send_.bytes() <= kInlineBytes),
        most_(args.collective == Collective::kAllgather ? send_.bytes() : largest(blocks_)),
        hold_send_(args.in_place ? nullptr : args.type),
        hold_recv_(args.recvtype) {}

 private:
  void plan() override {
    half_ = arena_.slot_bytes() / 2 / kLineBytes * kLineBytes;
    rounds_ = (most_ + half_ - 1) / half_;
  }
  void reset() override {
    round_ = 0;
    posted_ = false;
    cursor_ = 0;
  }
  bool run() override {
    if (most_ == 0) return true;
    if (lines_) return run_lines();
    for (; round_ < rounds_; ++round_) {
      if (!posted_ && !put_round()) return false;
      if (!get_round()) return false;
      posted_ = false;
    }
    return true;
  }
  bool run_lines() {
    int me = arena_.rank();
    if (!posted_) {
      if (!arena_.line_writable(seq_)) return false;
      send_.pack(0, arena_.line(me, seq_).data, send_.bytes());
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      posted_ = true;
    }
    for (; cursor_ < arena_.size(); ++cursor_) {
      if (!arena_.line_ready(cursor_, seq_)) return false;
      if (cursor_ != me || !in_place_)
        block(cursor_).unpack(0, arena_.line(cursor_, seq_).data, send_.bytes());
    }
    arena_.learn_all_started(seq_);
    return true;
  }
  std::byte* half_of(int rank, std::uint64_t k) const {
    return arena_.slot(rank) + (k % 2) * half_;
  }
  const Buffer& block(int rank) const { return blocks_[static_cast<std::size_t>(rank)]; }
  // The length of chunk k of a block of `bytes` (0 past its end).
  std::size_t length(std::uint64_t bytes, std::uint64_t k) const {
    if (bytes <= k * half_) return 0;
    return static_cast<std::size_t>(std::min<std::uint64_t>(half_, bytes - k * half_));
  }
  bool put_round() {
    int first = static_cast<int>(round_ % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    std::size_t mine = length(send_.bytes(), round_);
    send_.pack(round_ * half_, half_of(arena_.rank(), round_), mine);
    arena_.post(step_value(seq_, 2 * round_ + 1));
    arena_.parts_written(first, 2, step_value(seq_, 2 * round_ + 2), Arena::kAllReaders);
    posted_ = true;
    cursor_ = 0;
    // This rank's own chunk goes straight across while the others catch up.
    if (!in_place_) copy_stream(send_, block(arena_.rank()), round_ * half_, mine);
    return true;
  }
  bool get_round() {
    if (!arena_.all_reached(step_value(seq_, 2 * round_ + 1))) return false;
    for (int r = 0; r < arena_.size(); ++r) {
      if (r == arena_.rank()) continue;
      block(r).unpack(round_ * half_, half_of(r, round_), length(block(r).bytes(), round_));
    }
    arena_.post(step_value(seq_, 2 * round_ + 2));
    return true;
  }

  std::vector<Buffer> blocks_;
  Buffer send_;
  bool in_place_;
  bool lines_;          // blocks in the flag lines
  std::uint64_t most_;  // the bytes of the largest block: how many rounds
  TypeHold hold_send_;
  TypeHold hold_recv_;
  std::uint64_t half_ = 0;
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;
  int cursor_ = 0;
};

}  // namespace

std::unique_ptr<ShmOp> make_allgather(Arena& arena, const Args& args) {
  return std::make_unique<Allgather>(arena, args);
}

}  // namespace gpurun::coll::shm
