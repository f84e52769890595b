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
// largest needs (a shorter block has empty chunks in the last ones). The first line of each
// rank's round 0 is its head (layout.h HeadLine: the block's byte count and the sequence
// number, stored after the data; a block of up to 48 bytes travels in it): in round 0 a rank
// waits for each head, not for the step counters, compares its count with its receive count
// for that rank, reports a difference and reads no more than both allow. Always in rounds,
// never in the flag lines: a rank whose receive counts differ from the others' (an erroneous
// call) would then wait for a line that they never write, while only it sees the difference.
// Single copy (the "cma" algorithm): each rank publishes where its block lies
// (coll/shm/cma.h: its send buffer, or its block of the receive buffer in place; a packed copy
// for a non-contiguous type), copies it across, reads every other block from its owner's
// buffer by CMA (the next rank's first), posts that it is done and returns once everyone has.
// Allgatherv puts its block's count and place in an entry line at the start of its slot, and
// a small block in the entry or the slot (run_direct_v).
// Requirements: the members share memory (one host); host buffers; any datatypes.
// Cost: p ranks, blocks of n bytes: (n / half + 1) x 2 hops (allgatherv: one hop for blocks in
// their heads); each rank copies n in, its own n across and (p - 1) n out, all at once
// (copying its own block out of its slot after the wait took twice as long: osu_allgather
// -np 2, 64K 5.0 -> 2.4 us, 4K 0.46 -> 0.28). Single copy: 2 hops; each rank copies its own
// n and reads (p - 1) n by CMA.
#include <algorithm>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"
#include "coll/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

class Allgather final : public ShmOp {
 public:
  Allgather(Arena& arena, const Args& args, bool cma)
      : ShmOp(arena, args),
        cma_(cma),
        v_(args.collective == Collective::kAllgatherv),
        blocks_(blocks_of(args.recvbuf, args.recvtype, arena.size(), args.recvcount,
                          v_ ? args.recvcounts : nullptr, args.rdispls)),
        send_(args.in_place ? blocks_[static_cast<std::size_t>(arena.rank())]
                            : Buffer(args.sendbuf, args.count, args.type)),
        in_place_(args.in_place),
        lines_(!v_ && send_.bytes() <= kInlineBytes),
        most_(v_ ? largest(blocks_) : send_.bytes()),
        hold_send_(args.in_place ? nullptr : args.type),
        hold_recv_(args.recvtype),
        chunks_{.head = v_ ? kLineBytes : 0} {}

