// runtime/io/two_phase: a member's runs are handed out window by window (split where a window
// ends), windows share a round's span equally within the buffer, aggregators' coverage merges
// every member's pieces, and the tests that choose two-phase access see interleaving.
#include "runtime/io/two_phase.h"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

namespace gpurun::io {
namespace {

bool same(const std::vector<Extent>& a, const std::vector<Extent>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].offset != b[i].offset || a[i].bytes != b[i].bytes) return false;
  }
  return true;
}

TEST(TwoPhase, CursorSplitsRunsAtWindowEnds) {
  std::vector<Extent> runs{{0, 10}, {20, 10}, {40, 5}};
  RunCursor cursor(runs);
  std::vector<Extent> pieces;
  EXPECT_EQ(cursor.next(), 0);
  EXPECT_EQ(cursor.take(5, pieces), 5);
  EXPECT_TRUE(same(pieces, {{0, 5}}));
  EXPECT_EQ(cursor.next(), 5);
  pieces.clear();
  EXPECT_EQ(cursor.take(25, pieces), 10);
  EXPECT_TRUE(same(pieces, {{5, 5}, {20, 5}}));
  pieces.clear();
  EXPECT_EQ(cursor.take(35, pieces), 5);  // nothing between 30 and 35
  EXPECT_EQ(cursor.next(), 40);
  pieces.clear();
  EXPECT_EQ(cursor.take(39, pieces), 0);
  EXPECT_TRUE(pieces.empty());
  EXPECT_EQ(cursor.take(100, pieces), 5);
  EXPECT_EQ(cursor.next(), INT64_MAX);
  EXPECT_EQ(cursor.take(INT64_MAX, pieces), 0);
}

TEST(TwoPhase, WindowsShareTheSpanWithinTheBuffer) {
  // 8 MiB over 4 aggregators with a 16 MiB buffer: 2 MiB each.
  EXPECT_EQ(window_length(0, 8 << 20, 4, 16 << 20), 2 << 20);
  // The buffer bounds the window: more rounds.
  EXPECT_EQ(window_length(0, 8 << 20, 2, 1 << 20), 1 << 20);
  // Rounded up to whole blocks where the buffer allows.
  EXPECT_EQ(window_length(100, 100 + 3 * 5000, 3, 1 << 20), 8192);
  // A buffer smaller than a block: windows of the buffer.
  EXPECT_EQ(window_length(0, 1000, 2, 64), 64);
  // An empty span still gives a window (at least a byte).
  EXPECT_GE(window_length(50, 50, 4, 1 << 20), 1);
  // The windows of a round reach the end of the span when the buffer allows.
  std::int64_t base = 12345, end = base + 7777777;
  EXPECT_GE(base + 5 * window_length(base, end, 5, 16 << 20), end);
}

TEST(TwoPhase, CoverageMergesEveryMembersPieces) {
  // Three members' pieces of one window, a cyclic distribution with a hole and an overlap.
  std::vector<Extent> pieces{{0, 4}, {12, 4}, {24, 4},   // member 0
                             {4, 4}, {16, 4},            // member 1
                             {8, 4}, {20, 2}, {26, 6}};  // member 2 (22-24 a hole)
  std::vector<std::int64_t> counts{3, 2, 3};
  EXPECT_TRUE(same(coverage(pieces, counts), {{0, 22}, {24, 8}}));
  // Lists without pieces, and lists out of order with one another.
  std::vector<Extent> few{{10, 5}, {3, 2}};
  EXPECT_TRUE(same(coverage(few, std::vector<std::int64_t>{0, 1, 0, 1}), {{3, 2}, {10, 5}}));
  EXPECT_TRUE(coverage({}, std::vector<std::int64_t>{0, 0}).empty());
}

TEST(TwoPhase, AscendingRunsOnly) {
  EXPECT_TRUE(ascending(std::vector<Extent>{{0, 4}, {4, 4}, {100, 1}}));
  EXPECT_FALSE(ascending(std::vector<Extent>{{0, 4}, {2, 4}}));
  EXPECT_FALSE(ascending(std::vector<Extent>{{10, 4}, {0, 4}}));
  EXPECT_TRUE(ascending({}));
}

TEST(TwoPhase, InterleavingSpans) {
  // Blocks one after another: not interleaved, even touching.
  EXPECT_FALSE(interleaved({{0, 100}, {100, 100}, {200, 50}}));
  // Cyclic: every span covers the others'.
  EXPECT_TRUE(interleaved({{0, 1000}, {8, 1000}, {16, 1000}}));
  // Members without data do not count.
  EXPECT_FALSE(interleaved({{0, 100}, {50, 0}, {100, 10}}));
  EXPECT_TRUE(interleaved({{300, 100}, {0, 10}, {350, 1}}));
}

TEST(TwoPhase, AggregatorsSpreadOverTheGroup) {
  EXPECT_EQ(aggregator_member(0, 2, 8), 0);
  EXPECT_EQ(aggregator_member(1, 2, 8), 4);
  EXPECT_EQ(aggregator_member(3, 4, 4), 3);
  EXPECT_EQ(aggregator_member(2, 3, 7), 4);
}

TEST(TwoPhase, ReadStopsAtTheEndOfTheFile) {
  std::vector<Extent> runs{{0, 4}, {8, 4}, {16, 4}};
  EXPECT_EQ(bytes_before_end(runs, 100), 12);
  EXPECT_EQ(bytes_before_end(runs, 10), 6);  // the second run is cut, the third not reached
  EXPECT_EQ(bytes_before_end(runs, 6), 4);   // the hole before the second run: it stops there
  EXPECT_EQ(bytes_before_end(runs, 0), 0);
}

}  // namespace
}  // namespace gpurun::io
