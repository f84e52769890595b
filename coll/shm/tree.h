// The tree of flags that barriers and small reductions use in teams above
// GPURUN_COLL_SHM_FLAT_MAX ranks. Ranks form groups of `radix` consecutive ranks whose first
// rank (the leader) combines the group; the leaders form groups of `radix` again, and so on up
// to rank 0. Every subtree is a range of consecutive ranks, so a reduction up the tree combines
// in rank order (non-commutative ops need it).
//
// Cost: ceil(log_radix p) flag hops up, one down (everyone reads rank 0's line), instead of
// reading p - 1 lines each.
#pragma once

#include <vector>

namespace gpurun::coll::shm {

struct TreeChild {
  int rank;
  int level;  // 0: a member of this rank's own group; 1: a leader of a group of groups...
};

// Rank r's parent (-1 for rank 0).
inline int tree_parent(int r, int radix) {
  if (r == 0) return -1;
  long stride = radix;
  while (r % stride == 0) stride *= radix;
  return static_cast<int>(r - r % stride);
}

// Rank r's children, lowest level first and in rank order within a level.
inline std::vector<TreeChild> tree_children(int r, int size, int radix) {
  std::vector<TreeChild> children;
  long stride = 1;
  for (int level = 0; stride < size && r % (stride * radix) == 0; ++level, stride *= radix) {
    for (int j = 1; j < radix; ++j) {
      long child = r + j * stride;
      if (child >= size) break;
      children.push_back(TreeChild{static_cast<int>(child), level});
    }
  }
  return children;
}

}  // namespace gpurun::coll::shm