 private:
  void plan() override {
    chunks_.chunk = arena_.slot_bytes() / 2 / kLineBytes * kLineBytes;
    rounds_ = chunks_.rounds(most_);
    direct_ = cma_ && arena_.cma() && arena_.size() > 1;
  }
  // A restart takes every block whole again, whatever a mismatch of an earlier start cut.
  void reset() override {
    round_ = 0;
    posted_ = false;
    cursor_ = 0;
    cma_state_ = {};
    if (!lines_) heads_.reset(blocks_);  // the rounds' counts (lines: send_'s)
  }
  bool run() override {
    if (!v_ && most_ == 0) return true;
    if (lines_) return run_lines();
    if (direct_) return v_ ? run_direct_v() : run_direct();
    for (; round_ < rounds_; ++round_) {
      if (!posted_ && !put_round()) return false;
      if (!get_round()) return false;
      posted_ = false;
    }
    return true;
  }
  // Its own block from the send buffer, not from its line, which the others' reads may have
  // taken away (an MPI_Allgather loop of 8 B, -np 2: 403 -> 276-294 ns a call).
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
      if (cursor_ == me) {
        if (!in_place_) copy_stream(send_, block(me), 0, send_.bytes());
        continue;
      }
      if (!arena_.line_ready(cursor_, seq_)) return false;
      block(cursor_).unpack(0, arena_.line(cursor_, seq_).data, send_.bytes());
    }
    arena_.learn_all_started(seq_);
    return true;
  }
  bool run_direct() {
    int me = arena_.rank();
    return exchange_by_cma(
        cma_state_, "allgather", [&] { return source_of({send_}, false, copy_); },
        [&](int half) {
          if (!in_place_) copy_stream_half(send_, block(me), send_.bytes(), half);
        },
        [&](int r, const Source& from) {
          return read_block(arena_.cma_pid(r), from.base, block(r), send_.bytes(), scratch_);
        });
  }
  // Allgatherv by CMA: the first line of each rank's slot is its entry line for every reader
  // (coll/shm/cma.h EntryLine): a small block in the entry or the slot, a larger one by CMA
  // from where it lies. Each reader compares the count with its receive count for that rank;
  // a writer that gave an address waits at the end for every reader.
  bool run_direct_v() {
    int me = arena_.rank();
    if (!cma_state_.posted) {
      if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
      write_entry();
      cma_state_.posted = true;
      if (!in_place_) copy_stream(send_, block(me), 0, std::min(send_.bytes(), block(me).bytes()));
    }
    if (!cma_state_.read) {
      auto entry_of = [&](int r) -> const EntryLine& {
        return *reinterpret_cast<const EntryLine*>(slot_half(r));
      };
      if (!read_entries(cma_state_, "allgatherv", entry_of,
                        [&](int r, const EntryLine& e) { return take(r, e); }))
        return false;
      arena_.post(step_value(seq_, kReadStep));
      cma_state_.read = true;
    }
    return !addressed_ || arena_.all_reached(step_value(seq_, kReadStep));
  }
  void write_entry() {
    int me = arena_.rank();
    std::uint64_t at = kLineBytes, n = send_.bytes();
    std::uint64_t small = in_slot_max(arena_.slot_bytes() / 2, 1, arena_.grouped());
    // In place: its block of the receive buffer, which nobody writes.
    const std::byte* address = entry_address(send_, small, false, copy_);
    addressed_ = put_entry(*reinterpret_cast<EntryLine*>(slot_half(me)), seq_, send_, n,
                           slot_half(me), at, small, address);
    arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kReadStep), Arena::kAllReaders);
  }
  Status take(int r, const EntryLine& e) {
    std::uint64_t got = 0;
    return take_block(r, false, e, block(r), got, scratch_);
  }
  // Where chunk k of `rank`'s block lies, for a block of `bytes` (the writer's count).
  std::byte* data(int rank, std::uint64_t k, std::uint64_t bytes) const {
    return chunks_.in_halves(arena_.slot(rank), k, bytes);
  }
  const Buffer& block(int rank) const { return blocks_[static_cast<std::size_t>(rank)]; }
  std::size_t at(int rank) const { return static_cast<std::size_t>(rank); }
  bool put_round() {
    int first = static_cast<int>(round_ % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    int me = arena_.rank();
    std::uint64_t offset = chunks_.offset(round_);
    std::size_t mine = chunks_.length(send_.bytes(), round_);
    send_.pack(offset, data(me, round_, send_.bytes()), mine);
    if (v_ && round_ == 0) HeadedChunks::post_head(arena_.slot(me), seq_, send_.bytes());
    arena_.post(step_value(seq_, 2 * round_ + 1));
    arena_.parts_written(first, 2, step_value(seq_, 2 * round_ + 2), Arena::kAllReaders);
    posted_ = true;
    cursor_ = 0;
    // This rank's own chunk goes straight across while the others catch up.
    if (!in_place_) copy_stream(send_, block(me), offset, mine);
    return true;
  }
  bool get_round() {
    int me = arena_.rank();
    if (v_ && round_ == 0 ? !read_member_heads(heads_, me, 1, blocks_)
                          : !arena_.all_reached(step_value(seq_, 2 * round_ + 1)))
      return false;
    for (int r = 0; r < arena_.size(); ++r) {
      if (r == me) continue;
      block(r).unpack(chunks_.offset(round_), data(r, round_, heads_.theirs[at(r)]),
                      chunks_.length(heads_.got[at(r)], round_));
    }
    arena_.post(step_value(seq_, 2 * round_ + 2));
    return true;
  }

  bool cma_;             // single copy by CMA asked for (the "cma" algorithm)
  bool direct_ = false;  // ... and possible: every member reaches every other
  bool v_;
  std::vector<Buffer> blocks_;
  Buffer send_;
  bool in_place_;
  bool lines_;          // blocks in the flag lines
  std::uint64_t most_;  // the bytes of the largest block: how many rounds
  TypeHold hold_send_;
  TypeHold hold_recv_;
  HeadedChunks chunks_;  // allgatherv: the head line of round 0
  MemberHeads heads_;    // what each rank sends (allgatherv) and what this rank takes
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;
  int cursor_ = 0;
  CmaExchange cma_state_;           // CMA: where this rank is
  bool addressed_ = false;          // CMA allgatherv: the readers copy this rank's block by CMA
  std::vector<std::byte> copy_;     // CMA: this rank's block, packed, when published so
  std::vector<std::byte> scratch_;  // CMA: a block on its way to a non-contiguous buffer
};

}  // namespace

std::unique_ptr<ShmOp> make_allgather(Arena& arena, const Args& args) {
  return std::make_unique<Allgather>(arena, args, false);
}

std::unique_ptr<ShmOp> make_allgather_cma(Arena& arena, const Args& args) {
  return std::make_unique<Allgather>(arena, args, true);
}

}  // namespace gpurun::coll::shm
