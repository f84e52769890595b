// Scatter and scatterv through the root's slot.
//
// Idea: the root writes the blocks for the others into its flag line (scatter, when those p - 1
// fit in 56 bytes) or, in rounds, chunk k of every block into half (k + seq) mod 2 of its slot
// (chunk = half / p; alternate halves for back-to-back collectives, as in alltoall.cc), and
// posts step 2k + 2; each rank copies its piece out and posts step 2k + 2, which frees the
// half for round k + 2. The root runs up to two rounds ahead and copies its own block
// straight from its send buffer.
// Scatterv: blocks of any size. The chunk is fixed by the slot, the root runs as many rounds
// as its largest block needs, each other rank as many as its own (at least one). The first
// line of each piece of round 0 is its head (layout.h HeadLine: the block's byte count and
// the sequence number, stored after the data; a block of up to 48 bytes travels in it), which
// its reader waits for in round 0 and whose count it compares with its receive count (the
// count check of coll/shm/check.h carries one count per rank): it reports a difference and
// reads no more than both allow. Never in the flag line: a rank whose count differs would
// wait for a line never written.
// Single copy (the "cma" algorithm; scatter: blocks beyond the flag line): the root puts one entry
// line per rank at the start of its slot half (coll/shm/cma.h EntryLine: the block's count, a small
// block itself or in the slot, or where a larger one lies in its send buffer), and each rank copies
// its block from there or by CMA, compares the count with its receive count and posts that it is
// done; the root waits for the ranks it gave an address.
// Requirements: the members share memory (one host); host buffers; any datatypes; the slot
// holds at least one 64-byte chunk per rank (p <= slot / 128).
// Cost: p ranks, blocks of n bytes, c = half / p: (n / c + 1) x 2 hops; the root copies p n
// in while the others copy their n out. Single copy: 2 hops; each rank reads its n, by CMA
// beyond 4K.
#include <algorithm>
#include <string>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"
#include "coll/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

class Scatter final : public ShmOp {
 public:
  Scatter(Arena& arena, const Args& args, bool cma)
      : ShmOp(arena, args),
        cma_(cma),
        root_(args.root),
        is_root_(arena.rank() == args.root),
        skip_own_(is_root_ && args.in_place),
        v_(args.collective == Collective::kScatterv),
        sends_(is_root_ ? blocks_of(args.sendbuf, args.type, arena.size(), args.count,
                                    v_ ? args.sendcounts : nullptr, args.sdispls)
                        : std::vector<Buffer>()),
        recv_(skip_own_ ? Buffer() : Buffer(args.recvbuf, args.recvcount, args.recvtype)),
        hold_send_(is_root_ ? args.type : nullptr),
        hold_recv_(skip_own_ ? nullptr : args.recvtype),
        most_(is_root_ ? largest(sends_) : recv_.bytes()),
        chunks_{.head = v_ ? kLineBytes : 0} {}

