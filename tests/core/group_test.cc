// Group operations against a plain reference: vectors of job ranks and the definitions of the
// MPI standard written the obvious way, on random groups of many sizes.
#include "runtime/core/group.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace gpurun::core {
namespace {

using Ranks = std::vector<int>;

Ranks members(const Group& g) { return g.job_ranks(); }
bool has(const Ranks& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

Ranks ref_union(const Ranks& a, const Ranks& b) {
  Ranks out = a;
  for (int x : b)
    if (!has(a, x)) out.push_back(x);
  return out;
}
Ranks ref_intersection(const Ranks& a, const Ranks& b) {
  Ranks out;
  for (int x : a)
    if (has(b, x)) out.push_back(x);
  return out;
}
Ranks ref_difference(const Ranks& a, const Ranks& b) {
  Ranks out;
  for (int x : a)
    if (!has(b, x)) out.push_back(x);
  return out;
}

// A random group: a random subset of 0..universe-1 in random order.
Ranks random_members(std::mt19937& rng, int universe) {
  Ranks all(static_cast<std::size_t>(universe));
  for (int i = 0; i < universe; ++i) all[i] = i;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::uniform_int_distribution<int>(0, universe)(rng));
  return all;
}

TEST(Group, IdentityAndRankOf) {
  auto world = Group::identity(5);
  EXPECT_EQ(world->size(), 5);
  EXPECT_EQ(world->job_rank(3), 3);
  EXPECT_EQ(world->rank_of(4), 4);
  EXPECT_EQ(world->rank_of(5), -1);
  auto g = Group::of({7, 2, 9});
  EXPECT_EQ(g->rank_of(9), 2);
  EXPECT_EQ(g->rank_of(2), 1);
  EXPECT_EQ(g->rank_of(3), -1);
  EXPECT_EQ(Group::empty()->size(), 0);
}

TEST(Group, SetOperationsMatchTheReference) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 500; ++trial) {
    int universe = 1 + trial % 40;
    Ranks a = random_members(rng, universe), b = random_members(rng, universe);
    auto ga = Group::of(a), gb = Group::of(b);
    EXPECT_EQ(members(*set_union(*ga, *gb)), ref_union(a, b));
    EXPECT_EQ(members(*intersection(*ga, *gb)), ref_intersection(a, b));
    EXPECT_EQ(members(*difference(*ga, *gb)), ref_difference(a, b));
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(ga->rank_of(a[i]), static_cast<int>(i));
  }
}

TEST(Group, EmptyResultsAreTheEmptyGroup) {
  auto a = Group::of({1, 2});
  EXPECT_EQ(difference(*a, *a), Group::empty());
  EXPECT_EQ(intersection(*a, *Group::of({3})), Group::empty());
}

TEST(Group, IncludeExcludeMatchTheReference) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    Ranks g = random_members(rng, 1 + trial % 30);
    auto group = Group::of(g);
    // Random distinct group ranks in random order.
    Ranks picks(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) picks[i] = static_cast<int>(i);
    std::shuffle(picks.begin(), picks.end(), rng);
    picks.resize(std::uniform_int_distribution<std::size_t>(0, g.size())(rng));
    Ranks in, out;
    for (int p : picks) in.push_back(g[p]);
    for (std::size_t r = 0; r < g.size(); ++r)
      if (!has(picks, static_cast<int>(r))) out.push_back(g[r]);
    auto inc = include(*group, picks);
    auto exc = exclude(*group, picks);
    ASSERT_TRUE(inc.ok() && exc.ok());
    EXPECT_EQ(members(**inc), in);
    EXPECT_EQ(members(**exc), out);
  }
}

TEST(Group, IncludeRejectsBadRanks) {
  auto g = Group::of({4, 5, 6});
  Ranks out_of_range{0, 3};
  auto r = include(*g, out_of_range);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kOutOfRange);
  EXPECT_NE(r.status().message().find("ranks[1]"), std::string_view::npos);
  Ranks twice{2, 1, 2};
  auto t = exclude(*g, twice);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), ErrorCode::kOutOfRange);
  EXPECT_NE(t.status().message().find("again"), std::string_view::npos);
  Ranks negative{-1};
  EXPECT_FALSE(include(*g, negative).ok());
}

// The standard's definition: first, first + stride, ... while not past last.
Ranks ref_expand(const std::vector<RankRange>& ranges) {
  Ranks out;
  for (const RankRange& r : ranges) {
    for (long x = r.first; r.stride > 0 ? x <= r.last : x >= r.last; x += r.stride)
      out.push_back(static_cast<int>(x));
  }
  return out;
}

TEST(Group, RangesMatchTheReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    int size = 1 + trial % 25;
    std::uniform_int_distribution<int> rank(0, size - 1), stride(-4, 4);
    std::vector<RankRange> ranges{{rank(rng), rank(rng), 0}};
    while (ranges[0].stride == 0) ranges[0].stride = stride(rng);
    Ranks want = ref_expand(ranges);
    auto got = expand_ranges(ranges, size);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(*got, want) << ranges[0].first << " " << ranges[0].last << " " << ranges[0].stride;
  }
  std::vector<RankRange> two{{0, 6, 3}, {1, 7, 3}};
  auto got = expand_ranges(two, 8);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (Ranks{0, 3, 6, 1, 4, 7}));
  auto world = Group::identity(8);
  auto exc = exclude_ranges(*world, two);
  ASSERT_TRUE(exc.ok());
  EXPECT_EQ(members(**exc), (Ranks{2, 5}));
}

TEST(Group, RangesRejectBadInput) {
  std::vector<RankRange> zero{{0, 3, 0}};
  auto z = expand_ranges(zero, 4);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), ErrorCode::kInvalidArgument);
  std::vector<RankRange> outside{{0, 4, 1}};
  EXPECT_EQ(expand_ranges(outside, 4).status().code(), ErrorCode::kOutOfRange);
  std::vector<RankRange> overlap{{0, 3, 1}, {3, 3, 1}};
  auto o = expand_ranges(overlap, 4);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("ranges[1]"), std::string_view::npos);
}

TEST(Group, CompareAndTranslate) {
  auto a = Group::of({1, 2, 3}), b = Group::of({3, 1, 2}), c = Group::of({1, 2});
  EXPECT_EQ(compare(*a, *Group::of({1, 2, 3})), GroupRelation::kIdent);
  EXPECT_EQ(compare(*a, *b), GroupRelation::kSimilar);
  EXPECT_EQ(compare(*a, *c), GroupRelation::kUnequal);
  EXPECT_EQ(compare(*Group::identity(3), *Group::of({0, 1, 2})), GroupRelation::kIdent);
  Ranks ranks{0, -1, 2};
  auto t = translate(*a, ranks, *c, -32766, -1);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (Ranks{0, -1, -32766}));
  Ranks bad{3};
  EXPECT_EQ(translate(*a, bad, *c, -32766, -1).status().code(), ErrorCode::kOutOfRange);
}

}  // namespace
}  // namespace gpurun::core
