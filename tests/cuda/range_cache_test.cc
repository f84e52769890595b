// RangeCache and HostRegions on their own: interval lookups, overlap eviction, LRU bound,
// region hashing.
#include "cuda/range_cache.h"

#include <gtest/gtest.h>

#include <vector>

#include "cuda/host_regions.h"

namespace gpurun::cuda {
namespace {

Allocation make(std::uintptr_t base, std::size_t size, std::uint64_t id) {
  return Allocation{.base = base, .size = size, .buffer_id = id, .device = 0};
}

void record(void* out, const Allocation& a) {
  static_cast<std::vector<std::uint64_t>*>(out)->push_back(a.buffer_id);
}

TEST(RangeCache, FindsTheAllocationHoldingAnAddress) {
  RangeCache cache(8);
  cache.insert(make(1000, 100, 1));
  cache.insert(make(2000, 50, 2));
  EXPECT_FALSE(cache.find(999, 1));
  EXPECT_EQ(cache.find(1000, 1)->buffer_id, 1u);
  EXPECT_EQ(cache.find(1099, 1)->buffer_id, 1u);
  EXPECT_FALSE(cache.find(1100, 1));
  EXPECT_EQ(cache.find(2049, 2)->base, 2000u);
  EXPECT_FALSE(cache.find(2050, 2));
}

TEST(RangeCache, AnotherBufferIdForgetsTheEntry) {
  RangeCache cache(8);
  std::vector<std::uint64_t> forgotten;
  cache.subscribe(&record, &forgotten);
  cache.insert(make(1000, 100, 1));
  EXPECT_FALSE(cache.find(1050, 7));
  EXPECT_EQ(forgotten, std::vector<std::uint64_t>{1});
  EXPECT_EQ(cache.size(), 0u);
}

TEST(RangeCache, InsertForgetsOverlappingEntries) {
  RangeCache cache(8);
  std::vector<std::uint64_t> forgotten;
  cache.subscribe(&record, &forgotten);
  cache.insert(make(1000, 100, 1));  // overlaps the new one's start
  cache.insert(make(1150, 10, 2));   // inside it
  cache.insert(make(1300, 100, 3));  // after it
  cache.insert(make(1050, 200, 4));
  EXPECT_EQ(forgotten, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find(1300, 3)->buffer_id, 3u);
  cache.forget(1200, 1000);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(RangeCache, EvictsTheLeastRecentlyUsed) {
  RangeCache cache(2);
  std::vector<std::uint64_t> forgotten;
  cache.subscribe(&record, &forgotten);
  cache.insert(make(1000, 10, 1));
  cache.insert(make(2000, 10, 2));
  ASSERT_TRUE(cache.find(1000, 1));  // 1 is now the most recent
  cache.insert(make(3000, 10, 3));
  EXPECT_EQ(forgotten, std::vector<std::uint64_t>{2});
  EXPECT_TRUE(cache.find(1000, 1));
  EXPECT_TRUE(cache.find(3000, 3));
}

TEST(HostRegions, RemembersRegionsOfTwoMiB) {
  HostRegions regions(16);
  auto* p = reinterpret_cast<const void*>(std::uintptr_t{0x7ffd00200000} + 12345);
  EXPECT_FALSE(regions.contains(p));
  regions.insert(p);
  EXPECT_TRUE(regions.contains(p));
  EXPECT_TRUE(regions.contains(reinterpret_cast<const void*>(0x7ffd00200000)));
  EXPECT_TRUE(regions.contains(reinterpret_cast<const void*>(0x7ffd003fffff)));
  EXPECT_FALSE(regions.contains(reinterpret_cast<const void*>(0x7ffd00400000)));
  EXPECT_FALSE(regions.contains(reinterpret_cast<const void*>(0x7ffd001fffff)));
  regions.forget(0x7ffd003ff000, 0x2000);  // overlaps the region's last bytes
  EXPECT_FALSE(regions.contains(p));
}

TEST(HostRegions, DisabledRemembersNothing) {
  HostRegions regions(0);
  int x = 0;
  regions.insert(&x);
  EXPECT_FALSE(regions.enabled());
  EXPECT_FALSE(regions.contains(&x));
}

TEST(HostRegions, ACollisionReplacesNeverConfuses) {
  HostRegions regions(1);  // one slot: every region collides
  auto* a = reinterpret_cast<const void*>(std::uintptr_t{0x10000000});
  auto* b = reinterpret_cast<const void*>(std::uintptr_t{0x20000000});
  regions.insert(a);
  regions.insert(b);
  EXPECT_FALSE(regions.contains(a));
  EXPECT_TRUE(regions.contains(b));
}

}  // namespace
}  // namespace gpurun::cuda
