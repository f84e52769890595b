// Reduce_scatter and reduce_scatter_block through the slots in shared memory.
//
// Idea: block j of the vector belongs to rank j. In rounds, half a slot holds one chunk of each
// of the p blocks (chunk = half / p, a whole number of elements): in round k each rank packs
// chunk k of every block of its input into half k mod 2 of its slot and posts step 2k + 1; once
// everyone has, each rank combines chunk k of its own block from every slot, in rank order,
// straight into its receive buffer, and posts step 2k + 2, which frees the half for round
// k + 2. Nothing is copied out: each result has one reader, its owner. (Its own operand goes
// through its slot too, so that in place, where the result overwrites block 0 of the input,
// no operand is overwritten before it is read.)
// Requirements: the members share memory (one host); host buffers; a contiguous datatype; any
// op, commutative or not.
// Cost: p ranks, blocks of n bytes, c = half / p: (n / c + 1) x 2 hops; each rank copies p n in,
// reads p n and combines (p - 1) n.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"

namespace gpurun::coll::shm {
namespace {

class ReduceScatter final : public ShmOp {
 public:
  ReduceScatter(Arena& arena, const Args& args)
      : ShmOp(arena, args),
        op_(args.op),
        type_(args.type),
        hold_(args.type),
        hold_op_(args.op),
        element_(args.type->size()) {
    int size = arena.size();
    std::int64_t total = 0;
    for (int r = 0; r < size; ++r) {
      std::int64_t n = args.recvcounts != nullptr ? args.recvcounts[r] : args.count;
      first_.push_back(total);
      counts_.push_back(n);
      total += n;
    }
    in_ = Buffer(args.in_place ? args.recvbuf : args.sendbuf, total, args.type);
    out_ = Buffer(args.recvbuf, counts_[arena.rank()], args.type);
  }

 private:
  void plan() override {
    chunk_ = static_cast<std::int64_t>(arena_.slot_bytes() / 2 / arena_.size()) / element_;
    std::int64_t longest = *std::max_element(counts_.begin(), counts_.end());
    rounds_ = (longest + chunk_ - 1) / chunk_;
  }
  void reset() override {
    round_ = 0;
    posted_ = false;
  }
  bool run() override {
    for (; round_ < rounds_; ++round_) {
      if (!posted_ && !put_round()) return false;
      if (!combine_round()) return false;
      posted_ = false;
    }
    return true;
  }
  // Elements of chunk k of block r, and where the chunk sits in a slot.
  std::int64_t length(int r) const {
    return std::clamp<std::int64_t>(counts_[r] - static_cast<std::int64_t>(round_) * chunk_, 0,
                                    chunk_);
  }
  std::byte* piece(int rank, int block) const {
    return arena_.slot(rank) + (round_ % 2) * (arena_.slot_bytes() / 2) + block * chunk_ * element_;
  }
  bool put_round() {
    int first = static_cast<int>(round_ % 2) * 2;
    if (!arena_.parts_writable(first, 2)) return false;
    for (int r = 0; r < arena_.size(); ++r) {
      std::uint64_t offset = (first_[r] + round_ * chunk_) * element_;
      in_.pack(offset, piece(arena_.rank(), r), length(r) * element_);
    }
    arena_.post(step_value(seq_, 2 * round_ + 1));
    arena_.parts_written(first, 2, step_value(seq_, 2 * round_ + 2), Arena::kAllReaders);
    posted_ = true;
    return true;
  }
  // x0 op (x1 op (... op x(p-1))), built in the receive buffer from the last operand down. A
  // rank with nothing of its own in this round waits for nobody (osu_reduce_scatter -np 4,
  // 4 B: the three ranks that receive nothing leave once they have posted their operands).
  bool combine_round() {
    int me = arena_.rank();
    std::int64_t count = length(me);
    if (count == 0) {
      arena_.post(step_value(seq_, 2 * round_ + 2));
      return true;
    }
    if (!arena_.all_reached(step_value(seq_, 2 * round_ + 1))) return false;
    std::byte* acc = out_.packed(round_ * chunk_ * element_);
    int last = arena_.size() - 1;
    std::memcpy(acc, piece(last, me), count * element_);
    for (int r = last - 1; r >= 0 && count > 0; --r) {
      Status st = op_->apply(typed_at(piece(r, me), *type_), typed_at(acc, *type_), count, *type_);
      if (!st.ok()) [[unlikely]]
        fail(std::move(st));
    }
    arena_.post(step_value(seq_, 2 * round_ + 2));
    return true;
  }

  const core::Op* op_;
  const core::Datatype* type_;
  TypeHold hold_;
  OpHold hold_op_;
  std::int64_t element_;
  std::vector<std::int64_t> first_;   // each block's first element in the vector
  std::vector<std::int64_t> counts_;  // each block's elements
  Buffer in_;
  Buffer out_;
  std::int64_t chunk_ = 0;  // elements of each block per round
  std::uint64_t rounds_ = 0;
  std::uint64_t round_ = 0;
  bool posted_ = false;
};

}  // namespace

std::unique_ptr<ShmOp> make_reduce_scatter(Arena& arena, const Args& args) {
  return std::make_unique<ReduceScatter>(arena, args);
}

}  // namespace gpurun::coll::shm
