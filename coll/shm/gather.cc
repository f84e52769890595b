// Gather and gatherv through the slots of the non-root ranks.
//
// Idea: each rank writes its block into its own flag line (gather, blocks up to 56 bytes) or,
// in rounds of one half slot, into half k mod 2 of its slot, and posts step 2k + 2 (it reads
// nothing, so it is done with the round as soon as it has written it); the root copies every
// block out as it arrives and posts step 2k + 2, which frees the halves for round k + 2.
// Gatherv: blocks of different sizes, as the root's receive counts say. A rank writes as many
// rounds as its own block needs (at least one), the root reads as many as the largest needs
// (a rank that has finished passes every step). The first line of each rank's round 0 is its
// head (layout.h HeadLine: the block's byte count and the sequence number, stored after the
// data; a block of up to 48 bytes travels in it): the root waits for each head, not for the
// step counters, in round 0, compares its count with its receive count, reports a difference
// and reads no more than both allow. Always in rounds, never in the flag lines, so that the
// root and a rank whose counts differ (an erroneous call) never wait on different things.
// Requirements: the members share memory (one host); host buffers; any datatypes.
// The root copies its own block straight from its send buffer while the others write theirs.
// Cost: p ranks, blocks of n bytes: (n / half + 1) x 2 hops (gatherv: one hop for a block in
// its head); the root copies p n out while the others copy their n in (its own block through
// its slot took two copies, after the wait: osu_gather -np 2 64K 1.6-1.9 -> 1.3 us).
#include <algorithm>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"

namespace gpurun::coll::shm {
namespace {

class Gather final : public ShmOp {
 public:
  Gather(Arena& arena, const Args& args)
      : ShmOp(arena, args),
        root_(args.root),
        is_root_(arena.rank() == args.root),
        skip_own_(is_root_ && args.in_place),
        v_(args.collective == Collective::kGatherv),
        blocks_(is_root_ ? blocks_of(args.recvbuf, args.recvtype, arena.size(), args.recvcount,
                                     v_ ? args.recvcounts : nullptr, args.rdispls)
                         : std::vector<Buffer>()),
        send_(skip_own_ ? Buffer() : Buffer(args.sendbuf, args.count, args.type)),
        hold_send_(skip_own_ ? nullptr : args.type),
        hold_recv_(is_root_ ? args.recvtype : nullptr),
        most_(is_root_ ? largest(blocks_) : send_.bytes()),
        lines_(!v_ && most_ <= kInlineBytes),
        chunks_{.head = v_ ? kLineBytes : 0} {}

 private:
  void plan() override {
    chunks_.chunk = arena_.slot_bytes() / 2 / kLineBytes * kLineBytes;
    rounds_ = chunks_.rounds(most_);
  }
  // A restart takes every block whole again, whatever a mismatch of an earlier start cut.
  void reset() override {
    round_ = 0;
    posted_ = false;
    cursor_ = 0;
    heads_.reset(blocks_);
  }
  bool run() override {
    if (!v_ && most_ == 0) return true;
    if (lines_) return is_root_ ? collect_lines() : put_line();
    for (; round_ < rounds_; ++round_) {
      if (!posted_ && !put_round()) return false;
      if (is_root_ && !collect_round()) return false;
      posted_ = false;
      cursor_ = 0;
    }
    return true;
  }
  bool put_line() {
    if (!arena_.line_writable(seq_)) return false;
    send_.pack(0, arena_.line(arena_.rank(), seq_).data, most_);
    post_line();
    arena_.line_written(seq_, root_);
    return true;
  }
  bool collect_lines() {
    if (!posted_) {
      std::byte own[kInlineBytes];
      send_.pack(0, own, send_.bytes());
      block(root_).unpack(0, own, send_.bytes());
      posted_ = true;
    }
    for (; cursor_ < arena_.size(); ++cursor_) {
      if (cursor_ == root_) continue;
      if (!arena_.line_ready(cursor_, seq_)) return false;
      block(cursor_).unpack(0, arena_.line(cursor_, seq_).data, most_);
    }
    arena_.learn_all_started(seq_);
    return true;
  }
  // Where chunk k of `rank`'s block lies, for a block of `bytes` (the writer's count).
  std::byte* data(int rank, std::uint64_t k, std::uint64_t bytes) const {
    return chunks_.in_halves(arena_.slot(rank), k, bytes);
  }
  const Buffer& block(int rank) const { return blocks_[static_cast<std::size_t>(rank)]; }
  std::size_t at(int rank) const { return static_cast<std::size_t>(rank); }
  // The root copies its own chunk straight into its receive buffer while the others write
  // theirs (through its slot, after the wait, it took two copies).
  bool put_round() {
    int first = static_cast<int>(round_ % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    std::uint64_t done = step_value(seq_, 2 * round_ + 2);
    std::uint64_t offset = chunks_.offset(round_);
    std::size_t mine = chunks_.length(send_.bytes(), round_);
    if (is_root_ && !skip_own_) {
      copy_stream(send_, block(root_), offset, mine);
    } else if (!is_root_) {
      int rank = arena_.rank();
      send_.pack(offset, data(rank, round_, send_.bytes()), mine);
      if (v_ && round_ == 0) HeadedChunks::post_head(arena_.slot(rank), seq_, send_.bytes());
      arena_.post(done);
    }
    arena_.parts_written(first, 2, done, root_);
    posted_ = true;
    return true;
  }
  bool collect_round() {
    if (v_ && round_ == 0 ? !read_member_heads(heads_, root_, 2, blocks_)
                          : !arena_.all_reached(step_value(seq_, 2 * round_ + 1)))
      return false;
    for (int r = 0; r < arena_.size(); ++r) {
      if (r == root_) continue;
      block(r).unpack(chunks_.offset(round_), data(r, round_, heads_.theirs[at(r)]),
                      chunks_.length(heads_.got[at(r)], round_));
    }
    arena_.post(step_value(seq_, 2 * round_ + 2));
    return true;
  }

  int root_;
  bool is_root_;
  bool skip_own_;
  bool v_;
  std::vector<Buffer> blocks_;  // the root's receive blocks
  Buffer send_;
  TypeHold hold_send_;
  TypeHold hold_recv_;
  std::uint64_t most_;  // the root: the largest block (how many rounds); others: their own
  bool lines_;          // blocks in the flag lines
  HeadedChunks chunks_;  // gatherv: the head line of round 0
  MemberHeads heads_;    // the root: what each rank sends (gatherv) and what it takes
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;
  int cursor_ = 0;
};

}  // namespace

std::unique_ptr<ShmOp> make_gather(Arena& arena, const Args& args) {
  return std::make_unique<Gather>(arena, args);
}

}  // namespace gpurun::coll::shm
