// Alltoall and alltoallv through every rank's slot in shared memory.
//
// Idea: each rank writes the blocks for everyone into its own slot, and each rank reads its block
// from every slot. When all p blocks of a rank fit in 56 bytes they travel in its flag line (but
// its own, which it copies across). Otherwise they go in rounds: half a slot holds one chunk of
// each of the p - 1 blocks for the others (chunk = half / (p - 1), the one for rank w + 1 + i
// at i); in round k a rank packs chunk k of every block it sends
// to another rank into half (k + seq) mod 2 and posts step 2k + 1, then copies chunk k of its own
// block straight from its send buffer to its receive buffer while the others catch up (in place:
// nothing to do); once everyone has posted, it copies chunk k of its block from every other slot
// and posts step 2k + 2, which frees the half for round k + 2. With the sequence number in the
// parity, back-to-back collectives start in alternate halves: the one a rank writes was last read
// in the collective before the previous one, which every reader has finished (they have all posted
// in the previous one), so the writer reads no counter first.
// Alltoallv: blocks of any size per pair. The chunk is fixed by the slot (a reader must find
// the chunk where the writer put it, whatever the sizes), and each rank runs as many rounds
// as its own largest block needs (at least one): a source's chunks are read only in the
// rounds its block reaches, which the source has run. The first line of each chunk of round 0
// is its head (layout.h HeadLine): the block's byte count and the collective's sequence
// number, stored after the data, which starts on the next line (aligned: with the data 8
// bytes off, osu_alltoallv -np 4 took up to twice as long as osu_alltoall) or, up to 48
// bytes, in the head itself. A reader waits in round 0 for the heads of its blocks, not for
// the step counters: a small block arrives with the line that says it is there. It compares
// the count with its receive count (the count check of coll/shm/check.h cannot: one count per
// rank), reports a difference and reads no more than both allow. Never in the flag lines:
// only the ranks whose counts differ see the difference, and the others would wait for a line
// never written.
// Single copy (the "cma" algorithm): each rank publishes where its send blocks lie
// (coll/shm/cma.h), copies its own block across, and reads its block from every other rank's
// send buffer by CMA, starting with the next rank so that not everyone reads the same source at
// once; it then posts that it is done and returns once everyone has (they read its buffer). In
// place, or with a non-contiguous send type, the rank publishes a packed copy. Ranks that take
// turns on one core (Arena::core_group) trade blocks of up to kPairInSlotMax through their slots
// instead: each packs its blocks for its core partners into its slot before it posts, and waits
// at the end only for the readers of its buffer, which run on other cores meanwhile; waiting for
// a partner would cost a switch of the core each time (osu_alltoall -np 4 on 2 cores, 7-9
// interleaved runs, medians: 16K 12.7 -> 11.0 us, 64K 25.7 -> 23.4). Alltoallv lists
// each block's place and count at the start of the slot, and blocks up to 4K travel in the
// slot itself (run_direct_v).
// Requirements: the members share memory (one host); host buffers; any datatypes; the slot
// holds at least one 64-byte chunk per rank (p <= slot / 128).
// Cost: p ranks, blocks of n bytes, c = half / (p - 1): (n / c + 1) x 2 hops; each rank copies
// (p - 1) n in, (p - 1) n out and its own n once (osu_alltoall -np 4 on 2 cores: 2p - 1
// copies of n instead of 2p). Single copy: 2 hops; each rank copies its own n and reads
// (p - 1) n by CMA (p - 1 system calls; a block from a core partner: two copies, no call).
#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"
#include "coll/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

// The largest block that core partners trade through their slots: the two copies cost about
// what the system call and one copy cost at 64K (1.3 us each against 2.3 on the 2-core Intel
// Xeon), and more beyond (-np 4, 128K: 63.5 us against 57.7 by CMA).
constexpr std::uint64_t kPairInSlotMax = 64 << 10;

// A half slot holds one chunk of the block for each other rank (its own block goes straight
// across): with 2 ranks a 1M block takes 2 rounds of 512K instead of 4 of 256K (osu_alltoall on
// a 2-core AMD EPYC, the library before and after, interleaved, medians: -np 2 1M 59.9 -> 56.3 us
// (11 runs); -np 4 512K 215 -> 195, 1M 514 -> 486 (7 runs)).
std::uint64_t chunk_for(const Arena& arena, std::uint64_t block) {
  auto others = static_cast<std::uint64_t>(std::max(arena.size() - 1, 1));
  std::uint64_t chunk = arena.slot_bytes() / 2 / others / kLineBytes * kLineBytes;
  return std::min(chunk, std::max<std::uint64_t>(block, 1));
}

