// Reduce over core groups (see reduction.h): when ranks share cores, each group's leader
// combines its members' chunks, which never leave their core, and the root combines the
// leaders' partial results, so that one operand per other core crosses between cores instead
// of every operand, three times over, as in the shares.
//
// Requirements: a reduce (not allreduce), a commutative op (groups are not ranges of ranks),
// and ranks that share cores (Arena::grouped). Cost per round, 2 hops: a member copies its
// chunk in; a leader copies its own in and combines its members'; the root combines its own
// group's and the other leaders' chunks into the output.
#include "coll/shm/reduction.h"

namespace gpurun::coll::shm {

// The root leads its own group; every other group is led by its lowest rank.
void Reduction::plan_groups() {
  int me = arena_.rank();
  int group = arena_.core_group(me);
  int root_group = arena_.core_group(root_);
  leader_ = group == root_group ? root_ : group;
  sources_.clear();
  for (int r = 0; r < arena_.size(); ++r) {
    if (r == me) continue;
    bool member = arena_.core_group(r) == group && me == leader_;
    bool other_leader = is_root() && arena_.core_group(r) == r && arena_.core_group(r) != group;
    if (member || other_leader) sources_.push_back(r);
  }
  if (me != leader_) check_no_sources();
}

bool Reduction::run_groups() {
  for (; round_ < rounds_; ++round_, phase_ = 0) {
    if (arena_.rank() != leader_) {
      if (!put_member()) return false;
    } else if (!combine_group()) {
      return false;
    }
  }
  return true;
}

// A member's chunk goes into its slot, for its leader.
bool Reduction::put_member() {
  int first = static_cast<int>(round_ % 2) * 2;
  if (!arena_.parts_writable(first, 2)) return false;
  in_.pack(round_ * chunk_ * element_, half_of(arena_.rank()), chunk_elements() * element_);
  std::uint64_t done = step_value(seq_, 2 * round_ + 2);
  arena_.post(done);
  arena_.parts_written(first, 2, done, leader_);
  return true;
}

// A leader combines into its slot (for the root), the root into its output; each source is
// taken as soon as it has posted the round.
bool Reduction::combine_group() {
  std::int64_t count = chunk_elements();
  std::uint64_t offset = round_ * chunk_ * element_;
  int first = static_cast<int>(round_ % 2) * 2;
  std::byte* acc = is_root() ? out_.packed(offset) : half_of(arena_.rank());
  if (phase_ == 0) {
    if (!is_root() && !arena_.parts_writable(first, 2)) return false;
    if (acc != in_.packed(offset)) in_.pack(offset, acc, count * element_);
    phase_ = 1;
    cursor_ = 0;
  }
  for (; cursor_ < static_cast<int>(sources_.size()); ++cursor_) {
    int r = sources_[static_cast<std::size_t>(cursor_)];
    if (!arena_.reached(r, step_value(seq_, 2 * round_ + 2))) return false;
    apply(half_of(r), acc, count);
  }
  std::uint64_t done = step_value(seq_, 2 * round_ + 2);
  arena_.post(done);
  if (!is_root()) arena_.parts_written(first, 2, done, root_);
  return true;
}

}  // namespace gpurun::coll::shm
