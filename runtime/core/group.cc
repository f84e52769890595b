#include "runtime/core/group.h"

#include <algorithm>

namespace gpurun::core {

std::shared_ptr<const Group> Group::identity(int size) {
  return std::shared_ptr<const Group>(new Group(size, true, {}));
}

std::shared_ptr<const Group> Group::of(std::vector<int> job_ranks) {
  int size = static_cast<int>(job_ranks.size());
  return std::shared_ptr<const Group>(new Group(size, false, std::move(job_ranks)));
}

int Group::rank_of(int job_rank) const {
  if (identity_) return (job_rank >= 0 && job_rank < size_) ? job_rank : -1;
  auto it = std::find(job_ranks_.begin(), job_ranks_.end(), job_rank);
  return it == job_ranks_.end() ? -1 : static_cast<int>(it - job_ranks_.begin());
}

}  // namespace gpurun::core
