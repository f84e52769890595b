// MPI_Reduce_local and MPI_Pack/MPI_Unpack on device memory without a GPU (api/device_local.h):
// the fenced test double of the accelerator (tests/coll/fenced_device.h) holds the "device"
// buffers, so host code that touched them instead of the staging copies crashes. Results are
// compared with the same work on host buffers; the returned path and the double's counters
// tell what ran (native: the accelerator's reduce or pack; staged: copies around host code).
#include "api/device_local.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/core/datatype_build.h"
#include "tests/coll/fenced_device.h"

namespace gpurun::api::local {
namespace {

using coll::testing_util::FencedDevice;

const core::Datatype& int_type() {
  static auto type = core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT");
  return *type;
}
const core::Op& op_of(core::OpKind kind) { return core::Op::predefined(kind); }

// 5 blocks of 2 ints every 3 ints, placed 8 bytes before the buffer's address (the first byte
// touched is not the buffer's address), 64 bytes from one element to the next. 3 elements span
// 184 bytes: a buffer of 47 ints, passed as its address + 2 ints, holds them.
core::DatatypeRef strided() {
  auto vec = core::make_vector(5, 2, 3, int_type());
  EXPECT_TRUE(vec.ok());
  const std::int64_t block = 1, disp = -8;
  auto placed = core::make_hindexed({&block, 1}, {&disp, 1}, **vec);
  EXPECT_TRUE(placed.ok());
  auto resized = core::make_resized(**placed, -8, 64);
  EXPECT_TRUE(resized.ok());
  core::DatatypeRef t = std::move(resized).value();
  t.get()->commit();
  EXPECT_EQ(t->true_lb(), -8);
  return t;
}

std::vector<int> iota_from(int first, std::size_t n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// A double that also packs "on the device" (through its own copies): the path a CUDA
// accelerator with pack kernels takes. `failure` makes pack/unpack fail with that code.
class PackingDevice final : public accel::Accelerator {
 public:
  const char* name() const override { return "packing"; }
  bool usable() const override { return true; }
  accel::MemoryInfo query(const void* p) const override { return fenced.query(p); }
  Status copy(void* dst, const void* src, std::size_t n) override {
    return fenced.copy(dst, src, n);
  }
  Status pack(const accel::DevicePack& a) override { return move(a, true); }
  Status unpack(const accel::DevicePack& a) override { return move(a, false); }

  FencedDevice fenced;
  int moves = 0;
  ErrorCode failure = ErrorCode::kOk;

 private:
  Status move(const accel::DevicePack& a, bool pack) {
    ++moves;
    if (failure != ErrorCode::kOk) return Status(failure, "packing double fails");
    if (accel::is_host(query(a.typed).kind)) return Status(ErrorCode::kInternal, "host typed");
    auto bytes = static_cast<std::size_t>(a.count * a.type->size());
    std::int64_t span = (a.count - 1) * a.type->extent() + a.type->true_extent();
    std::vector<std::byte> host(static_cast<std::size_t>(span));
    void* first = static_cast<std::byte*>(a.typed) + a.type->true_lb();
    void* host_typed = host.data() - a.type->true_lb();
    std::vector<std::byte> packed(bytes);
    GPURUN_TRY(fenced.copy(host.data(), first, host.size()));
    if (pack) {
      a.type->pack(host_typed, a.count, 0, packed.data(), bytes);
      return fenced.copy(a.packed, packed.data(), bytes);
    }
    GPURUN_TRY(fenced.copy(packed.data(), a.packed, bytes));
    a.type->unpack(host_typed, a.count, 0, packed.data(), bytes);
    return fenced.copy(first, host.data(), host.size());
  }
};

TEST(DeviceReduceLocal, BothOnTheDeviceRunsNatively) {
  FencedDevice device;
  int* in = device.device_copy_of(iota_from(1, 100));
  int* inout = device.device_copy_of(iota_from(1000, 100));
  auto path = reduce(device, {&op_of(core::OpKind::kSum), &int_type(), in, inout, 100});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kNative);
  EXPECT_EQ(device.reductions, 1);
  std::vector<int> got = device.read(inout, 100);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], 1 + i + 1000 + i) << i;
}

// The double refuses non-contiguous types and user ops: staged, and the gaps of inout stay.
TEST(DeviceReduceLocal, WhatTheDeviceRefusesIsStaged) {
  FencedDevice device;
  core::DatatypeRef t = strided();
  std::vector<int> host_in = iota_from(1, 60), host_inout = iota_from(500, 60);
  // The buffers start 2 ints before the data: the type's lower bound is -8.
  int* in = device.device_copy_of(host_in) + 2;
  int* inout = device.device_copy_of(host_inout) + 2;
  auto path = reduce(device, {&op_of(core::OpKind::kMax), t.get(), in, inout, 3});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kStaged);
  EXPECT_EQ(device.reductions, 0);
  ASSERT_TRUE(
      op_of(core::OpKind::kMax).apply(host_in.data() + 2, host_inout.data() + 2, 3, *t).ok());
  EXPECT_EQ(device.read(inout - 2, 60), host_inout);
}

TEST(DeviceReduceLocal, RefusedReductionIsStaged) {
  FencedDevice device;
  device.refuse_reduce = true;
  int* in = device.device_copy_of(iota_from(3, 50));
  int* inout = device.device_copy_of(iota_from(7, 50));
  auto path = reduce(device, {&op_of(core::OpKind::kProd), &int_type(), in, inout, 50});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kStaged);
  std::vector<int> got = device.read(inout, 50);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(got[i], (3 + i) * (7 + i)) << i;
}

