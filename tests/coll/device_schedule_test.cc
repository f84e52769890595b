// Schedules on device memory (coll/device_steps.h) without a GPU: the reducing collectives and
// the copying ones run their steps on the fenced test double, whose "device memory" crashes a
// layer that touches it directly. Results are compared with a host reference; the double's
// counters show that the steps ran on the device and nothing was staged (no pinned block, no
// staging block).
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "coll/device_steps.h"
#include "device_coll.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::coll {
namespace {

using testing_util::DeviceCollTest;
using testing_util::FencedDevice;
using testing_util::int_type;
using testing_util::Job;
using testing_util::sum;

int input(int rank, int i) { return (rank + 1) * (i % 13) - 5 * rank; }

// One reducing call: the collective, its root (reduce) and whether it is in place.
struct Reduction {
  Collective collective;
  int root = 0;
  bool in_place = false;
  std::string name() const {
    return std::string(collective_name(collective)) + " root " + std::to_string(root) +
           (in_place ? " in place" : "");
  }
};

class ReductionOnDevice : public DeviceCollTest {
 protected:
  // Runs `c` on p ranks and checks every rank's result against the host reference.
  void check(int p, const Reduction& c, int host_rank = -1) {
    const int n = 37;
    const bool scatter = c.collective == Collective::kReduceScatterBlock ||
                         c.collective == Collective::kReduceScatter;
    const int in_count = scatter ? n * p : n;
    std::vector<std::int64_t> counts(p, n);
    Job job(p);
    std::vector<int*> send(p), recv(p);
    std::vector<Args> all;
    for (int r = 0; r < p; ++r) {
      std::vector<int> mine(in_count);
      for (int i = 0; i < in_count; ++i) mine[i] = input(r, i);
      const bool on_device = r != host_rank;
      send[r] = place(mine, on_device);
      bool gets = c.collective != Collective::kReduce || r == c.root;
      recv[r] = !gets ? nullptr : c.in_place ? send[r] : place(std::vector<int>(n, -1), on_device);
      Args a = args(job, r, c.collective, on_device);
      a.sendbuf = send[r];
      a.recvbuf = recv[r];
      a.in_place = c.in_place && gets;
      a.count = n;
      a.type = &int_type();
      a.op = &sum();
      a.root = c.root;
      if (c.collective == Collective::kReduceScatter) a.recvcounts = counts.data();
      all.push_back(a);
      auto chosen = select(a);
      ASSERT_TRUE(chosen.ok());
      ASSERT_NE((*chosen)->name, "staged") << c.name() << " p " << p << " rank " << r;
    }
    int reductions = device.reductions, pinned = device.pinned;
    std::size_t held = staging_blocks_held();
    run(job, all);
    for (int r = 0; r < p; ++r) {
      if (recv[r] == nullptr || (c.collective == Collective::kExscan && r == 0)) continue;
      std::vector<int> got = read(recv[r], n, r != host_rank);
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(got[i], expected(c.collective, p, r, i, n))
            << c.name() << " p " << p << " r " << r << " i " << i;
    }
    if (c.collective != Collective::kExscan || p > 2) {  // exscan on 2 ranks only copies
      EXPECT_GT(device.reductions, reductions) << c.name() << " p " << p;
    }
    EXPECT_EQ(device.pinned, pinned) << c.name();
    EXPECT_EQ(staging_blocks_held(), held) << c.name();
  }

  int* place(const std::vector<int>& v, bool on_device) {
    if (on_device) return device.device_copy_of(v);
    host_.push_back(v);
    return host_.back().data();
  }
  std::vector<int> read(const int* p, int n, bool on_device) {
    return on_device ? device.read(p, n) : std::vector<int>(p, p + n);
  }

  // Element i of rank r's result.
  static int expected(Collective c, int p, int r, int i, int n) {
    int first = 0, last = p;  // the ranks whose inputs are summed
    int at = i;               // the element of their inputs
    if (c == Collective::kScan) last = r + 1;
    if (c == Collective::kExscan) last = r;
    if (c == Collective::kReduceScatterBlock || c == Collective::kReduceScatter) at = r * n + i;
    int total = 0;
    for (int q = first; q < last; ++q) total += input(q, at);
    return total;
  }

