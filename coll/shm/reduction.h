// Reduce and allreduce in shared memory: one operation class, three ways by size.
//
// - lines (up to 56 bytes): each rank writes its data and flag in one cache line. Flat teams:
//   every rank (allreduce) or the root (reduce) combines all lines itself. Larger teams:
//   partial results go up the tree of flags (tree.h) and rank 0 posts the result in its line.
// - direct (up to GPURUN_COLL_SHM_DIRECT_MAX): in rounds of half a slot, each rank copies its
//   chunk into its slot and every rank (allreduce) or the root (reduce) combines all slots.
// - shares (larger): in rounds of half a slot, each rank copies the others' shares of its
//   chunk into its slot; each rank combines its share from all slots (its own operand from its
//   buffer), in place over one of the operands (a share's operand in another rank's slot is
//   read by that share's rank only); then every rank (or the root) copies every share out.
//   The chunk of a round stays in the cache between the three steps.
// - core groups (a reduce larger than direct, commutative op, ranks that share cores): each
//   group's leader combines its members' chunks, and the root the leaders' (reduction_groups.cc).
// - stream (a reduce of two ranks larger than direct, each on its own core): the other rank
//   copies its operand into its slot a quarter at a time, chunks of up to kStreamChunk, while
//   the root combines the chunks that have arrived into its output (reduction_stream.cc).
// - cma (the "cma" algorithm: a reduce of two ranks larger than the lines, where they reach
//   each other by CMA): each rank combines a part of the vector straight from the other's
//   buffer, the other rank writing its part into the root's (reduction_cma.cc).
//
// Scan and exscan: rank r combines the operands of ranks 0 to r (scan) or r - 1 (exscan; rank
// 0 gets nothing), by the flag lines (whatever the team: a rank waits for every line and
// combines those it needs) or, for any larger size, the direct way, whose rounds every rank
// combines.
//
// Every way combines in rank order (x0 op (x1 op (... op x(p-1)))), so non-commutative ops
// are right, and every rank of an allreduce gets the same bits.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/shm/buffer.h"
#include "coll/shm/op.h"

namespace gpurun::coll::shm {

class Reduction final : public ShmOp {
 public:
  // `root` < 0: allreduce. `cma`: a reduce of two ranks by CMA where it can (the "cma"
  // algorithm), else as without.
  Reduction(Arena& arena, const Args& args, int root, bool cma = false);

 private:
  enum class Way : std::uint8_t { kLines, kDirect, kShares, kGroups, kCma, kStream };
  enum class Prefix : std::uint8_t { kNone, kInclusive, kExclusive };  // none, scan, exscan

  void plan() override;
  void reset() override;
  bool run() override;

  // reduction_lines.cc
  bool run_lines();
  bool lines_post();
  bool lines_flat();
  bool lines_tree();
  void combine_lines(int first, int last, std::byte* acc);
  void combine_children(std::byte* acc);
  // reduction.cc
  bool run_direct();
  bool run_shares();
  bool put_chunk();
  bool put_shares();
  bool combine_direct();
  bool combine_share();
  bool copy_shares();
  // reduction_groups.cc
  void plan_groups();
  bool run_groups();
  bool put_member();
  bool combine_group();
  // reduction_stream.cc
  bool stream_possible() const;
  bool run_stream();
  bool put_stream();
  bool take_stream();
  // reduction_cma.cc
  bool run_cma();
  bool cma_root_share();
  bool cma_other_share();
  void cma_read_operand(int rank, std::byte* into, std::uint64_t from, std::size_t length);
  // The elements at the head of the vector that the root combines (two thirds).
  std::int64_t cma_root_elements() const { return count_ - count_ / 3; }

  bool is_root() const { return root_ < 0 || arena_.rank() == root_; }
  // The lines go up a tree only in a reduction of a whole large team.
  bool flat() const { return arena_.flat() || prefix_ != Prefix::kNone; }
  // The last rank whose operand this rank's result takes (-1: none).
  int last_operand() const {
    if (prefix_ == Prefix::kNone) return arena_.size() - 1;
    return prefix_ == Prefix::kInclusive ? arena_.rank() : arena_.rank() - 1;
  }
  // Rounds: chunk k is elements [k * chunk, ...) of the vector, in half k mod 2 of the slots.
  std::byte* half_of(int rank) const { return arena_.slot(rank) + (round_ % 2) * half_; }
  std::int64_t chunk_elements() const;
  // Share r of the current chunk: elements [share_begin(r), share_begin(r + 1)) of it.
  std::int64_t share_begin(int r) const;
  // The rank in whose slot share r is combined (see combine_share).
  int holder_of(int share) const;
  // inout = in op inout, both packed operands of `count` elements.
  void apply(const void* in, void* inout, std::int64_t count);
  // out = a op b, all three packed, of `count` elements (out overlaps neither).
  void combine_into(const void* a, const void* b, std::byte* out, std::int64_t count);

  int root_;  // < 0: allreduce, scan, exscan
  Prefix prefix_;
  const core::Op* op_;
  const core::Datatype* type_;
  core::Op::PackedLoop loop_;  // op_'s loop on type_, when apply() may call it straight
  TypeHold hold_;
  OpHold hold_op_;
  Buffer in_;           // this rank's operand
  Buffer out_;          // where the result goes (unused on the non-roots of a reduce)
  bool own_in_buffer_;  // not in place, contiguous: this rank's operand is read where it lies
  std::int64_t count_;
  std::int64_t element_;  // bytes of one element
  std::uint64_t bytes_;
  std::uint64_t half_ = 0;
  std::int64_t chunk_ = 0;  // elements of a full round
  std::uint64_t rounds_ = 0;
  Way way_;
  bool cma_;  // the "cma" algorithm: a reduce of two ranks by CMA where it can

  std::uint64_t round_ = 0;
  int phase_ = 0;                          // within a round (or the lines' steps)
  int cursor_ = 0;                         // members or children already seen
  int leader_ = -1;                        // core groups: this rank's group's leader
  std::vector<int> sources_;               // core groups: what this rank combines
  alignas(16) std::byte acc_[kLineBytes];  // the lines' partial result
  std::vector<std::byte> scratch_;         // cma: the other's operand on its way
  std::vector<std::byte> mine_copy_;       // cma: this rank's part, combined over
};

}  // namespace gpurun::coll::shm
