// A group: an ordered set of processes, named by their rank in the job (MPI_COMM_WORLD).
#pragma once

#include <memory>
#include <vector>

namespace gpurun::core {

class Group {
 public:
  // The first `size` job ranks, in order (MPI_COMM_WORLD's group) without storing them.
  static std::shared_ptr<const Group> identity(int size);
  static std::shared_ptr<const Group> of(std::vector<int> job_ranks);

  int size() const { return size_; }
  // Job rank of group rank r (0 <= r < size()).
  int job_rank(int r) const { return identity_ ? r : job_ranks_[r]; }
  // Group rank of a job rank, or -1 when the process is not in the group.
  int rank_of(int job_rank) const;

 private:
  Group(int size, bool identity, std::vector<int> job_ranks)
      : size_(size), identity_(identity), job_ranks_(std::move(job_ranks)) {}
  int size_;
  bool identity_;
  std::vector<int> job_ranks_;
};

}  // namespace gpurun::core