TEST(DeviceReduceLocal, HostAndDeviceOperandsAreStaged) {
  FencedDevice device;
  std::vector<int> host = iota_from(10, 40);
  int* dev = device.device_copy_of(iota_from(100, 40));
  auto path = reduce(device, {&op_of(core::OpKind::kSum), &int_type(), host.data(), dev, 40});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kStaged);
  std::vector<int> got = device.read(dev, 40);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(got[i], 110 + 2 * i) << i;
  // The other way round: the host buffer takes the result, the device one is only read.
  path = reduce(device, {&op_of(core::OpKind::kSum), &int_type(), dev, host.data(), 40});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kStaged);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(host[i], 120 + 3 * i) << i;
  EXPECT_EQ(device.reductions, 0);
}

TEST(DeviceReduceLocal, HostBuffersStayOnTheHost) {
  FencedDevice device;
  std::vector<int> in = iota_from(1, 8), inout = iota_from(2, 8);
  auto path = reduce(device, {&op_of(core::OpKind::kSum), &int_type(), in.data(), inout.data(), 8});
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, Path::kHost);
  EXPECT_EQ(device.copies, 0);
  EXPECT_EQ(inout[7], 8 + 9);
}

// Packing the strided type from device memory into host memory, and back into device memory
// whose gaps hold a pattern that must survive.
void pack_round_trip(accel::Accelerator& accelerator, FencedDevice& device, Path want) {
  core::DatatypeRef t = strided();
  std::vector<int> host = iota_from(1, 47);
  int* typed = device.device_copy_of(host) + 2;
  std::vector<std::byte> want_packed(3 * 10 * 4), packed(want_packed.size());
  t->pack(host.data() + 2, 3, 0, want_packed.data(), want_packed.size());
  auto path = pack(accelerator, {t.get(), typed, 3, packed.data()});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, want);
  EXPECT_EQ(packed, want_packed);

  std::vector<int> sentinel(47, -1);
  int* target = device.device_copy_of(sentinel) + 2;
  path = unpack(accelerator, {t.get(), target, 3, packed.data()});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, want);
  t->unpack(sentinel.data() + 2, 3, 0, packed.data(), packed.size());
  EXPECT_EQ(device.read(target - 2, 47), sentinel);
}

TEST(DevicePack, WithoutDevicePackingIsStaged) {
  FencedDevice device;
  pack_round_trip(device, device, Path::kStaged);
}

TEST(DevicePack, DevicePackingRunsNatively) {
  PackingDevice device;
  pack_round_trip(device, device.fenced, Path::kNative);
  EXPECT_EQ(device.moves, 2);
}

TEST(DevicePack, UnsupportedDevicePackingFallsBackToStaging) {
  PackingDevice device;
  device.failure = ErrorCode::kUnsupported;
  pack_round_trip(device, device.fenced, Path::kStaged);
  EXPECT_EQ(device.moves, 2);
}

TEST(DevicePack, DevicePackingErrorsAreReturned) {
  PackingDevice device;
  device.failure = ErrorCode::kIo;
  int* typed = device.fenced.device_copy_of(iota_from(0, 16));
  std::vector<int> packed(16);
  auto path = pack(device, {&int_type(), typed, 16, packed.data()});
  EXPECT_EQ(path.status().code(), ErrorCode::kIo);
}

// A host typed buffer with a device packed buffer, both ways: staged through host copies.
TEST(DevicePack, DevicePackedBufferIsStaged) {
  PackingDevice device;
  core::DatatypeRef t = strided();
  std::vector<int> host = iota_from(5, 47);
  std::vector<std::byte> want_packed(3 * 10 * 4);
  t->pack(host.data() + 2, 3, 0, want_packed.data(), want_packed.size());
  auto* packed = static_cast<std::byte*>(device.fenced.allocate(want_packed.size()));
  auto path = pack(device, {t.get(), host.data() + 2, 3, packed});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kStaged);
  EXPECT_EQ(device.fenced.read(packed, want_packed.size()), want_packed);

  std::vector<int> target(47, -1), want(47, -1);
  path = unpack(device, {t.get(), target.data() + 2, 3, packed});
  ASSERT_TRUE(path.ok()) << path.status().to_string();
  EXPECT_EQ(*path, Path::kStaged);
  t->unpack(want.data() + 2, 3, 0, want_packed.data(), want_packed.size());
  EXPECT_EQ(target, want);
  EXPECT_EQ(device.moves, 0);
}

// Both sides on the device: packed natively into device memory, or staged on both sides.
TEST(DevicePack, BothOnTheDevice) {
  for (bool kernels : {true, false}) {
    PackingDevice device;
    if (!kernels) device.failure = ErrorCode::kUnsupported;
    std::vector<int> host = iota_from(9, 64);
    int* typed = device.fenced.device_copy_of(host);
    auto* packed = static_cast<int*>(device.fenced.allocate(64 * 4));
    auto path = pack(device, {&int_type(), typed, 64, packed});
    ASSERT_TRUE(path.ok()) << path.status().to_string();
    EXPECT_EQ(*path, kernels ? Path::kNative : Path::kStaged);
    EXPECT_EQ(device.fenced.read(packed, 64), host);
  }
}

}  // namespace
}  // namespace gpurun::api::local
