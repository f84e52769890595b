// Placement by GPU on the fixture topologies: which GPUs, NIC and CPUs each rank gets.
#include "launcher/placement.h"

#include <gtest/gtest.h>

#include "launcher/plan.h"
#include "tests/topo/fixtures.h"

namespace gpurun::launcher {
namespace {

using topo::load_fixture;

std::vector<topo::Core> all_cores(const topo::Topology& t) { return t.cores_within(t.all_pus()); }

Placement place(const topo::Topology& t, PlacementRequest request) {
  return place_on(t, all_cores(t), request);
}

std::vector<std::vector<int>> gpus_of(const Placement& p) {
  std::vector<std::vector<int>> out;
  for (const RankPlace& rank : p.ranks) out.push_back(rank.gpus);
  return out;
}

TEST(GpuPlacement, OneRankPerGpuOnDgx) {
  topo::Topology t = load_fixture(topo::kDgx);
  Placement p = place(t, {.np = 8});
  EXPECT_TRUE(p.by_gpu);
  EXPECT_FALSE(p.oversubscribed);
  ASSERT_EQ(p.ranks.size(), 8u);
  for (int r = 0; r < 8; ++r) {
    const RankPlace& rank = p.ranks[static_cast<std::size_t>(r)];
    EXPECT_EQ(rank.gpus, std::vector<int>{r});
    EXPECT_EQ(rank.nic, r);  // the NIC under the GPU's own switch
    ASSERT_TRUE(rank.cpus.has_value());
    EXPECT_EQ(rank.cpus->to_string(), r < 4 ? "0-111" : "112-223");
  }
}

TEST(GpuPlacement, MoreRanksThanGpusArePackedEvenly) {
  topo::Topology t = load_fixture(topo::kPcie);
  EXPECT_EQ(gpus_of(place(t, {.np = 6})),
            (std::vector<std::vector<int>>{{0}, {0}, {1}, {1}, {2}, {3}}));
  EXPECT_EQ(gpus_of(place(t, {.np = 9, .map_by = MapBy::kGpu})),
            (std::vector<std::vector<int>>{{0}, {0}, {0}, {1}, {1}, {2}, {2}, {3}, {3}}));
  EXPECT_EQ(gpus_of(place(t, {.np = 2})), (std::vector<std::vector<int>>{{0}, {1}}));
}

TEST(GpuPlacement, SeveralGpusPerRankOrAnError) {
  topo::Topology t = load_fixture(topo::kPcie);
  Placement p = place(t, {.np = 2, .gpus_per_rank = 2});
  EXPECT_EQ(gpus_of(p), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  // Bound to the CPUs of both its GPUs; its NIC is the one nearest its first GPU.
  EXPECT_EQ(p.ranks[1].cpus->to_string(), "32-63");
  EXPECT_EQ(p.ranks[0].nic, 0);
  EXPECT_EQ(p.ranks[1].nic, 2);
  try {
    place(t, {.np = 3, .gpus_per_rank = 2});
    FAIL() << "3 ranks of 2 GPUs placed on 4 GPUs";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--gpus-per-rank 2 with -np 3 needs 6 GPUs; this host has 4 GPUs");
  }
  topo::Topology none = load_fixture(topo::kNoGpu);
  EXPECT_THROW(place(none, {.np = 1, .gpus_per_rank = 1}), UsageError);
  EXPECT_THROW(place(none, {.np = 1, .map_by = MapBy::kGpu}), UsageError);
  EXPECT_FALSE(place(none, {.np = 2}).by_gpu);  // auto: by core
}

TEST(GpuPlacement, HiddenGpusAreNotUsed) {
  topo::Topology t = load_fixture(topo::kPcie);
  Placement p = place(t, {.np = 3, .hidden_gpus = {0, 1}});
  EXPECT_EQ(gpus_of(p), (std::vector<std::vector<int>>{{2}, {2}, {3}}));
  EXPECT_THROW(place(t, {.np = 1, .map_by = MapBy::kGpu, .hidden_gpus = {0, 1, 2, 3}}), UsageError);
  // Every GPU hidden and no GPU asked for: placed by core, as without GPUs.
  EXPECT_FALSE(place(t, {.np = 1, .hidden_gpus = {0, 1, 2, 3}}).by_gpu);
}

TEST(GpuPlacement, MapByCoreIgnoresTheGpus) {
  topo::Topology t = load_fixture(topo::kDgx);
  Placement p = place(t, {.np = 2, .map_by = MapBy::kCore});
  EXPECT_FALSE(p.by_gpu);
  EXPECT_TRUE(p.ranks[0].gpus.empty());
  EXPECT_EQ(p.ranks[0].nic, -1);
  EXPECT_EQ(p.ranks[1].cpus->to_string(), "2-3");  // one core each, as without GPUs
}

TEST(GpuPlacement, BindToCoreTakesCoresOfTheGpuNumaNode) {
  topo::Topology t = load_fixture(topo::kDgx);
  Placement p = place(t, {.np = 8, .bind = BindTo::kCore});
  EXPECT_EQ(p.ranks[0].cpus->to_string(), "0-1");
  EXPECT_EQ(p.ranks[3].cpus->to_string(), "6-7");
  EXPECT_EQ(p.ranks[4].cpus->to_string(), "112-113");
  Placement none = place(t, {.np = 2, .bind = BindTo::kNone});
  EXPECT_FALSE(none.ranks[0].cpus.has_value());
  EXPECT_EQ(none.ranks[1].gpus, std::vector<int>{1});
}

// Open MPI's domain mappings on a GPU host: each rank also gets the GPU near its domain with the
// fewest ranks so far, and that GPU's NIC (job scripts say --map-by ppr:4:socket on such nodes).
TEST(GpuPlacement, DomainMappingsGiveEachRankAGpuOfItsDomain) {
  topo::Topology t = load_fixture(topo::kDgx);  // GPUs 0-3 on package 0, 4-7 on package 1
  Placement ppr = place(t, {.np = 8, .map_by = MapBy::kPackage, .ranks_per_domain = 4});
  EXPECT_FALSE(ppr.by_gpu);
  EXPECT_TRUE(ppr.has_gpus());
  EXPECT_EQ(gpus_of(ppr), (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
  EXPECT_EQ(ppr.ranks[5].nic, 5);
  EXPECT_EQ(ppr.ranks[5].cpus->to_string(), "112-223");
  // Dealt over the sockets, then shared once each has one rank; a socket's GPUs stay its own.
  Placement dealt = place(t, {.np = 10, .bind = BindTo::kCore, .map_by = MapBy::kPackage});
  EXPECT_EQ(gpus_of(dealt),
            (std::vector<std::vector<int>>{{0}, {4}, {1}, {5}, {2}, {6}, {3}, {7}, {0}, {4}}));
  EXPECT_EQ(dealt.ranks[9].cpus->to_string(), "120-121");
  // Hidden GPUs are not given: package 0 keeps GPU 3 only.
  Placement hidden = place(t, {.np = 4, .map_by = MapBy::kNuma, .hidden_gpus = {0, 1, 2}});
  EXPECT_EQ(gpus_of(hidden), (std::vector<std::vector<int>>{{3}, {4}, {3}, {5}}));
  // No GPU on the host: none given, as before.
  Placement none = place(load_fixture(topo::kNoGpu), {.np = 2, .map_by = MapBy::kNuma});
  EXPECT_FALSE(none.has_gpus());
  EXPECT_EQ(none.ranks[1].nic, -1);
}

// Ranks that run threads: --cpus-per-rank N (or their OMP_NUM_THREADS) binds each to N
// consecutive cores wherever ranks are bound to cores; bound to a GPU's NUMA node, a rank has
// its cores already.
TEST(CorePlacement, CpusPerRankTakesConsecutiveCores) {
  topo::Topology t = load_fixture(topo::kDgx);  // 112 cores of two PUs, 56 a NUMA node
  Placement p = place(t, {.np = 4, .map_by = MapBy::kCore, .cpus_per_rank = 8});
  EXPECT_EQ(p.ranks[0].cpus->to_string(), "0-15");
  EXPECT_EQ(p.ranks[3].cpus->to_string(), "48-63");
  Placement near_gpus = place(t, {.np = 8, .bind = BindTo::kCore, .cpus_per_rank = 2});
  EXPECT_EQ(near_gpus.ranks[1].cpus->to_string(), "4-7");  // node 0's second pair of cores
  EXPECT_EQ(near_gpus.ranks[4].cpus->to_string(), "112-115");
  Placement node = place(t, {.np = 8, .cpus_per_rank = 2});
  EXPECT_EQ(node.ranks[0].cpus->to_string(), "0-111");
}

TEST(CorePlacement, CpusPerRankThatDoNotFit) {
  topo::Topology t = load_fixture(topo::kDgx);
  EXPECT_THROW(place(t, {.np = 8, .map_by = MapBy::kCore, .cpus_per_rank = 16}), UsageError);
  // From OMP_NUM_THREADS: as many as fit, 112 / 8 = 14 cores each.
  Placement shrunk =
      place(t, {.np = 8, .map_by = MapBy::kCore, .cpus_per_rank = 16, .cpus_strict = false});
  EXPECT_EQ(shrunk.ranks[1].cpus->to_string(), "28-55");
  Placement unbound =
      place(t, {.np = 8, .bind = BindTo::kNone, .map_by = MapBy::kCore, .cpus_per_rank = 16});
  EXPECT_FALSE(unbound.ranks[0].cpus.has_value());
}

// Open MPI's --bind-to numa and socket: the cores a rank would get, widened to their domains.
TEST(CorePlacement, BindToNumaOrPackageWidensTheCores) {
  topo::Topology t = load_fixture(topo::kDgx);  // two packages, a NUMA node each
  Placement numa = place(t, {.np = 4, .bind = BindTo::kNuma, .map_by = MapBy::kCore});
  for (const RankPlace& rank : numa.ranks) EXPECT_EQ(rank.cpus->to_string(), "0-111");
  Placement spread =
      place(t, {.np = 2, .bind = BindTo::kNuma, .map_by = MapBy::kCore, .cpus_per_rank = 56});
  EXPECT_EQ(spread.ranks[1].cpus->to_string(), "112-223");  // cores 56-111: node 1
  Placement sockets = place(t, {.np = 8, .bind = BindTo::kPackage});
  EXPECT_TRUE(sockets.by_gpu);
  EXPECT_EQ(sockets.ranks[3].cpus->to_string(), "0-111");
  EXPECT_EQ(sockets.ranks[4].cpus->to_string(), "112-223");
}

topo::Topology synthetic(std::string_view description) {
  auto t = topo::Topology::load_synthetic(description);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(t).value() : std::move(topo::Topology::load_synthetic("pu:1").value());
}

// Open MPI's --bind-to hwthread: one hardware thread of the rank's core; ranks that share a
// core take its threads in turn and are oversubscribed only beyond them.
TEST(CorePlacement, BindToHwthreadTakesOneThreadOfTheCore) {
  topo::Topology dgx = load_fixture(topo::kDgx);  // cores of two PUs: 0-1, 2-3, ...
  Placement spread = place(dgx, {.np = 4, .bind = BindTo::kHwthread, .map_by = MapBy::kCore});
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(spread.ranks[static_cast<std::size_t>(r)].cpus->to_string(), std::to_string(2 * r));
  topo::Topology small = synthetic("pack:1 core:2 pu:2");
  Placement shared = place(small, {.np = 4, .bind = BindTo::kHwthread});
  EXPECT_FALSE(shared.oversubscribed);  // four ranks, four threads
  std::vector<std::string> cpus;
  for (const RankPlace& rank : shared.ranks) cpus.push_back(rank.cpus->to_string());
  EXPECT_EQ(cpus, (std::vector<std::string>{"0", "1", "2", "3"}));
  Placement crowded = place(small, {.np = 6, .bind = BindTo::kHwthread});
  EXPECT_TRUE(crowded.oversubscribed);
  Placement wide = place(synthetic("pack:1 core:4 pu:2"),
                         {.np = 2, .bind = BindTo::kHwthread, .cpus_per_rank = 2});
  EXPECT_EQ(wide.ranks[0].cpus->to_string(), "0,2");  // a thread of each of its two cores
  EXPECT_EQ(wide.ranks[1].cpus->to_string(), "4,6");
}

// Open MPI's --use-hwthread-cpus (--map-by hwthread): every hardware thread is a core.
TEST(CorePlacement, HardwareThreadsAsCores) {
  topo::Topology small = synthetic("pack:1 core:2 pu:2");
  std::vector<topo::Core> threads = threads_as_cores(all_cores(small));
  ASSERT_EQ(threads.size(), 4u);
  EXPECT_EQ(threads[3].pus.to_string(), "3");
  Placement p = place_on(small, threads, {.np = 4, .map_by = MapBy::kCore});
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.ranks[1].cpus->to_string(), "1");
  topo::Topology dgx = load_fixture(topo::kDgx);  // a file: all of its 224 threads
  Placement all = place_ranks(dgx, {.np = 224, .map_by = MapBy::kCore, .hwthread_cpus = true});
  EXPECT_FALSE(all.oversubscribed);
  EXPECT_EQ(all.cores, 224);
  EXPECT_EQ(all.ranks[223].cpus->to_string(), "223");
  EXPECT_TRUE(place_ranks(dgx, {.np = 224, .map_by = MapBy::kCore}).oversubscribed);
}

// --bind-to l3cache: the cores a rank would get, widened to the L3 caches above them.
TEST(CorePlacement, BindToL3CacheWidensToTheCache) {
  topo::Topology t = synthetic("pack:1 l3:2 core:2 pu:1");  // two caches of two cores
  Placement p = place(t, {.np = 4, .bind = BindTo::kL3});
  std::vector<std::string> cpus;
  for (const RankPlace& rank : p.ranks) cpus.push_back(rank.cpus->to_string());
  EXPECT_EQ(cpus, (std::vector<std::string>{"0-1", "0-1", "2-3", "2-3"}));
  topo::Topology no_l3 = synthetic("pack:1 core:2 pu:1");
  EXPECT_EQ(place(no_l3, {.np = 2, .bind = BindTo::kL3}).ranks[1].cpus->to_string(), "1");
}

TEST(GpuPlacement, OversubscriptionIsStillTracked) {
  topo::Topology t = load_fixture(topo::kGpuNic);  // 8 cores, one GPU
  Placement fits = place(t, {.np = 8});
  EXPECT_FALSE(fits.oversubscribed);
  Placement over = place(t, {.np = 9});
  EXPECT_TRUE(over.oversubscribed);
  EXPECT_EQ(over.ranks[8].cpus->to_string(), "0-15");  // still bound to the NUMA node
  EXPECT_EQ(over.ranks[8].nic, 1);                     // mlx5_0, under the GPU's switch
}

TEST(GpuPlacement, FileTopologiesAreNotBound) {
  topo::Topology t = load_fixture(topo::kDgx);
  Placement p = place_ranks(t, {.np = 2});
  EXPECT_FALSE(p.apply_binding);
  EXPECT_FALSE(p.binding(0).has_value());
  EXPECT_TRUE(p.ranks[0].cpus.has_value());  // computed, for --explain
  EXPECT_EQ(p.cores, 112);                   // the file's cores, not this machine's
}

// A host that shares its machine with other hosts takes its slice of one placement of all
// their ranks: on this machine, the rank of the second of two one-rank hosts gets the second
// core, not the first.
TEST(HostPlan, HostsSharingAMachineTakeTheirSliceOfItsCores) {
  Options options;
  options.bind_to = BindTo::kCore;
  Plan alone = make_host_plan(options, 1, {});
  int cores = alone.placement.cores;
  ASSERT_GE(cores, 1);
  Plan whole = make_host_plan(options, cores, {});
  Plan second = make_host_plan(options, 1, {.first = cores - 1, .ranks = cores});
  ASSERT_EQ(second.placement.ranks.size(), 1u);
  EXPECT_EQ(second.request.np, 1);
  EXPECT_FALSE(second.placement.oversubscribed);
  ASSERT_TRUE(second.placement.ranks[0].cpus.has_value());
  EXPECT_EQ(second.placement.ranks[0].cpus->to_string(),
            whole.placement.ranks.back().cpus->to_string());
  // One more rank on the machine than cores: every host counts as oversubscribed.
  Plan crowded = make_host_plan(Options{}, 1, {.first = 0, .ranks = cores + 1});
  EXPECT_TRUE(crowded.placement.oversubscribed);
  ASSERT_TRUE(crowded.placement.binding(0).has_value());
  EXPECT_EQ(crowded.placement.binding(0)->to_string(),
            whole.placement.ranks.front().cpus->to_string());
}

}  // namespace
}  // namespace gpurun::launcher
