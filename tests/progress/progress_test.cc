#include "runtime/progress/progress.h"

#include <gtest/gtest.h>

namespace gpurun::progress {
namespace {

TEST(SpareCpu, OnlyWhenTheRankMayMoveAndTheHostHasMoreCpusThanRanks) {
  EXPECT_FALSE(spare_cpu(1, 64, 8));  // bound to one core: the helper would take it
  EXPECT_TRUE(spare_cpu(16, 64, 8));  // bound to a GPU's NUMA node of 16 CPUs
  EXPECT_FALSE(spare_cpu(2, 2, 2));   // unbound, every CPU has its rank (2 ranks, 2 cores)
  EXPECT_TRUE(spare_cpu(2, 2, 1));    // a single rank on 2 CPUs
  EXPECT_FALSE(spare_cpu(2, 2, 4));   // ranks outnumber CPUs
}

}  // namespace
}  // namespace gpurun::progress
