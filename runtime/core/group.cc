#include "runtime/core/group.h"

#include <algorithm>
#include <string>

namespace gpurun::core {
namespace {

Status bad_rank(const char* what, std::size_t index, int rank, int size) {
  return Status(ErrorCode::kOutOfRange,
                std::string(what) + "[" + std::to_string(index) + "] " + std::to_string(rank) +
                    " is not a rank of the group (size " + std::to_string(size) + ")");
}

// Marks ranks[i] in `seen`; fails for a rank out of range or named before.
Status mark_ranks(std::span<const int> ranks, int size, const char* what, std::vector<int>& seen) {
  seen.assign(static_cast<std::size_t>(size), -1);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    int r = ranks[i];
    if (r < 0 || r >= size) return bad_rank(what, i, r, size);
    if (seen[r] >= 0) {
      return Status(ErrorCode::kOutOfRange, std::string(what) + "[" + std::to_string(i) +
                                                "] names rank " + std::to_string(r) +
                                                " again (first at index " +
                                                std::to_string(seen[r]) + ")");
    }
    seen[r] = static_cast<int>(i);
  }
  return ok_status();
}

GroupPtr make(std::vector<int> job_ranks) {
  if (job_ranks.empty()) return Group::empty();
  return Group::of(std::move(job_ranks));
}

}  // namespace

Group::Group(int size, bool identity, std::vector<int> job_ranks)
    : size_(size), identity_(identity), job_ranks_(std::move(job_ranks)) {
  if (identity_) return;
  by_job_rank_.reserve(job_ranks_.size());
  for (int r = 0; r < size_; ++r) by_job_rank_.emplace_back(job_ranks_[r], r);
  std::sort(by_job_rank_.begin(), by_job_rank_.end());
}

std::shared_ptr<const Group> Group::identity(int size) {
  return std::shared_ptr<const Group>(new Group(size, true, {}));
}

std::shared_ptr<const Group> Group::of(std::vector<int> job_ranks) {
  int size = static_cast<int>(job_ranks.size());
  return std::shared_ptr<const Group>(new Group(size, false, std::move(job_ranks)));
}

const std::shared_ptr<const Group>& Group::empty() {
  static const auto* g = new std::shared_ptr<const Group>(new Group(0, false, {}));
  return *g;
}

int Group::rank_of(int job_rank) const {
  if (identity_) return (job_rank >= 0 && job_rank < size_) ? job_rank : -1;
  auto it =
      std::lower_bound(by_job_rank_.begin(), by_job_rank_.end(), std::make_pair(job_rank, -1));
  return (it != by_job_rank_.end() && it->first == job_rank) ? it->second : -1;
}

std::vector<int> Group::job_ranks() const {
  if (!identity_) return job_ranks_;
  std::vector<int> out(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) out[r] = r;
  return out;
}

GroupRelation compare(const Group& a, const Group& b) {
  if (a.size() != b.size()) return GroupRelation::kUnequal;
  bool same_order = true;
  for (int r = 0; r < a.size(); ++r) {
    int other = b.rank_of(a.job_rank(r));
    if (other < 0) return GroupRelation::kUnequal;
    if (other != r) same_order = false;
  }
  return same_order ? GroupRelation::kIdent : GroupRelation::kSimilar;
}

Result<GroupPtr> include(const Group& g, std::span<const int> ranks) {
  std::vector<int> seen;
  GPURUN_TRY(mark_ranks(ranks, g.size(), "ranks", seen));
  std::vector<int> members;
  members.reserve(ranks.size());
  for (int r : ranks) members.push_back(g.job_rank(r));
  return make(std::move(members));
}

Result<GroupPtr> exclude(const Group& g, std::span<const int> ranks) {
  std::vector<int> seen;
  GPURUN_TRY(mark_ranks(ranks, g.size(), "ranks", seen));
  std::vector<int> members;
  for (int r = 0; r < g.size(); ++r)
    if (seen[r] < 0) members.push_back(g.job_rank(r));
  return make(std::move(members));
}

Result<std::vector<int>> expand_ranges(std::span<const RankRange> ranges, int size) {
  std::vector<int> out;
  std::vector<int> named_by(static_cast<std::size_t>(size), -1);  // the range naming each rank
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const RankRange& t = ranges[i];
    std::string where = "ranges[" + std::to_string(i) + "] (" + std::to_string(t.first) + ", " +
                        std::to_string(t.last) + ", " + std::to_string(t.stride) + ")";
    if (t.stride == 0) return Status(ErrorCode::kInvalidArgument, where + " has stride 0");
    if (t.first < 0 || t.first >= size || t.last < 0 || t.last >= size) {
      return Status(ErrorCode::kOutOfRange,
                    where + " goes outside the group (size " + std::to_string(size) + ")");
    }
    // floor((last - first) / stride) + 1 ranks: none when the stride points away from last.
    std::int64_t diff = static_cast<std::int64_t>(t.last) - t.first;
    std::int64_t n = (diff != 0 && (diff < 0) != (t.stride < 0)) ? 0 : diff / t.stride + 1;
    for (std::int64_t k = 0; k < n; ++k) {
      int r = static_cast<int>(t.first + k * static_cast<std::int64_t>(t.stride));
      if (named_by[r] >= 0) {
        return Status(ErrorCode::kOutOfRange, where + " names rank " + std::to_string(r) +
                                                  ", which ranges[" + std::to_string(named_by[r]) +
                                                  "] names too");
      }
      named_by[r] = static_cast<int>(i);
      out.push_back(r);
    }
  }
  return out;
}

Result<GroupPtr> include_ranges(const Group& g, std::span<const RankRange> ranges) {
  GPURUN_ASSIGN_OR_RETURN(std::vector<int> ranks, expand_ranges(ranges, g.size()));
  return include(g, ranks);
}

Result<GroupPtr> exclude_ranges(const Group& g, std::span<const RankRange> ranges) {
  GPURUN_ASSIGN_OR_RETURN(std::vector<int> ranks, expand_ranges(ranges, g.size()));
  return exclude(g, ranks);
}

GroupPtr set_union(const Group& a, const Group& b) {
  std::vector<int> members = a.job_ranks();
  for (int r = 0; r < b.size(); ++r)
    if (!a.contains(b.job_rank(r))) members.push_back(b.job_rank(r));
  return make(std::move(members));
}

GroupPtr intersection(const Group& a, const Group& b) {
  std::vector<int> members;
  for (int r = 0; r < a.size(); ++r)
    if (b.contains(a.job_rank(r))) members.push_back(a.job_rank(r));
  return make(std::move(members));
}

GroupPtr difference(const Group& a, const Group& b) {
  std::vector<int> members;
  for (int r = 0; r < a.size(); ++r)
    if (!b.contains(a.job_rank(r))) members.push_back(a.job_rank(r));
  return make(std::move(members));
}

Result<std::vector<int>> translate(const Group& from, std::span<const int> ranks, const Group& to,
                                   int absent, int proc_null) {
  std::vector<int> out(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    int r = ranks[i];
    if (r == proc_null) {
      out[i] = proc_null;
      continue;
    }
    if (r < 0 || r >= from.size()) return bad_rank("ranks1", i, r, from.size());
    int t = to.rank_of(from.job_rank(r));
    out[i] = t < 0 ? absent : t;
  }
  return out;
}

}  // namespace gpurun::core
