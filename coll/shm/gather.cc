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
// Single copy (the "cma" algorithm; gather: blocks beyond the flag lines): the root lists in entry
// lines at the start of its slot half where each rank's block goes (coll/shm/cma.h EntryLine: its
// count and an address in the receive buffer, or kInSlot for a block of up to 4K), and copies its
// own block while each rank writes its block there by CMA, or a small one (at once) into its own
// entry line or slot, and then says in the entry line of its slot how many bytes it had and where;
// the root checks each count, takes the small blocks and posts that it is done. The ranks copy at
// once (the root reading each block by CMA after its own copy took twice as long at two ranks).
// Requirements: the members share memory (one host); host buffers; any datatypes.
// The root copies its own block straight from its send buffer while the others write theirs.
// Cost: p ranks, blocks of n bytes: (n / half + 1) x 2 hops (gatherv: one hop for a block in
// its head); the root copies p n out while the others copy their n in (its own block through
// its slot took two copies, after the wait: osu_gather -np 2 64K 1.6-1.9 -> 1.3 us). Single
// copy: 2 hops; each rank writes its n by CMA beyond 4K, the root copies its own.
#include <algorithm>
#include <string>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"
#include "coll/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

class Gather final : public ShmOp {
 public:
  Gather(Arena& arena, const Args& args, bool cma)
      : ShmOp(arena, args),
        cma_(cma),
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
    direct_ = cma_ && arena_.cma() && arena_.size() > 1;
  }
  // A restart takes every block whole again, whatever a mismatch of an earlier start cut.
  void reset() override {
    round_ = 0;
    posted_ = false;
    cursor_ = 0;
    heads_.reset(blocks_);
    cma_state_ = {};
  }
  bool run() override {
    if (!v_ && most_ == 0) return true;
    if (lines_) return is_root_ ? collect_lines() : put_line();
    if (direct_) return is_root_ ? collect_entries() : give_entry();
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
  // Gather(v) by CMA. The root's slot half starts with an entry line per rank: the bytes it
  // expects and where they go (coll/shm/cma.h EntryLine: an address in its receive buffer, or in
  // a scratch buffer for a non-contiguous block, where the rank writes them by CMA; kInSlot for
  // a small block, which the rank puts in its own entry line or slot half). Each rank then says
  // in the first line of its own slot half how many bytes it has and where they are.
  bool collect_entries() {
    if (!cma_state_.posted) {
      if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
      publish_places();
      cma_state_.posted = true;
      if (!skip_own_)
        copy_stream(send_, block(root_), 0, std::min(send_.bytes(), block(root_).bytes()));
    }
    if (!read_entries(
            cma_state_, name(), [&](int r) -> const EntryLine& { return said(r); },
            [&](int r, const EntryLine& e) { return take(r, e); }))
      return false;
    arena_.post(step_value(seq_, kReadStep));
    return true;
  }
  void publish_places() {
    std::uint64_t small = this->small(), packed = 0;
    parked_.assign(blocks_.size(), 0);
    for (std::size_t r = 0; r < blocks_.size(); ++r) {
      if (static_cast<int>(r) == root_ || blocks_[r].bytes() <= small || blocks_[r].contiguous())
        continue;
      parked_[r] = packed;
      packed += blocks_[r].bytes();
    }
    copy_.resize(packed);
    for (int r = 0; r < arena_.size(); ++r) {
      if (r == root_) continue;
      const Buffer& b = block(r);
      EntryLine& e = place(r);
      e.check = line_check(seq_);
      e.bytes = b.bytes();
      e.where = b.bytes() <= small ? kInSlot
                : b.contiguous()   ? reinterpret_cast<std::uint64_t>(b.packed(0))
                                   : reinterpret_cast<std::uint64_t>(copy_.data() + parked_[at(r)]);
      e.seq.store(seq_, std::memory_order_release);
    }
    arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kReadStep), Arena::kAllReaders);
  }
  // What rank r said it sent: compared with the receive count; its block is in place (a
  // non-contiguous one is unpacked from the scratch buffer), or in its entry or slot.
  Status take(int r, const EntryLine& e) {
    if (e.where == kNotLanded) return Status(ErrorCode::kInternal, "its CMA write failed");
    if (e.where != kLanded) {
      std::uint64_t got = 0;
      return take_block(r, false, e, block(r), got, scratch_);
    }
    std::uint64_t got = take_count(r, false, e.bytes, block(r));
    if (!block(r).contiguous()) block(r).unpack(0, copy_.data() + parked_[at(r)], got);
    return ok_status();
  }
  // A non-root: a block of up to 4K at once into its own entry line or slot; a larger one
  // where the root's entry says (in its slot, should the root expect a small one: no more
  // than that); then its count in its own entry line.
  bool give_entry() {
    if (!cma_state_.posted) {
      if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
      cma_state_.posted = true;
    }
    if (send_.bytes() <= small()) {
      if (Status st = deliver(nullptr); !st.ok()) fail(std::move(st));
    } else {
      auto give = [&](int, const EntryLine& e) { return deliver(&e); };
      if (!read_entry(root_, true, name(), place(arena_.rank()), give)) return false;
    }
    arena_.post(step_value(seq_, kReadStep));
    return true;
  }
  Status deliver(const EntryLine* to) {
    int me = arena_.rank();
    EntryLine& mine = said(me);
    std::uint64_t n = send_.bytes(), got = to != nullptr ? std::min(n, to->bytes) : n;
    Status st = ok_status();
    if (to != nullptr && (to->where & kInSlot) == 0) {
      st = write_block(arena_.cma_pid(root_), to->where, send_, got, scratch_);
      mine.where = st.ok() ? kLanded : kNotLanded;
    } else if (got <= kEntryData) {
      send_.pack(0, mine.data, got);
      mine.where = kInEntry;
    } else {
      send_.pack(0, slot_half(me) + kLineBytes, got);
      mine.where = kInSlot | kLineBytes;
    }
    mine.check = line_check(seq_);
    mine.bytes = n;
    mine.seq.store(seq_, std::memory_order_release);
    arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kReadStep), root_);
    return st;
  }
  // The largest block that travels through its writer's slot.
  std::uint64_t small() const { return in_slot_max(arena_.slot_bytes() / 2, 1, arena_.grouped()); }
  const char* name() const { return v_ ? "gatherv" : "gather"; }
  // The root's entry line for rank r, and rank r's own.
  EntryLine& place(int r) const { return reinterpret_cast<EntryLine*>(slot_half(root_))[r]; }
  EntryLine& said(int r) const { return *reinterpret_cast<EntryLine*>(slot_half(r)); }
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

  bool cma_;             // single copy by CMA asked for (the "cma" algorithm)
  bool direct_ = false;  // ... and possible: every member reaches every other
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
  CmaExchange cma_state_;              // CMA: where this rank is
  std::vector<std::byte> copy_;        // CMA, the root: large non-contiguous blocks land here
  std::vector<std::uint64_t> parked_;  // ... each at this offset
  std::vector<std::byte> scratch_;     // CMA: a block on its way from or to a non-contiguous one
};

}  // namespace

std::unique_ptr<ShmOp> make_gather(Arena& arena, const Args& args) {
  return std::make_unique<Gather>(arena, args, false);
}

std::unique_ptr<ShmOp> make_gather_cma(Arena& arena, const Args& args) {
  return std::make_unique<Gather>(arena, args, true);
}

}  // namespace gpurun::coll::shm