 private:
  void plan() override {
    std::uint64_t fits = arena_.slot_bytes() / 2 / arena_.size() / kLineBytes * kLineBytes;
    chunks_.chunk = v_ ? fits : std::min<std::uint64_t>(fits, std::max<std::uint64_t>(most_, 1));
    rounds_ = chunks_.rounds(most_);
    direct_ = cma_ && arena_.cma() && arena_.size() > 1;
  }
  // A restart takes the whole block again, whatever a mismatch of an earlier start cut.
  void reset() override {
    round_ = 0;
    got_ = recv_.bytes();
    posted_ = false;
    waited_ = 0;
  }
  bool run() override {
    if (!v_ && most_ == 0) return true;
    if (!v_ && most_ * std::max(arena_.size() - 1, 1) <= kInlineBytes)
      return is_root_ ? put_line() : get_line();
    if (direct_) return is_root_ ? give_entries() : take_own_entry();
    for (; round_ < rounds_; ++round_) {
      if (is_root_ ? !put_round() : !get_round()) return false;
    }
    return true;
  }
  const Buffer& send(int r) const { return sends_[static_cast<std::size_t>(r)]; }
  bool put_line() {
    if (!arena_.line_writable(seq_)) return false;
    std::byte* line = arena_.line(root_, seq_).data;
    for (int r = 0; r < arena_.size(); ++r)
      if (r != root_) send(r).pack(0, line + in_line(r) * most_, most_);
    post_line();
    arena_.line_written(seq_, Arena::kAllReaders);
    if (!skip_own_) {
      check_own_count();
      copy_stream(send(root_), recv_, 0, got_);
    }
    return true;
  }
  bool get_line() {
    if (!arena_.line_ready(root_, seq_)) return false;
    recv_.unpack(0, arena_.line(root_, seq_).data + in_line(arena_.rank()) * most_, most_);
    return true;
  }
  // Where rank r's block lies in the root's flag line, in blocks: the root's own is not there.
  int in_line(int r) const { return r < root_ ? r : r - 1; }
  // Scatter(v) by CMA: the first p lines of the root's slot half are its entry lines, one per
  // rank.
  bool give_entries() {
    int p = arena_.size();
    if (!posted_) {
      if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
      std::uint64_t small = in_slot_max(arena_.slot_bytes() / 2, p, arena_.grouped());
      put_entries(&entry(0), seq_, sends_, root_, slot_half(root_), small, false, copy_,
                  addressed_);
      arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kReadStep), Arena::kAllReaders);
      posted_ = true;
      if (!skip_own_) {
        check_own_count();
        copy_stream(send(root_), recv_, 0, got_);
      }
    }
    return addressed_readers_done(addressed_, waited_);
  }
  bool take_own_entry() {
    auto take = [&](int r, const EntryLine& e) {
      return take_block(r, true, e, recv_, got_, scratch_);
    };
    if (!read_entry(root_, true, name(), entry(arena_.rank()), take)) return false;
    arena_.post(step_value(seq_, kReadStep));
    return true;
  }
  const char* name() const { return v_ ? "scatterv" : "scatter"; }
  EntryLine& entry(int reader) const {
    return reinterpret_cast<EntryLine*>(slot_half(root_))[reader];
  }
  // Where chunk k of block `block` lies in the root's slot (scatterv: the block's head, then
  // its data in round 0).
  std::byte* piece(std::uint64_t k, int block) const {
    return arena_.slot(root_) + ((k + seq_) % 2) * (arena_.slot_bytes() / 2) +
           block * chunks_.chunk;
  }
  // Its data, for a block of `bytes` (the root's count).
  std::byte* data(std::uint64_t k, int block, std::uint64_t bytes) const {
    return piece(k, block) + chunks_.skip(k, bytes);
  }
  bool put_round() {
    int first = static_cast<int>((round_ + seq_) % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    for (int r = 0; r < arena_.size(); ++r) {
      if (r == root_) continue;
      send(r).pack(chunks_.offset(round_), data(round_, r, send(r).bytes()),
                   chunks_.length(send(r).bytes(), round_));
      if (v_ && round_ == 0) HeadedChunks::post_head(piece(0, r), seq_, send(r).bytes());
    }
    std::uint64_t done = step_value(seq_, 2 * round_ + 2);
    arena_.post(done);
    arena_.parts_written(first, 2, done, Arena::kAllReaders);
    if (round_ == 0 && !skip_own_) check_own_count();
    if (!skip_own_)  // one copy where the slot would take two
      copy_stream(send(root_), recv_, chunks_.offset(round_), chunks_.length(got_, round_));
    return true;
  }
  bool get_round() {
    std::uint64_t done = step_value(seq_, 2 * round_ + 2);
    if (v_ && round_ == 0 ? !head_ready() : !arena_.reached(root_, done)) return false;
    recv_.unpack(chunks_.offset(round_), data(round_, arena_.rank(), theirs_),
                 chunks_.length(got_, round_));
    arena_.post(done);
    return true;
  }
  void check_own_count() {
    if (send(root_).bytes() == recv_.bytes()) return;
    got_ = std::min(send(root_).bytes(), recv_.bytes());
    fail(Status(ErrorCode::kInvalidArgument,
                "the root's send and receive counts or datatypes for itself do not match"));
  }
  // Scatterv's round 0: the head of this rank's piece, where its data lies (one line for a
  // small block). What the root sends is compared with what this rank expects, and it reads no
  // more than both; a root that passed the collective without a head for it did not run it
  // here (its call failed), and this rank reads nothing.
  bool head_ready() {
    std::uint64_t theirs = 0;
    if (!source_head(piece(0, arena_.rank()), root_, theirs)) return false;
    theirs_ = theirs == kSkippedCount ? 0 : theirs;
    if (theirs == recv_.bytes()) return true;
    got_ = std::min(theirs_, recv_.bytes());
    fail_source(root_, "the root (rank " + std::to_string(root_) + ")", theirs, recv_.bytes());
    return true;
  }

  bool cma_;             // single copy by CMA asked for (the "cma" algorithm)
  bool direct_ = false;  // ... and possible: every member reaches every other
  int root_;
  bool is_root_;
  bool skip_own_;
  bool v_;
  std::vector<Buffer> sends_;  // the root's blocks
  Buffer recv_;
  TypeHold hold_send_;
  TypeHold hold_recv_;
  std::uint64_t most_;     // the root: the largest block (how many rounds); others: their own
  std::uint64_t got_ = 0;  // what this rank takes of its block
  std::uint64_t theirs_ = 0;  // scatterv: what the root sends this rank
  HeadedChunks chunks_;       // scatterv: the head line of round 0
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;             // CMA: the root's entries are up
  int waited_ = 0;                  // CMA: the ranks seen done with the root's buffer so far
  std::vector<std::uint8_t> addressed_;  // CMA: the ranks given an address
  std::vector<std::byte> copy_;     // CMA: the root's non-contiguous blocks, packed
  std::vector<std::byte> scratch_;  // CMA: a block on its way to a non-contiguous buffer
};

}  // namespace

std::unique_ptr<ShmOp> make_scatter(Arena& arena, const Args& args) {
  return std::make_unique<Scatter>(arena, args, false);
}

std::unique_ptr<ShmOp> make_scatter_cma(Arena& arena, const Args& args) {
  return std::make_unique<Scatter>(arena, args, true);
}

}  // namespace gpurun::coll::shm
