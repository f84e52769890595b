// Reduce of two ranks as a stream (see reduction.h): the other rank copies its operand chunk
// by chunk into the quarters of its slot, running up to four chunks ahead, and the root
// combines each chunk as it arrives straight into its output, with its own operand read where
// it lies. Both cores work at once on every chunk but the first, and the root makes no copy
// of its own operand (the shares copy a share in, combine, and copy the other's share out).
//
// Requirements: a reduce of two ranks that do not share a core; a commutative op or root 1
// (in place, the root's output starts as its operand, so root 0 could only put the other's
// operand on the left of a commutative op; the other rank cannot tell whether the root is in
// place, so both choose by op and root alone).
// Cost: n / c + 1 hops for chunks of c; the other rank copies n in, the root reads 2n and
// writes n, chunk by chunk in its cache.
#include "coll/shm/reduction.h"

namespace gpurun::coll::shm {

bool Reduction::stream_possible() const {
  return root_ >= 0 && arena_.size() == 2 && !arena_.grouped() &&
         (op_->commutative() || root_ == 1);
}

bool Reduction::run_stream() { return is_root() ? take_stream() : put_stream(); }

bool Reduction::put_stream() {
  for (; round_ < rounds_; ++round_) {
    int part = static_cast<int>(round_ % Arena::kParts);
    if (!arena_.parts_writable(part, 1)) return false;
    in_.pack(round_ * chunk_ * element_, arena_.part(arena_.rank(), round_),
             chunk_elements() * element_);
    std::uint64_t step = step_value(seq_, round_ + 1);
    arena_.post(step);
    arena_.parts_written(part, 1, step, root_);
  }
  return true;
}

// x0 op x1 into the output, chunk by chunk, in one pass where the op's loop can write a third
// buffer; in place the output already holds the root's operand and takes the other's.
bool Reduction::take_stream() {
  int me = arena_.rank(), other = 1 - me;
  for (; round_ < rounds_; ++round_) {
    if (!arena_.reached(other, step_value(seq_, round_ + 1))) return false;
    std::int64_t count = chunk_elements();
    std::uint64_t offset = round_ * chunk_ * element_;
    const std::byte* theirs = arena_.part(other, round_);
    std::byte* out = out_.packed(offset);
    if (!own_in_buffer_) {
      apply(theirs, out, count);
    } else if (me == 1) {
      combine_into(theirs, in_.packed(offset), out, count);
    } else {
      combine_into(in_.packed(offset), theirs, out, count);
    }
    arena_.post(step_value(seq_, round_ + 1));
  }
  return true;
}

}  // namespace gpurun::coll::shm
