// MemoryMap over a fake driver table: which pointers cost a driver call, what the caches
// remember, and when they forget.
#include "cuda/memory_map.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <vector>

#include "tests/cuda/fake_driver.h"

namespace gpurun::cuda {
namespace {

using accel::MemoryKind;
using testing::FakeAllocation;
using testing::FakeDriver;

constexpr std::uintptr_t kMiB = std::uintptr_t{1} << 20;
constexpr std::uintptr_t kDeviceBase = 0x7f0000000000;  // 2 MiB aligned, like device memory

const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

class MemoryMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeDriver::current = &driver_;
    api_ = driver_.api();
    driver_.allocations = {
        {.base = kDeviceBase, .size = 4 * kMiB, .buffer_id = 11, .device = 0},
        {.base = kDeviceBase + 8 * kMiB, .size = 2 * kMiB, .buffer_id = 12, .device = 1},
        {.base = kDeviceBase + 16 * kMiB,
         .size = 2 * kMiB,
         .buffer_id = 13,
         .managed = true,
         .device = 0},
        {.base = kDeviceBase + 32 * kMiB,
         .size = 64 * 1024,
         .buffer_id = 14,
         .type = CU_MEMORYTYPE_HOST},
    };
  }
  void TearDown() override { FakeDriver::current = nullptr; }

  MemoryMap make(int host_regions = 64, std::size_t capacity = 16) {
    return MemoryMap(api_,
                     MemoryMapConfig{.host_regions = host_regions, .range_capacity = capacity});
  }

  FakeDriver driver_;
  DriverApi api_{};
};

TEST_F(MemoryMapTest, HostPointerCostsOneDriverCallThenNone) {
  MemoryMap map = make();
  std::vector<char> buffer(4096);
  EXPECT_EQ(map.query(buffer.data()).kind, MemoryKind::kHost);
  EXPECT_EQ(driver_.attribute_calls, 1);
  // Same buffer, and another pointer in the same 2 MiB region: no driver call.
  EXPECT_EQ(map.query(buffer.data()).kind, MemoryKind::kHost);
  EXPECT_EQ(map.query(buffer.data() + 100).kind, MemoryKind::kHost);
  EXPECT_EQ(driver_.attribute_calls, 1);
  EXPECT_EQ(driver_.range_calls, 0);
}

TEST_F(MemoryMapTest, HostCacheOffAsksEveryTime) {
  MemoryMap map = make(/*host_regions=*/0);
  int local = 0;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(map.query(&local).kind, MemoryKind::kHost);
  EXPECT_EQ(driver_.attribute_calls, 3);
}

TEST_F(MemoryMapTest, DevicePointerGivesKindDeviceAndAllocation) {
  MemoryMap map = make();
  PointerInfo info = map.classify(at(kDeviceBase + 8 * kMiB + 100));
  EXPECT_EQ(info.kind, PointerKind::kDevice);
  EXPECT_EQ(info.device, 1);
  EXPECT_EQ(info.allocation.base, kDeviceBase + 8 * kMiB);
  EXPECT_EQ(info.allocation.size, 2 * kMiB);
  EXPECT_EQ(info.allocation.buffer_id, 12u);
  EXPECT_EQ(driver_.range_calls, 1);
  // The range is remembered: the next pointer into it costs the attribute call only.
  driver_.reset_counts();
  accel::MemoryInfo m = map.query(at(kDeviceBase + 8 * kMiB + 4096));
  EXPECT_EQ(m.kind, MemoryKind::kCudaDevice);
  EXPECT_EQ(m.device, 1);
  EXPECT_EQ(driver_.attribute_calls, 1);
  EXPECT_EQ(driver_.range_calls, 0);
}

// CUDA's synchronous calls on device memory that is sent must have finished when they return:
// each device allocation gets SYNC_MEMOPS once, when first seen; managed memory is left alone.
TEST_F(MemoryMapTest, DeviceAllocationsAreSetToSynchronizeTheirMemoryOperationsOnce) {
  MemoryMap map = make();
  map.query(at(kDeviceBase + 100));
  map.query(at(kDeviceBase + 3 * kMiB));
  map.query(at(kDeviceBase + 8 * kMiB + 8));
  map.query(at(kDeviceBase + 16 * kMiB));  // managed
  EXPECT_EQ(driver_.synchronized,
            (std::vector<std::uintptr_t>{kDeviceBase, kDeviceBase + 8 * kMiB}));
}

TEST_F(MemoryMapTest, DevicePointersAreNeverAnsweredFromTheHostCache) {
  MemoryMap map = make();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(map.query(at(kDeviceBase + 64)).kind, MemoryKind::kCudaDevice);
  EXPECT_EQ(driver_.attribute_calls, 3);
}

TEST_F(MemoryMapTest, ManagedAndPinnedMemory) {
  MemoryMap map = make();
  EXPECT_EQ(map.query(at(kDeviceBase + 16 * kMiB)).kind, MemoryKind::kCudaManaged);
  // Pinned host memory is host memory, but not remembered by region (it may share its region
  // with CUDA mappings): each query asks.
  driver_.reset_counts();
  EXPECT_EQ(map.classify(at(kDeviceBase + 32 * kMiB)).kind, PointerKind::kPinned);
  EXPECT_EQ(map.query(at(kDeviceBase + 32 * kMiB + 8)).kind, MemoryKind::kHost);
  EXPECT_EQ(driver_.attribute_calls, 2);
}

