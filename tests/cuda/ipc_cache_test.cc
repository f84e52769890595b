#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cuda/ipc/cache.h"

namespace gpurun::cuda::ipc {
namespace {

// The cache with an unmap that records what left it.
struct CacheFixture : ::testing::Test {
  std::vector<std::uint64_t> unmapped;  // buffer ids, in order
  ImportCache make(std::size_t bytes, std::size_t entries) {
    return ImportCache(CacheLimits{bytes, entries},
                       [this](const CacheEntry& e) { unmapped.push_back(e.buffer_id); });
  }
  static CacheEntry entry(int peer, std::uint64_t id, std::uint64_t start, std::uint64_t size) {
    CacheEntry e;
    e.peer = peer;
    e.buffer_id = id;
    e.range_start = start;
    e.range_size = size;
    e.mapped = 0x7000 + id;
    return e;
  }
  bool was_unmapped(std::uint64_t id) const {
    return std::find(unmapped.begin(), unmapped.end(), id) != unmapped.end();
  }
};

TEST_F(CacheFixture, FindsWhatWasInserted) {
  ImportCache cache = make(1 << 20, 8);
  EXPECT_EQ(cache.find(1, 10, 0x1000, 256), nullptr);
  cache.insert(entry(1, 10, 0x1000, 256));
  CacheEntry* e = cache.find(1, 10, 0x1000, 256);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->mapped, 0x7000u + 10);
  EXPECT_EQ(cache.find(2, 10, 0x1000, 256), nullptr)
      << "another peer's buffer 10 is another buffer";
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(cache.bytes(), 256u);
}

TEST_F(CacheFixture, EntryBoundEvictsLeastRecentlyUsed) {
  ImportCache cache = make(1 << 30, 3);
  for (std::uint64_t id = 1; id <= 3; ++id) cache.insert(entry(0, id, id * 0x10000, 0x1000));
  ASSERT_NE(cache.find(0, 1, 0x10000, 0x1000), nullptr);  // 1 becomes the most recent
  cache.insert(entry(0, 4, 0x40000, 0x1000));
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_EQ(unmapped, std::vector<std::uint64_t>{2}) << "2 was the least recently used";
  EXPECT_NE(cache.find(0, 1, 0x10000, 0x1000), nullptr);
  EXPECT_EQ(cache.stats().evictions, 1u);
}

TEST_F(CacheFixture, ByteBoundEvictsUntilItFits) {
  ImportCache cache = make(10000, 100);
  cache.insert(entry(0, 1, 0x10000, 4000));
  cache.insert(entry(0, 2, 0x20000, 4000));
  cache.insert(entry(0, 3, 0x30000, 6000));
  EXPECT_EQ(cache.bytes(), 10000u);
  EXPECT_EQ(unmapped, std::vector<std::uint64_t>{1});
  // A single mapping larger than the bound stays (it is in use right after insertion).
  cache.insert(entry(0, 4, 0x40000, 50000));
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(unmapped, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_NE(cache.find(0, 4, 0x40000, 50000), nullptr);
}

TEST_F(CacheFixture, ChangedBufferIdAtSameRangeInvalidates) {
  ImportCache cache = make(1 << 20, 8);
  cache.insert(entry(0, 1, 0x10000, 0x1000));
  // The owner freed buffer 1 and allocated buffer 2 at the same address.
  EXPECT_EQ(cache.find(0, 2, 0x10000, 0x1000), nullptr);
  cache.insert(entry(0, 2, 0x10000, 0x1000));
  EXPECT_TRUE(was_unmapped(1));
  EXPECT_EQ(cache.find(0, 1, 0x10000, 0x1000), nullptr);
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_GE(cache.stats().invalidations, 1u);
}

TEST_F(CacheFixture, OverlappingRangeOfSamePeerInvalidates) {
  ImportCache cache = make(1 << 20, 8);
  cache.insert(entry(0, 1, 0x10000, 0x4000));  // [0x10000, 0x14000)
  cache.insert(entry(0, 2, 0x20000, 0x1000));
  cache.insert(entry(1, 3, 0x12000, 0x1000));   // another peer: no conflict
  cache.insert(entry(0, 4, 0x13000, 0x10000));  // reaches into 1 and covers 2
  EXPECT_TRUE(was_unmapped(1));
  EXPECT_TRUE(was_unmapped(2));
  EXPECT_FALSE(was_unmapped(3));
  EXPECT_EQ(cache.entries(), 2u);
  // Adjacent, not overlapping: stays.
  cache.insert(entry(0, 5, 0x23000, 0x1000));
  EXPECT_FALSE(was_unmapped(4));
}

TEST_F(CacheFixture, SameIdWithOtherRangeInvalidates) {
  ImportCache cache = make(1 << 20, 8);
  cache.insert(entry(0, 7, 0x10000, 0x1000));
  EXPECT_EQ(cache.find(0, 7, 0x10000, 0x2000), nullptr);
  EXPECT_TRUE(was_unmapped(7));
}

TEST_F(CacheFixture, ReleaseNoticeDropsAtOnce) {
  ImportCache cache = make(1 << 20, 8);
  cache.insert(entry(0, 1, 0x10000, 0x1000));
  cache.insert(entry(0, 2, 0x20000, 0x1000));
  EXPECT_TRUE(cache.release(0, 1));
  EXPECT_FALSE(cache.release(0, 1));
  EXPECT_FALSE(cache.release(1, 2)) << "the notice names a buffer of peer 1";
  EXPECT_EQ(unmapped, std::vector<std::uint64_t>{1});
  EXPECT_EQ(cache.bytes(), 0x1000u);
  EXPECT_EQ(cache.stats().releases, 1u);
}

TEST_F(CacheFixture, PinnedEntriesOutliveEvictionAndRelease) {
  ImportCache cache = make(1 << 30, 1);
  CacheEntry* a = cache.insert(entry(0, 1, 0x10000, 0x1000));
  cache.pin(a);
  cache.insert(entry(0, 2, 0x20000, 0x1000));
  EXPECT_TRUE(unmapped.empty()) << "a copy reads from 1: it may not go";
  EXPECT_EQ(cache.entries(), 2u) << "the bound gives way while copies run";
  cache.release(0, 1);
  EXPECT_TRUE(unmapped.empty()) << "released while pinned: unmapped at the last unpin";
  EXPECT_EQ(a->buffer_id, 1u) << "the pinned entry is still valid";
  cache.unpin(a);
  EXPECT_EQ(unmapped, std::vector<std::uint64_t>{1});
}

TEST_F(CacheFixture, LastUnpinRestoresTheBound) {
  ImportCache cache = make(1 << 30, 1);
  CacheEntry* a = cache.insert(entry(0, 1, 0x10000, 0x1000));
  cache.pin(a);
  CacheEntry* b = cache.insert(entry(0, 2, 0x20000, 0x1000));
  cache.pin(b);
  EXPECT_EQ(cache.entries(), 2u);
  cache.unpin(a);
  EXPECT_EQ(unmapped, std::vector<std::uint64_t>{1}) << "over the bound: the idle one goes";
  cache.unpin(b);
  EXPECT_EQ(cache.entries(), 1u);
}

TEST_F(CacheFixture, ReleasePeerAndClearUnmapEverything) {
  ImportCache cache = make(1 << 20, 8);
  cache.insert(entry(0, 1, 0x10000, 0x1000));
  cache.insert(entry(1, 2, 0x10000, 0x1000));
  cache.insert(entry(1, 3, 0x20000, 0x1000));
  cache.release_peer(1);
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_TRUE(was_unmapped(2) && was_unmapped(3));
  CacheEntry* pinned = cache.insert(entry(2, 4, 0x10000, 0x1000));
  cache.pin(pinned);
  cache.release(2, 4);
  cache.clear();
  EXPECT_EQ(unmapped.size(), 4u) << "clear unmaps doomed entries too";
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST_F(CacheFixture, ChurnStaysWithinBounds) {
  ImportCache cache = make(64 << 10, 16);
  for (std::uint64_t id = 1; id <= 10000; ++id) {
    std::uint64_t start = 0x100000 + (id % 37) * 0x3000;  // addresses come back, ids never do
    if (cache.find(0, id, start, 0x2000) == nullptr) cache.insert(entry(0, id, start, 0x2000));
    ASSERT_LE(cache.entries(), 16u);
    ASSERT_LE(cache.bytes(), 64u << 10);
  }
  EXPECT_EQ(unmapped.size() + cache.entries(), 10000u) << "every mapping made was undone or kept";
}

}  // namespace
}  // namespace gpurun::cuda::ipc