class Alltoall final : public ShmOp {
 public:
  Alltoall(Arena& arena, const Args& args, bool cma)
      : ShmOp(arena, args),
        cma_(cma),
        v_(args.collective == Collective::kAlltoallv),
        recvs_(blocks_of(args.recvbuf, args.recvtype, arena.size(), args.recvcount,
                         v_ ? args.recvcounts : nullptr, args.rdispls)),
        sends_(args.in_place ? recvs_
                             : blocks_of(args.sendbuf, args.type, arena.size(), args.count,
                                         v_ ? args.sendcounts : nullptr, args.sdispls)),
        hold_send_(args.in_place ? nullptr : args.type),
        hold_recv_(args.recvtype),
        in_place_(args.in_place),
        block_(v_ ? std::max(largest(sends_), largest(recvs_)) : recvs_[0].bytes()),
        got_(v_ ? recvs_.size() : 0),
        theirs_(v_ ? recvs_.size() : 0),
        chunks_{.head = v_ ? kLineBytes : 0} {}

 private:
  void plan() override {
    if (v_) {
      chunks_.chunk = chunk_for(arena_, std::numeric_limits<std::uint64_t>::max());
    } else {
      chunks_.chunk = chunk_for(arena_, block_);
    }
    rounds_ = chunks_.rounds(block_);
    direct_ = cma_ && arena_.cma() && arena_.size() > 1;
    stride_ = (block_ + kLineBytes - 1) / kLineBytes * kLineBytes;
    pairs_in_slot_ = direct_ && !v_ && arena_.grouped() && stride_ <= kPairInSlotMax &&
                     stride_ * static_cast<std::uint64_t>(arena_.size()) <= arena_.slot_bytes() / 2;
  }
  // Whether this rank and r exchange their blocks through their slots rather than by CMA.
  bool in_slot(int r) const {
    return pairs_in_slot_ && arena_.core_group(r) == arena_.core_group(arena_.rank());
  }
  void reset() override {
    round_ = 0;
    posted_ = false;
    cursor_ = 0;
    cma_state_ = {};
    slot_written_ = false;
  }
  bool run() override {
    if (!v_ && block_ == 0) return true;
    if (!v_ && block_ * arena_.size() <= kInlineBytes) return run_lines();
    if (direct_) return v_ ? run_direct_v() : run_direct();
    for (; round_ < rounds_; ++round_) {
      if (!posted_ && !put_round()) return false;
      if (!get_round()) return false;
      posted_ = false;
    }
    return true;
  }
  // In place, a rank's blocks leave through its line before any block arrives over them. Its
  // own block goes from its send buffer, not through its line: once the others have read the
  // line, reading it again here takes a hop (an MPI_Alltoall loop of 8 B blocks, -np 2: 450 ->
  // 260-330 ns a call; osu_alltoall 8 B, 9 interleaved runs: 0.54 -> 0.47 us).
  bool run_lines() {
    int me = arena_.rank();
    if (!posted_) {
      if (!arena_.line_writable(seq_)) return false;
      for (int r = 0; r < arena_.size(); ++r)
        if (r != me) send(r).pack(0, arena_.line(me, seq_).data + r * block_, block_);
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      posted_ = true;
    }
    for (int r = 0; r < arena_.size(); ++r)
      if (r != me && !arena_.line_ready_soon(r, seq_)) return false;
    for (int r = 0; r < arena_.size(); ++r)
      if (r != me) recv(r).unpack(0, arena_.line(r, seq_).data + me * block_, block_);
    if (!in_place_) copy_stream(send(me), recv(me), 0, block_);
    arena_.learn_all_started(seq_);
    return true;
  }
  bool run_direct() {
    int me = arena_.rank();
    if (pairs_in_slot_ && !slot_written_) {
      if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
      for (int r = 0; r < arena_.size(); ++r)
        if (r != me && in_slot(r)) send(r).pack(0, slot_half(me) + r * stride_, block_);
      arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kReadStep), Arena::kAllReaders);
      slot_written_ = true;
    }
    return exchange_by_cma(
        cma_state_, "alltoall", [&] { return source_of(sends_, in_place_, copy_); },
        [&](int half) {
          if (!in_place_) copy_stream_half(send(me), recv(me), block_, half);
        },
        [&](int r, const Source& from) {
          if (in_slot(r)) {
            recv(r).unpack(0, slot_half(r) + me * stride_, block_);
            return ok_status();
          }
          return read_block(arena_.cma_pid(r),
                            from.base + static_cast<std::uint64_t>(me) * from.stride, recv(r),
                            block_, scratch_);
        },
        [&](int r) { return !in_slot(r); });
  }
  // Alltoallv by CMA: the first p lines of each rank's slot are its entry lines, one per
  // destination (coll/shm/cma.h EntryLine): small blocks in the entry or the slot, larger ones
  // by CMA. Each reader compares the count with its own; the writer waits at the end only for
  // the readers it gave an address.
  bool run_direct_v() {
    int me = arena_.rank();
    if (!cma_state_.posted) {
      if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
      write_entries();
      cma_state_.posted = true;
      check_own_counts();
      if (!in_place_) copy_stream(send(me), recv(me), 0, taken(me));
    }
    if (!cma_state_.read) {
      auto entry_of = [&](int r) -> const EntryLine& { return entry(r, me); };
      if (!read_entries(cma_state_, "alltoallv", entry_of,
                        [&](int r, const EntryLine& e) { return take(r, e); }))
        return false;
      arena_.post(step_value(seq_, kReadStep));
      cma_state_.read = true;
    }
    return addressed_readers_done(addressed_, waited_);
  }
  EntryLine& entry(int writer, int reader) const {
    return reinterpret_cast<EntryLine*>(slot_half(writer))[reader];
  }
  void write_entries() {
    int p = arena_.size();
    std::uint64_t small = in_slot_max(arena_.slot_bytes() / 2, p, arena_.grouped());
    put_entries(&entry(arena_.rank(), 0), seq_, sends_, arena_.rank(), slot_half(arena_.rank()),
                small, in_place_, copy_, addressed_);
    waited_ = 0;
    arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kReadStep), Arena::kAllReaders);
  }
  Status take(int r, const EntryLine& e) {
    return take_block(r, false, e, recv(r), got_[static_cast<std::size_t>(r)], scratch_);
  }
  const Buffer& send(int r) const { return sends_[static_cast<std::size_t>(r)]; }
  const Buffer& recv(int r) const { return recvs_[static_cast<std::size_t>(r)]; }
  // Bytes this rank sends to r and reads from r (alltoall: the block, whatever the counts).
  std::uint64_t sent(int r) const { return v_ ? send(r).bytes() : block_; }
  std::uint64_t taken(int r) const { return v_ ? got_[static_cast<std::size_t>(r)] : block_; }
  std::byte* half_of(int rank, std::uint64_t k) const {
    return arena_.slot(rank) + ((k + seq_) % 2) * (arena_.slot_bytes() / 2);
  }
  // Where chunk k of the block for `block` lies in rank `rank`'s slot (alltoallv: the
  // block's head, then its data in round 0), and its data, for a block of `bytes` (the
  // writer's count).
  std::byte* piece(int rank, std::uint64_t k, int block) const {
    int p = arena_.size();
    auto index = static_cast<std::uint64_t>((block - rank - 1 + p) % p);  // 0 .. p - 2
    return half_of(rank, k) + index * chunks_.chunk;
  }
  std::byte* data(int rank, std::uint64_t k, int block, std::uint64_t bytes) const {
    return piece(rank, k, block) + chunks_.skip(k, bytes);
  }
  bool put_round() {
    int first = static_cast<int>((round_ + seq_) % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    int me = arena_.rank();
    for (int r = 0; r < arena_.size(); ++r)
      if (r != me)
        send(r).pack(chunks_.offset(round_), data(me, round_, r, sent(r)),
                     chunks_.length(sent(r), round_));
    if (v_ && round_ == 0) post_heads();
    arena_.post(step_value(seq_, 2 * round_ + 1));
    arena_.parts_written(first, 2, step_value(seq_, 2 * round_ + 2), Arena::kAllReaders);
    posted_ = true;
    if (v_ && round_ == 0) check_own_counts();
    if (!in_place_)  // one copy where the slot would take two
      copy_stream(send(me), recv(me), chunks_.offset(round_), chunks_.length(taken(me), round_));
    return true;
  }
  bool get_round() {
    if (v_ && round_ == 0 ? !heads_ready() : !arena_.all_reached(step_value(seq_, 2 * round_ + 1)))
      return false;
    int me = arena_.rank();
    for (int r = 0; r < arena_.size(); ++r)
      if (r != me)
        recv(r).unpack(chunks_.offset(round_), data(r, round_, me, v_ ? theirs_[r] : block_),
                       chunks_.length(taken(r), round_));
    arena_.post(step_value(seq_, 2 * round_ + 2));
    return true;
  }
  void post_heads() {
    for (int r = 0; r < arena_.size(); ++r)
      if (r != arena_.rank())  // its own block goes straight across
        HeadedChunks::post_head(piece(arena_.rank(), 0, r), seq_, send(r).bytes());
  }
  void check_own_counts() {
    int me = arena_.rank();
    got_[static_cast<std::size_t>(me)] = std::min(send(me).bytes(), recv(me).bytes());
    if (send(me).bytes() != recv(me).bytes())
      fail(Status(ErrorCode::kInvalidArgument,
                  "this rank's send and receive counts or datatypes for itself do not match"));
  }
  // Round 0: the head of every source's piece for this rank, where its data lies (one line for
  // a small block). What a source sends is compared with what this rank expects, and it reads
  // no more than both; a source that passed the collective without a head for it did not run
  // it here (its call failed), and this rank reads nothing of it.
  bool heads_ready() {
    int me = arena_.rank();
    for (; cursor_ < arena_.size(); ++cursor_) {
      if (cursor_ == me) continue;
      std::uint64_t theirs = 0, expected = recv(cursor_).bytes();
      if (!source_head(piece(cursor_, 0, me), cursor_, theirs)) return false;
      auto at = static_cast<std::size_t>(cursor_);
      theirs_[at] = theirs == kSkippedCount ? 0 : theirs;
      got_[at] = std::min(theirs_[at], expected);
      if (theirs != expected)
        fail_source(cursor_, "rank " + std::to_string(cursor_), theirs, expected);
    }
    arena_.learn_all_started(seq_);
    return true;
  }

  bool cma_;             // single copy by CMA asked for (the "cma" algorithm)
  bool direct_ = false;  // ... and possible: every member reaches every other
  bool v_;
  std::vector<Buffer> recvs_;
  std::vector<Buffer> sends_;
  TypeHold hold_send_;
  TypeHold hold_recv_;
  bool in_place_;
  std::uint64_t block_;                // alltoall: each block; alltoallv: the largest
  std::vector<std::uint64_t> got_;     // alltoallv: what this rank reads from each source
  std::vector<std::uint64_t> theirs_;  // alltoallv: what each source sends this rank
  HeadedChunks chunks_;                // alltoallv: the head line of round 0
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;
  int cursor_ = 0;                  // alltoallv: the next source whose head round 0 waits for
  CmaExchange cma_state_;           // CMA: where this rank is
  bool pairs_in_slot_ = false;      // CMA: ranks that share a core exchange through the slots
  std::uint64_t stride_ = 0;        // ... the block for rank r at r * stride_ in the half
  bool slot_written_ = false;       // ... this rank's blocks for them are there
  std::vector<std::uint8_t> addressed_;  // CMA alltoallv: the readers given an address
  int waited_ = 0;                  // ... those seen done so far
  std::vector<std::byte> copy_;     // CMA: this rank's send blocks, packed, when published so
  std::vector<std::byte> scratch_;  // CMA: a block on its way to a non-contiguous buffer
};

}  // namespace

std::unique_ptr<ShmOp> make_alltoall(Arena& arena, const Args& args) {
  return std::make_unique<Alltoall>(arena, args, false);
}

std::unique_ptr<ShmOp> make_alltoall_cma(Arena& arena, const Args& args) {  // and alltoallv
  return std::make_unique<Alltoall>(arena, args, true);
}

}  // namespace gpurun::coll::shm