TEST_F(MemoryMapTest, NewBufferIdAtTheSameAddressReplacesTheEntry) {
  MemoryMap map = make();
  std::vector<Allocation> forgotten;
  map.ranges().subscribe(
      [](void* out, const Allocation& a) {
        static_cast<std::vector<Allocation>*>(out)->push_back(a);
      },
      &forgotten);
  EXPECT_EQ(map.query(at(kDeviceBase)).device, 0);
  // cudaFree, then a cudaMalloc on device 1 that gets the same address.
  driver_.reallocate(kDeviceBase, 99, 1);
  driver_.reset_counts();
  PointerInfo info = map.classify(at(kDeviceBase + 10));
  EXPECT_EQ(info.device, 1);
  EXPECT_EQ(info.allocation.buffer_id, 99u);
  EXPECT_EQ(driver_.range_calls, 1);  // the stale entry was not trusted
  ASSERT_EQ(forgotten.size(), 1u);
  EXPECT_EQ(forgotten[0].buffer_id, 11u);
  EXPECT_EQ(map.ranges().size(), 1u);
}

TEST_F(MemoryMapTest, DriverErrorsAreHostAndNotRemembered) {
  MemoryMap map = make();
  driver_.fail_with = CUDA_ERROR_INVALID_CONTEXT;
  int local = 0;
  EXPECT_EQ(map.query(&local).kind, MemoryKind::kHost);
  driver_.fail_with = CUDA_SUCCESS;
  EXPECT_EQ(map.query(&local).kind, MemoryKind::kHost);
  EXPECT_EQ(driver_.attribute_calls, 2);
}

// A 2 MiB-aligned stretch of `bytes` of this process's address space, mapped with `prot`:
// readable host memory, or (PROT_NONE) the kind of reservation CUDA makes for device memory.
class Mapping {
 public:
  Mapping(std::size_t bytes, int prot) : length_(bytes + 2 * kMiB) {
    void* p = mmap(nullptr, length_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    raw_ = p == MAP_FAILED ? nullptr : p;
  }
  ~Mapping() {
    if (raw_ != nullptr) munmap(raw_, length_);
  }
  std::uintptr_t base() const {
    return (reinterpret_cast<std::uintptr_t>(raw_) + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
  }

 private:
  std::size_t length_;
  void* raw_ = nullptr;
};

// An address the driver does not know inside a reservation the host cannot read (the free part
// of a chunk of small cudaMalloc allocations, or just past an allocation's end): device memory
// allocated there later must be found, so the region is not remembered as host memory.
TEST_F(MemoryMapTest, UnknownAddressTheHostCannotReadIsNotRememberedAsHost) {
  MemoryMap map = make();
  Mapping reservation(4 * kMiB, PROT_NONE);
  std::uintptr_t chunk = reservation.base();
  EXPECT_EQ(map.query(at(chunk + 4096)).kind, MemoryKind::kHost);
  driver_.allocations.push_back({.base = chunk, .size = 2 * kMiB, .buffer_id = 31, .device = 0});
  EXPECT_EQ(map.query(at(chunk + 8192)).kind, MemoryKind::kCudaDevice);
}

TEST_F(MemoryMapTest, DeviceMemoryFoundInARememberedHostRegionEvictsIt) {
  MemoryMap map = make();
  // An address the driver does not know, in readable memory: its region is remembered as host.
  Mapping host(8 * kMiB, PROT_READ | PROT_WRITE);
  std::uintptr_t reused = host.base();
  EXPECT_EQ(map.query(at(reused)).kind, MemoryKind::kHost);
  driver_.reset_counts();
  EXPECT_EQ(map.query(at(reused + 64)).kind, MemoryKind::kHost);
  EXPECT_EQ(driver_.attribute_calls, 0);
  // The host memory there is unmapped and CUDA maps a 4 MiB allocation over it; the first
  // pointer into it that reaches the driver (another region of the same allocation) makes the
  // map forget the stale host region.
  driver_.allocations.push_back({.base = reused, .size = 4 * kMiB, .buffer_id = 21, .device = 0});
  EXPECT_EQ(map.query(at(reused + 3 * kMiB)).kind, MemoryKind::kCudaDevice);
  EXPECT_EQ(map.query(at(reused + 64)).kind, MemoryKind::kCudaDevice);
}

TEST_F(MemoryMapTest, RangeCacheIsBounded) {
  MemoryMap map = make(64, /*capacity=*/2);
  int evicted = 0;
  map.ranges().subscribe([](void* n, const Allocation&) { ++*static_cast<int*>(n); }, &evicted);
  map.query(at(kDeviceBase));
  map.query(at(kDeviceBase + 8 * kMiB));
  map.query(at(kDeviceBase + 16 * kMiB));
  EXPECT_EQ(map.ranges().size(), 2u);
  EXPECT_EQ(evicted, 1);
  // The least recently used (the first) went: asking for it again needs the range call.
  driver_.reset_counts();
  map.query(at(kDeviceBase));
  EXPECT_EQ(driver_.range_calls, 1);
}

}  // namespace
}  // namespace gpurun::cuda
