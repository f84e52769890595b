#include "runtime/topo/cpu_set.h"

#include <gtest/gtest.h>

namespace gpurun::topo {
namespace {

TEST(CpuSet, ParsesAndFormatsKernelLists) {
  auto set = CpuSet::parse("0-3,8,10-11");
  ASSERT_TRUE(set.ok()) << set.status().to_string();
  EXPECT_EQ(set->cpus(), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(set->to_string(), "0-3,8,10-11");
  EXPECT_TRUE(set->contains(8));
  EXPECT_FALSE(set->contains(9));
  EXPECT_FALSE(CpuSet::parse("3-1").ok());
  EXPECT_FALSE(CpuSet::parse("a,b").ok());
  EXPECT_FALSE(CpuSet::parse("1,,2").ok());
  EXPECT_TRUE(CpuSet::parse("").ok());
}

TEST(CpuSet, SortsDeduplicatesAndIntersects) {
  CpuSet a({5, 1, 3, 1});
  EXPECT_EQ(a.cpus(), (std::vector<int>{1, 3, 5}));
  CpuSet b({3, 4, 5});
  EXPECT_EQ(a.intersect(b), CpuSet({3, 5}));
  EXPECT_TRUE(a.intersect(CpuSet()).empty());
}

TEST(CpuSet, KeysTellSetsApart) {
  EXPECT_EQ(CpuSet().key(), 0u);
  EXPECT_EQ(CpuSet({1, 3}).key(), CpuSet({3, 1, 3}).key());
  EXPECT_NE(CpuSet({0}).key(), 0u);
  EXPECT_NE(CpuSet({0}).key(), CpuSet({1}).key());
  EXPECT_NE(CpuSet({0, 1}).key(), CpuSet({0}).key());
  EXPECT_NE(CpuSet({0, 1}).key(), CpuSet({1}).key());
}

TEST(CpuSet, ConvertsToTheKernelMask) {
  cpu_set_t mask;
  ASSERT_TRUE(CpuSet({0, 2}).to_cpu_set(mask).ok());
  EXPECT_EQ(CPU_COUNT(&mask), 2);
  EXPECT_TRUE(CPU_ISSET(2, &mask));
  EXPECT_FALSE(CpuSet({CPU_SETSIZE}).to_cpu_set(mask).ok());
}

TEST(CpuSet, CallingThreadHasAtLeastOneCpu) {
  auto set = CpuSet::of_calling_thread();
  ASSERT_TRUE(set.ok()) << set.status().to_string();
  EXPECT_FALSE(set->empty());
}

}  // namespace
}  // namespace gpurun::topo
