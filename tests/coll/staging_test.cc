// Collectives on device memory without a GPU: the fenced test double of the accelerator
// (fenced_device.h) holds the "device" buffers, so a host algorithm that touched them instead of
// the staging copies would crash. Results are compared with a simple reference; the double's
// counters tell which path ran (staged: host allocations and copies; device_ring and the
// schedules on the device: device reductions, device scratch, no staging).
#include "coll/staging.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "coll/engine.h"
#include "device_coll.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::coll {
namespace {

using testing_util::DeviceCollTest;
using testing_util::int_type;
using testing_util::Job;
using testing_util::sum;

// Bcast from every root, on the device: binomial's messages carry the device buffers through the
// pml, with no staging.
TEST_F(DeviceCollTest, BcastRunsOnTheDeviceFromEveryRoot) {
  for (int p : {2, 3}) {
    Job job(p);
    for (int root = 0; root < p; ++root) {
      std::vector<int*> bufs(p);
      std::vector<Args> all;
      for (int r = 0; r < p; ++r) {
        bufs[r] = device.device_copy_of(std::vector<int>(333, r == root ? 40 + root : -1));
        Args a = args(job, r, Collective::kBcast);
        a.sendbuf = a.recvbuf = bufs[r];
        a.count = 333;
        a.type = &int_type();
        a.root = root;
        all.push_back(a);
      }
      auto chosen = select(all[0]);
      ASSERT_TRUE(chosen.ok());
      EXPECT_EQ((*chosen)->name, "binomial");
      int pinned = device.pinned;
      std::size_t held = staging_blocks_held();
      run(job, all);
      for (int r = 0; r < p; ++r)
        EXPECT_EQ(device.read(bufs[r], 333), std::vector<int>(333, 40 + root)) << p << root << r;
      EXPECT_EQ(device.pinned, pinned);
      EXPECT_EQ(staging_blocks_held(), held);
    }
  }
}

// Allgather with a vector type with gaps (every other int): the gaps of the receive buffer keep
// what they held, as staging copies the receive region in before and out after.
TEST_F(DeviceCollTest, AllgatherOfDerivedTypeKeepsTheGaps) {
  auto vec = core::make_vector(4, 1, 2, int_type());
  ASSERT_TRUE(vec.ok());
  (*vec)->commit();
  const int p = 3;
  Job job(p);
  std::vector<int*> send(p), recv(p);
  std::vector<Args> all;
  for (int r = 0; r < p; ++r) {
    std::vector<int> mine(7, -7);
    for (int i = 0; i < 4; ++i) mine[2 * i] = r * 10 + i;
    send[r] = device.device_copy_of(mine);
    recv[r] = device.device_copy_of(std::vector<int>(7 * p + 1, -9));
    Args a = args(job, r, Collective::kAllgather);
    a.sendbuf = send[r];
    a.recvbuf = recv[r];
    a.count = 1;
    a.type = vec->get();
    a.recvcount = 1;
    a.recvtype = vec->get();
    all.push_back(a);
  }
  run(job, all);
  for (int r = 0; r < p; ++r) {
    std::vector<int> got = device.read(recv[r], 7 * p + 1);
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < 4; ++i) EXPECT_EQ(got[(*vec)->extent() / 4 * q + 2 * i], q * 10 + i);
    EXPECT_EQ(got[1], -9);      // a gap
    EXPECT_EQ(got[7 * p], -9);  // past the last block
  }
}

// In place, pairwise keeps the blocks it sends in a scratch block: device memory here.
TEST_F(DeviceCollTest, AlltoallInPlaceRunsOnTheDevice) {
  const int p = 3, n = 5;
  Job job(p);
  std::vector<int*> bufs(p);
  std::vector<Args> all;
  for (int r = 0; r < p; ++r) {
    std::vector<int> mine(p * n);
    for (int j = 0; j < p * n; ++j) mine[j] = r * 100 + j / n;
    bufs[r] = device.device_copy_of(mine);
    Args a = args(job, r, Collective::kAlltoall);
    a.sendbuf = a.recvbuf = bufs[r];
    a.in_place = true;
    a.count = a.recvcount = n;
    a.type = a.recvtype = &int_type();
    all.push_back(a);
  }
  auto chosen = select(all[0]);
  ASSERT_TRUE(chosen.ok());
  EXPECT_NE((*chosen)->name, "staged");
  int allocations = device.device_allocations;
  std::size_t held = staging_blocks_held();
  run(job, all);
  for (int r = 0; r < p; ++r) {
    std::vector<int> got = device.read(bufs[r], p * n);
    for (int j = 0; j < p * n; ++j) EXPECT_EQ(got[j], (j / n) * 100 + r) << r << " " << j;
  }
  EXPECT_GE(device.device_allocations - allocations, p);
  EXPECT_EQ(device.pinned, 0);
  EXPECT_EQ(staging_blocks_held(), held);
}