  std::deque<std::vector<int>> host_;  // host buffers (a deque: they never move)
};

// Every reducing collective that has pml algorithms, on 2, 3 (not a power of two) and 4
// ranks, at the roots that matter and in place where the call allows it.
TEST_F(ReductionOnDevice, EveryReductionRunsOnTheDevice) {
  const std::vector<Reduction> calls = {
      {Collective::kReduce, 0},       {Collective::kReduce, 2},
      {Collective::kReduce, 1, true}, {Collective::kReduceScatterBlock},
      {Collective::kReduceScatter},   {Collective::kScan},
      {Collective::kScan, 0, true},   {Collective::kExscan},
  };
  for (int p : {2, 3, 4})
    for (const Reduction& c : calls)
      if (c.root < p) check(p, c);
}

// A rank with host buffers runs the same algorithm as the ranks with device buffers (the
// selection ignores the memory kind), so the call completes: on the host there, on the device
// elsewhere.
TEST_F(ReductionOnDevice, RanksWithHostBuffersMeetTheOthers) {
  check(4, {Collective::kReduce, 1}, /*host_rank=*/1);  // rank 3 folds rank 0's part
  check(3, {Collective::kReduce, 0}, /*host_rank=*/2);
  check(4, {Collective::kScan}, /*host_rank=*/0);
  check(3, {Collective::kReduceScatterBlock}, /*host_rank=*/2);
}

// On one host, a communicator whose members all asserted device memory only runs every
// reduction on the device too (without the assertion the shared-memory algorithms, which the
// table picks there, stage it), and a rank that breaks the assertion with host buffers meets
// the others: the same schedule runs on the host there.
TEST_F(ReductionOnDevice, OneHostDeviceOnlyCommunicatorsRunEveryReductionOnTheDevice) {
  one_host_device_only = true;
  const std::vector<Reduction> calls = {
      {Collective::kReduce, 0},
      {Collective::kReduce, 1, true},
      {Collective::kReduceScatterBlock},
      {Collective::kReduceScatter},
      {Collective::kScan},
      {Collective::kExscan},
      {Collective::kAllreduce},
      {Collective::kAllreduce, 0, true},
  };
  for (int p : {2, 3, 4})
    for (const Reduction& c : calls)
      if (c.root < p) check(p, c);
  check(3, {Collective::kReduce, 0}, /*host_rank=*/1);
  check(4, {Collective::kReduceScatterBlock}, /*host_rank=*/3);
  // device_ring, which the ranks with device buffers would otherwise run, is left out too.
  check(3, {Collective::kAllreduce}, /*host_rank=*/1);
}

// The copying collectives: blocks move by the pml and local copies by the accelerator, with no
// staging.
class CopiesOnDevice : public DeviceCollTest {
 protected:
  void check();
};

TEST_F(CopiesOnDevice, RunOnTheDevice) { check(); }

// On one host, on a communicator whose members all asserted device memory only.
TEST_F(CopiesOnDevice, RunOnTheDeviceOnOneHostWhenEveryMemberAssertsDeviceMemory) {
  one_host_device_only = true;
  check();
}

void CopiesOnDevice::check() {
  const int p = 3, n = 21;
  for (Collective c :
       {Collective::kAllgather, Collective::kAlltoall, Collective::kGather, Collective::kScatter}) {
    Job job(p);
    std::vector<int*> recv(p);
    std::vector<Args> all;
    const bool root_sends_all = c == Collective::kScatter || c == Collective::kAlltoall;
    for (int r = 0; r < p; ++r) {
      std::vector<int> mine(root_sends_all ? n * p : n);
      for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = r * 1000 + static_cast<int>(i);
      Args a = args(job, r, c);
      a.sendbuf = device.device_copy_of(mine);
      const bool gets_all = c != Collective::kScatter && (c != Collective::kGather || r == 1);
      if (c != Collective::kGather || r == 1)
        recv[r] = device.device_copy_of(std::vector<int>(gets_all ? n * p : n, -1));
      a.recvbuf = recv[r];
      a.count = a.recvcount = n;
      a.type = a.recvtype = &int_type();
      a.root = 1;
      all.push_back(a);
    }
    auto chosen = select(all[0]);
    ASSERT_TRUE(chosen.ok());
    ASSERT_NE((*chosen)->name, "staged") << collective_name(c);
    int pinned = device.pinned;
    std::size_t held = staging_blocks_held();
    run(job, all);
    for (int r = 0; r < p; ++r) {
      if (recv[r] == nullptr) continue;
      if (c == Collective::kScatter) {
        std::vector<int> got = device.read(recv[r], n);
        for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 1000 + r * n + i) << r << " " << i;
        continue;
      }
      std::vector<int> got = device.read(recv[r], n * p);
      for (int q = 0; q < p; ++q)
        for (int i = 0; i < n; ++i) {
          int want = c == Collective::kAlltoall ? q * 1000 + r * n + i : q * 1000 + i;
          ASSERT_EQ(got[q * n + i], want) << collective_name(c) << " " << r << " " << q;
        }
    }
    EXPECT_EQ(device.pinned, pinned) << collective_name(c);
    EXPECT_EQ(staging_blocks_held(), held) << collective_name(c);
  }
}

