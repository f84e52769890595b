// The copy probe: its decision rule, its names, and a real measurement between two CPUs of
// this machine (the probe forks a partner; no timing is asserted, only that it measured, left
// this thread's affinity as it was and reaped its partner).
#include "runtime/topo/copy_probe.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>

#include "runtime/topo/cpu_set.h"

namespace gpurun::topo {
namespace {

TEST(CopyProbe, CmaMustWinClearly) {
  EXPECT_EQ(decide_host_copy(7.7, 4.8), HostCopy::kCma);
  EXPECT_EQ(decide_host_copy(10.0, 8.5), HostCopy::kPipeline);  // within the margin
  EXPECT_EQ(decide_host_copy(3.0, 3.0), HostCopy::kPipeline);
  EXPECT_EQ(decide_host_copy(2.0, 6.0), HostCopy::kPipeline);
}

// The shm eager limit is the largest size at which one packet is not slower than CMA in the
// probe: 16K where the packet wins at 16K (a 2-core AMD EPYC: 1.2 against 2.8 us), or ties;
// 8K where CMA wins at 16K only; 4K where CMA wins at 8K too (a 2-core Intel Xeon).
TEST(CopyProbe, ShmEagerLimitIsWherePacketsStopWinning) {
  EXPECT_EQ(
      decide_shm_eager(
          {.packet_us = 1.2, .packet_cma_us = 2.8, .small_packet_us = 0.8, .small_cma_us = 2.0}),
      kPacketBytes);
  EXPECT_EQ(
      decide_shm_eager(
          {.packet_us = 2.6, .packet_cma_us = 2.6, .small_packet_us = 2.0, .small_cma_us = 1.0}),
      kPacketBytes)
      << "a tie at 16K keeps the packet, whatever 8K says";
  EXPECT_EQ(
      decide_shm_eager(
          {.packet_us = 3.0, .packet_cma_us = 2.6, .small_packet_us = 1.4, .small_cma_us = 1.9}),
      kSmallPacketBytes);
  EXPECT_EQ(
      decide_shm_eager(
          {.packet_us = 3.0, .packet_cma_us = 2.6, .small_packet_us = 1.9, .small_cma_us = 1.5}),
      kShmEagerFloor);
  EXPECT_EQ(kPacketBytes, std::size_t{16} << 10);
  EXPECT_EQ(kSmallPacketBytes, std::size_t{8} << 10);
  EXPECT_EQ(kShmEagerFloor, std::size_t{4} << 10);
}

TEST(CopyProbe, NamesRoundTrip) {
  for (HostCopy copy : {HostCopy::kPipeline, HostCopy::kCma})
    EXPECT_EQ(parse_host_copy(host_copy_name(copy)), copy);
  EXPECT_EQ(host_copy_name(HostCopy::kCma), "cma");
  EXPECT_EQ(host_copy_name(std::optional<HostCopy>()), "unknown");
  EXPECT_EQ(parse_host_copy("fast"), std::nullopt);
}

TEST(CopyProbe, MeasuresBetweenTwoCpusAndLeavesNothingBehind) {
  auto own = CpuSet::of_calling_thread();
  ASSERT_TRUE(own.ok());
  if (own->size() < 2) GTEST_SKIP() << "one CPU: nothing to measure between";
  int a = own->cpus()[0], b = own->cpus()[1];
  CopyProbe probe = probe_host_copy(a, b);
  ASSERT_TRUE(probe.copy.has_value()) << probe.why;
  std::printf("copy probe: %s\n", probe.why.c_str());
  EXPECT_EQ(probe.cpu_a, a);
  EXPECT_EQ(probe.cpu_b, b);
  EXPECT_GT(probe.pipeline_us, 0.0);
  EXPECT_NE(probe.why.find("64K between CPUs " + std::to_string(a) + " and " + std::to_string(b)),
            std::string::npos)
      << probe.why;
  if (probe.cma_us > 0) {
    EXPECT_EQ(probe.copy, decide_host_copy(probe.pipeline_us, probe.cma_us));
    EXPECT_GT(probe.eager.packet_us, 0.0);
    EXPECT_GT(probe.eager.small_packet_us, 0.0);
    EXPECT_GT(probe.eager.small_cma_us, 0.0);
    EXPECT_EQ(probe.shm_eager, decide_shm_eager(probe.eager));
    EXPECT_NE(probe.why.find("16K: one packet"), std::string::npos) << probe.why;
    EXPECT_NE(probe.why.find("8K: one packet"), std::string::npos) << probe.why;
  } else {
    EXPECT_EQ(probe.shm_eager, 0u) << "no CMA: the pml's own limit";
  }
  auto after = CpuSet::of_calling_thread();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *own) << "the probe pins this thread only while it runs";
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "the partner is reaped";
  EXPECT_EQ(errno, ECHILD);
}

TEST(CopyProbe, OneCpuOrAForbiddenOneIsNotMeasured) {
  auto own = CpuSet::of_calling_thread();
  ASSERT_TRUE(own.ok());
  int a = own->cpus()[0];
  CopyProbe same = probe_host_copy(a, a);
  EXPECT_FALSE(same.copy.has_value());
  EXPECT_NE(same.why.find("not measured"), std::string::npos);
  // A CPU number no machine here has: the partner cannot be pinned there.
  CopyProbe away = probe_host_copy(a, CPU_SETSIZE - 1);
  EXPECT_FALSE(away.copy.has_value());
  EXPECT_NE(away.why.find("cannot run on CPU " + std::to_string(CPU_SETSIZE - 1)),
            std::string::npos)
      << away.why;
  auto after = CpuSet::of_calling_thread();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *own);
}

}  // namespace
}  // namespace gpurun::topo
