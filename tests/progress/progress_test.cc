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

// A poller that counts its calls and reports one event per call.
int count_call(void* context) {
  ++*static_cast<int*>(context);
  return 1;
}

TEST(Engine, PollerWithPendingWordRunsOnlyWhileTheWordIsNotZero) {
  Engine engine;
  int always = 0;
  int watched = 0;
  PendingWord pending{0};
  engine.add(count_call, &always, "always");
  engine.add(count_call, &watched, "watched", &pending);
  EXPECT_EQ(engine.poll(), 1);  // nothing pending: only the poller without a word ran
  EXPECT_EQ(always, 1);
  EXPECT_EQ(watched, 0);
  pending = 3;
  EXPECT_EQ(engine.poll(), 2);
  EXPECT_EQ(watched, 1);
  pending = 0;
  engine.poll();
  EXPECT_EQ(always, 3);
  EXPECT_EQ(watched, 1);
}

}  // namespace
}  // namespace gpurun::progress
