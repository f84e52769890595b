// A group: an ordered set of processes, named by their rank in the job (MPI_COMM_WORLD), and
// the set operations of MPI's group calls. Groups are immutable and shared (std::shared_ptr
// <const Group>) by the communicators and group handles that name them.
//
// The operations check their arguments and return kOutOfRange for a rank that is not in the
// group or named twice, kInvalidArgument for other bad input (a stride of 0); the message names
// the offending entry. Thread-safety: a Group is immutable, so any thread may read it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::core {

class Group {
 public:
  // The first `size` job ranks, in order (MPI_COMM_WORLD's group) without storing them.
  static std::shared_ptr<const Group> identity(int size);
  static std::shared_ptr<const Group> of(std::vector<int> job_ranks);
  // The group with no member (MPI_GROUP_EMPTY).
  static const std::shared_ptr<const Group>& empty();

  int size() const { return size_; }
  // Job rank of group rank r (0 <= r < size()).
  int job_rank(int r) const { return identity_ ? r : job_ranks_[r]; }
  // Group rank of a job rank, or -1 when the process is not in the group. O(log size).
  int rank_of(int job_rank) const;
  bool contains(int job_rank) const { return rank_of(job_rank) >= 0; }
  // Every member's job rank, in group order.
  std::vector<int> job_ranks() const;

 private:
  Group(int size, bool identity, std::vector<int> job_ranks);
  int size_;
  bool identity_;
  std::vector<int> job_ranks_;
  std::vector<std::pair<int, int>> by_job_rank_;  // (job rank, group rank), sorted
};

using GroupPtr = std::shared_ptr<const Group>;

// How two groups relate (MPI_Group_compare): same members in the same order, same members in
// another order, or different members.
enum class GroupRelation : std::uint8_t { kIdent, kSimilar, kUnequal };
GroupRelation compare(const Group& a, const Group& b);

// MPI_Group_incl / excl: the members of `g` at `ranks` (in that order) / all but those (in
// group order). Every rank must be a rank of `g`, none repeated.
Result<GroupPtr> include(const Group& g, std::span<const int> ranks);
Result<GroupPtr> exclude(const Group& g, std::span<const int> ranks);

// A rank triplet of MPI_Group_range_incl/excl: first, first + stride, ... up to last.
struct RankRange {
  int first;
  int last;
  int stride;
};
// The ranks that `ranges` name, in order, checked against a group of `size`: first and last
// must be ranks of it, stride non-zero, no rank named twice.
Result<std::vector<int>> expand_ranges(std::span<const RankRange> ranges, int size);
Result<GroupPtr> include_ranges(const Group& g, std::span<const RankRange> ranges);
Result<GroupPtr> exclude_ranges(const Group& g, std::span<const RankRange> ranges);

// MPI_Group_union: a's members, then b's that are not in a. intersection: a's members that are
// in b. difference: a's members that are not in b. All keep the order of a (then b).
GroupPtr set_union(const Group& a, const Group& b);
GroupPtr intersection(const Group& a, const Group& b);
GroupPtr difference(const Group& a, const Group& b);

// MPI_Group_translate_ranks: for each rank of `from` in `ranks`, its rank in `to`, or
// `absent` when that process is not in `to`; `proc_null` entries stay as they are.
Result<std::vector<int>> translate(const Group& from, std::span<const int> ranks, const Group& to,
                                   int absent, int proc_null);

}  // namespace gpurun::core