// A copy step whose two ranges overlap goes through a device block (the accelerator's copy, like
// cudaMemcpy, does not take overlapping ranges).
TEST(DeviceSteps, OverlappingCopyMovesThroughADeviceBlock) {
  FencedDevice device;
  std::vector<int> v(10);
  for (int i = 0; i < 10; ++i) v[i] = i;
  int* buf = device.device_copy_of(v);
  int allocations = device.device_allocations;
  ASSERT_TRUE(device_copy(device, Buf{buf, 8, &int_type()}, Buf{buf + 2, 8, &int_type()}).ok());
  EXPECT_EQ(device.read(buf, 10), (std::vector<int>{0, 1, 0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(device.device_allocations, allocations + 1);
  ASSERT_TRUE(device_copy(device, Buf{buf + 2, 8, &int_type()}, Buf{buf, 8, &int_type()}).ok());
  EXPECT_EQ(device.read(buf, 10), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 6, 7}));
  EXPECT_EQ(device.device_allocations, allocations + 1);  // the block came back to the pool
  release_device_scratch();
}

// Operations made one after another (nonblocking calls) take their device scratch from the
// pool that the previous ones gave it back to: no device allocation after the first.
TEST_F(DeviceCollTest, LaterCallsReuseTheDeviceScratch) {
  const int p = 3, n = 100;
  Job job(p);
  std::vector<int*> send(p), recv(p);
  for (int r = 0; r < p; ++r) {
    send[r] = device.device_copy_of(std::vector<int>(n, r + 1));
    recv[r] = device.device_copy_of(std::vector<int>(n, 0));
  }
  int after_first = 0;
  for (int call = 0; call < 4; ++call) {
    std::vector<Args> all;
    for (int r = 0; r < p; ++r) {
      Args a = args(job, r, Collective::kScan);
      a.tag = 7 + call;
      a.sendbuf = send[r];
      a.recvbuf = recv[r];
      a.count = n;
      a.type = &int_type();
      a.op = &sum();
      all.push_back(a);
    }
    run(job, all);
    for (int r = 0; r < p; ++r)
      ASSERT_EQ(device.read(recv[r], n), std::vector<int>(n, (r + 1) * (r + 2) / 2)) << call;
    if (call == 0) after_first = device.device_allocations;
  }
  EXPECT_GT(after_first, 0);  // scan's scratch (the buffers are not counted)
  EXPECT_EQ(device.device_allocations, after_first);
  EXPECT_GT(device_scratch_held(), 0u);
}

// Calls a schedule cannot run on the device are refused by schedule_on_device (and so staged):
// a rank whose send and receive buffers are of different kinds, a type with gaps, an op the
// accelerator does not reduce.
TEST(DeviceSteps, ScheduleOnDeviceRefusesWhatItCannotRun) {
  FencedDevice device;
  Job job(2);
  int host[4] = {};
  int* dev = device.device_copy_of(std::vector<int>(4, 0));
  Args a = job.args(0, Collective::kAllreduce);
  a.memory = accel::MemoryKind::kCudaDevice;
  a.accelerator = &device;
  a.sendbuf = dev;
  a.recvbuf = device.device_copy_of(std::vector<int>(4, 0));
  a.count = 4;
  a.type = &int_type();
  a.op = &sum();
  EXPECT_TRUE(schedule_on_device(a));
  Args mixed = a;
  mixed.recvbuf = host;
  EXPECT_FALSE(schedule_on_device(mixed));
  device.refuse_reduce = true;
  EXPECT_FALSE(schedule_on_device(a));
  device.refuse_reduce = false;
  auto vec = core::make_vector(2, 1, 2, int_type());
  ASSERT_TRUE(vec.ok());
  (*vec)->commit();
  Args gaps = a;
  gaps.type = vec->get();
  gaps.count = 1;
  EXPECT_FALSE(schedule_on_device(gaps));
  Args host_call = a;
  host_call.memory = accel::MemoryKind::kHost;
  EXPECT_FALSE(schedule_on_device(host_call));
}

// A contiguous type whose data starts 8 bytes after its address (true_lb 8): the device
// reductions take addresses as MPI gives them, for device_ring (allreduce) and the schedules
// (reduce) alike. The 2 ints before the data are never written.
TEST_F(DeviceCollTest, ReductionsOfATypeWhoseDataStartsLate) {
  const std::int64_t block[] = {2}, at[] = {8};
  auto late = core::make_hindexed(block, at, int_type());
  ASSERT_TRUE(late.ok());
  (*late)->commit();
  ASSERT_TRUE((*late)->contiguous());
  const int p = 3, n = 50;  // 50 elements of 2 ints
  for (Collective c : {Collective::kAllreduce, Collective::kReduce}) {
    Job job(p);
    std::vector<int*> recv(p);
    std::vector<Args> all;
    for (int r = 0; r < p; ++r) {
      std::vector<int> mine(2 * n + 2, -7);
      for (int i = 0; i < 2 * n; ++i) mine[2 + i] = (r + 1) * i;
      Args a = args(job, r, c);
      a.sendbuf = device.device_copy_of(mine);
      if (c == Collective::kAllreduce || r == 0)
        recv[r] = device.device_copy_of(std::vector<int>(2 * n + 2, -9));
      a.recvbuf = recv[r];
      a.count = n;
      a.type = late->get();
      a.op = &sum();
      all.push_back(a);
    }
    auto chosen = select(all[0]);
    ASSERT_TRUE(chosen.ok());
    EXPECT_EQ((*chosen)->name, c == Collective::kAllreduce ? "device_ring" : "binomial");
    run(job, all);
    for (int r = 0; r < p; ++r) {
      if (recv[r] == nullptr) continue;
      std::vector<int> got = device.read(recv[r], 2 * n + 2);
      EXPECT_EQ(got[0], -9);
      EXPECT_EQ(got[1], -9);
      for (int i = 0; i < 2 * n; ++i) ASSERT_EQ(got[2 + i], 6 * i) << collective_name(c) << i;
    }
  }
}

// What MPIX_Query_cuda_path answers for collectives: native where every call on contiguous
// types runs on the device whatever the communicator.
TEST(DeviceSteps, NativeCollectivesAreThoseThatAreNeverStaged) {
  for (Collective c : {Collective::kAllreduce, Collective::kNeighborAllgather,
                       Collective::kNeighborAlltoallv})
    EXPECT_TRUE(device_native(c)) << collective_name(c);
  // One host runs them with the shared-memory algorithms, which stage; w forms always stage.
  for (Collective c : {Collective::kReduce, Collective::kBcast, Collective::kAllgather,
                       Collective::kScan, Collective::kExscan, Collective::kAlltoallw,
                       Collective::kNeighborAlltoallw})
    EXPECT_FALSE(device_native(c)) << collective_name(c);
  // A device-only communicator keeps only the schedules: all of them but the w forms.
  for (Collective c : {Collective::kReduce, Collective::kBcast, Collective::kAllgather,
                       Collective::kAllreduce, Collective::kReduceScatter, Collective::kScan})
    EXPECT_TRUE(device_native(c, /*device_only=*/true)) << collective_name(c);
  for (Collective c : {Collective::kAlltoallw, Collective::kNeighborAlltoallw})
    EXPECT_FALSE(device_native(c, /*device_only=*/true)) << collective_name(c);
}

}  // namespace
}  // namespace gpurun::coll
