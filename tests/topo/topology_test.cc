#include "runtime/topo/topology.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace gpurun::topo {
namespace {

TEST(Topology, SyntheticTwoPackagesOfFourCoresWithTwoThreads) {
  auto topo = Topology::load_synthetic("pack:2 core:4 pu:2");
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->num_packages(), 2);
  EXPECT_EQ(topo->num_cores(), 8);
  EXPECT_EQ(topo->num_pus(), 16);
  EXPECT_FALSE(topo->is_this_system());
  // Synthetic topologies number PUs in order, so core i holds PUs 2i and 2i+1.
  for (const Core& core : topo->cores()) {
    EXPECT_EQ(core.pus, CpuSet({2 * core.index, 2 * core.index + 1})) << core.index;
    EXPECT_EQ(core.package, core.index / 4) << core.index;
  }
  EXPECT_EQ(topo->all_pus().to_string(), "0-15");
}

TEST(Topology, CoresWithinAnAllowedSetKeepOnlyAllowedPus) {
  auto topo = Topology::load_synthetic("pack:2 core:4 pu:2");
  ASSERT_TRUE(topo.ok());
  // PUs 1, 2 and 3 touch cores 0 and 1; PU 9 touches core 4 (first core of package 1).
  auto cores = topo->cores_within(CpuSet({1, 2, 3, 9}));
  ASSERT_EQ(cores.size(), 3u);
  EXPECT_EQ(cores[0].index, 0);
  EXPECT_EQ(cores[0].pus, CpuSet({1}));
  EXPECT_EQ(cores[1].pus, CpuSet({2, 3}));
  EXPECT_EQ(cores[2].index, 4);
  EXPECT_EQ(cores[2].package, 1);
  EXPECT_TRUE(topo->cores_within(CpuSet({99})).empty());
}

TEST(Topology, NoCoreLevelFallsBackToPus) {
  auto topo = Topology::load_synthetic("pack:1 pu:3");
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->num_cores(), 3);
  EXPECT_EQ(topo->cores()[2].pus, CpuSet({2}));
}

TEST(Topology, RejectsABadSyntheticDescription) {
  auto topo = Topology::load_synthetic("pack:two");
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), ErrorCode::kInvalidArgument);
}

TEST(Topology, HostTopologyCoversTheOnlineCpus) {
  auto topo = Topology::load_host();
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_TRUE(topo->is_this_system());
  EXPECT_GE(topo->num_cores(), 1);
  EXPECT_EQ(topo->num_pus(), static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  auto allowed = CpuSet::of_calling_thread();
  ASSERT_TRUE(allowed.ok());
  EXPECT_FALSE(topo->cores_within(*allowed).empty());
}

}  // namespace
}  // namespace gpurun::topo