TEST_F(DeviceCollTest, ReduceToRootRunsOnTheDevice) {
  const int p = 3, n = 100;
  Job job(p);
  std::vector<int*> send(p);
  int* out = nullptr;
  std::vector<Args> all;
  for (int r = 0; r < p; ++r) {
    std::vector<int> mine(n);
    std::iota(mine.begin(), mine.end(), r);
    send[r] = device.device_copy_of(mine);
    Args a = args(job, r, Collective::kReduce);
    a.sendbuf = send[r];
    if (r == 2) a.recvbuf = out = device.device_copy_of(std::vector<int>(n, 0));
    a.count = n;
    a.type = &int_type();
    a.op = &sum();
    a.root = 2;
    all.push_back(a);
  }
  run(job, all);
  std::vector<int> got = device.read(out, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(got[i], 3 * i + 3);
  EXPECT_EQ(device.reductions, 2);  // binomial on 3 ranks: two folds
  EXPECT_EQ(device.pinned, 0);
}

// The device ring: blocks through the pml's device path, folded by the accelerator's
// reduce(), no staging; 2, 3 (non-power-of-two) and 4 ranks, counts not divisible by p, and
// in place (device scratch).
TEST_F(DeviceCollTest, AllreduceRunsOnTheDevice) {
  for (int p : {2, 3, 4}) {
    for (bool in_place : {false, true}) {
      const int n = 1001;
      Job job(p);
      std::vector<int*> send(p), recv(p);
      std::vector<Args> all;
      for (int r = 0; r < p; ++r) {
        std::vector<int> mine(n);
        for (int i = 0; i < n; ++i) mine[i] = i * (r + 1);
        send[r] = device.device_copy_of(mine);
        recv[r] = in_place ? send[r] : device.device_copy_of(std::vector<int>(n, 0));
        Args a = args(job, r, Collective::kAllreduce);
        a.sendbuf = send[r];
        a.recvbuf = recv[r];
        a.in_place = in_place;
        a.count = n;
        a.type = &int_type();
        a.op = &sum();
        all.push_back(a);
      }
      auto chosen = select(all[0]);
      ASSERT_TRUE(chosen.ok());
      EXPECT_EQ((*chosen)->name, "device_ring");
      int pinned = device.pinned, reductions = device.reductions;
      std::size_t held = staging_blocks_held();
      run(job, all);
      const int factor = p * (p + 1) / 2;
      for (int r = 0; r < p; ++r) {
        std::vector<int> got = device.read(recv[r], n);
        for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], i * factor) << p << " " << r << " " << i;
      }
      EXPECT_EQ(device.reductions - reductions, p * (p - 1));
      EXPECT_EQ(device.pinned, pinned);
      EXPECT_EQ(staging_blocks_held(), held);
    }
  }
}

// A call that device_ring cannot run (the accelerator does not reduce the op on the type) is
// staged.
TEST_F(DeviceCollTest, AllreduceTheDeviceCannotReduceIsStaged) {
  const int p = 3, n = 64;
  Job job(p);
  std::vector<int*> bufs(p);
  std::vector<Args> all;
  for (int r = 0; r < p; ++r) {
    bufs[r] = device.device_copy_of(std::vector<int>(n, r * 5));
    Args a = args(job, r, Collective::kAllreduce);
    a.sendbuf = a.recvbuf = bufs[r];
    a.in_place = true;
    a.count = n;
    a.type = &int_type();
    a.op = &core::Op::predefined(core::OpKind::kMax);
    all.push_back(a);
  }
  device.refuse_reduce = true;
  auto chosen = select(all[0]);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->name, "staged");
  run(job, all);
  for (int r = 0; r < p; ++r) EXPECT_EQ(device.read(bufs[r], n), std::vector<int>(n, 10));
  EXPECT_EQ(device.reductions, 0);
}

// A blocking call repeated with the same buffers reuses its staged operation (and its host
// blocks): the engine's rearm path through StagedOperation. A type with gaps is staged.
TEST_F(DeviceCollTest, RepeatedBlockingCallReusesTheStagedOperation) {
  auto vec = core::make_vector(5, 1, 2, int_type());
  ASSERT_TRUE(vec.ok());
  (*vec)->commit();
  Job job(1);
  int* buf = device.device_copy_of(std::vector<int>(10, 3));
  Args a = args(job, 0, Collective::kBcast);
  a.sendbuf = a.recvbuf = buf;
  a.count = 1;
  a.type = vec->get();
  auto chosen = select(a);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->name, "staged");
  auto first = blocking_operation(a);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->start().ok());
  while (!(*first)->progress()) {
  }
  a.tag = 8;
  auto again = blocking_operation(a);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  EXPECT_EQ(device.read(buf, 10), std::vector<int>(10, 3));
}

TEST(StagingRegions, CoverWhatTheCallTouches) {
  Job job(4);
  Args a = job.args(1, Collective::kGatherv);
  std::vector<std::int64_t> counts{2, 0, 3, 1}, displs{10, 0, 0, 5};
  int send = 0, recv = 0;
  a.sendbuf = &send;
  a.recvbuf = &recv;
  a.count = 2;
  a.type = &int_type();
  a.recvtype = &int_type();
  a.recvcounts = counts.data();
  a.rdispls = displs.data();
  StagingRegions g = staging_regions(a);
  ASSERT_TRUE(g.send && g.recv);
  EXPECT_EQ(g.send->lo, 0);
  EXPECT_EQ(g.send->size, 8);
  EXPECT_TRUE(g.send->input && !g.send->output);
  EXPECT_EQ(g.recv->lo, 0);
  EXPECT_EQ(g.recv->size, 12 * 4);               // up to block 0 at 10 + 2 elements
  EXPECT_TRUE(g.recv->input && g.recv->output);  // v form: gaps stay

  Args r = job.args(1, Collective::kAllreduce);
  r.sendbuf = &send;
  r.recvbuf = &recv;
  r.count = 6;
  r.type = &int_type();
  StagingRegions ar = staging_regions(r);
  ASSERT_TRUE(ar.recv && ar.send);
  EXPECT_FALSE(ar.recv->input);  // fully overwritten
  r.sendbuf = &recv;
  r.in_place = true;
  ar = staging_regions(r);
  EXPECT_FALSE(ar.send);
  ASSERT_TRUE(ar.recv);
  EXPECT_TRUE(ar.recv->input && ar.recv->output);

  Args b = job.args(1, Collective::kBarrier);
  StagingRegions none = staging_regions(b);
  EXPECT_FALSE(none.send || none.recv);
}

}  // namespace
}  // namespace gpurun::coll
