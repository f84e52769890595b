// Context ids: the free mask, and agreements among simulated processes. The simulation runs
// the protocol of api/comm_cid.h (a process enters an agreement once every member started it,
// then rounds: offer, AND over the members, conclude) with a random interleaving of every
// process's steps, and checks that no process ever has two live communicators with one id,
// that every member of an agreement gets the same id, and that every agreement ends.
#include "runtime/core/context_ids.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

namespace gpurun::core {
namespace {

using Mask = ContextIds::Mask;

TEST(ContextIds, StartsWithWorldAndSelfTaken) {
  ContextIds ids;
  EXPECT_FALSE(ids.is_free(0));
  EXPECT_FALSE(ids.is_free(1));
  EXPECT_TRUE(ids.is_free(2));
  EXPECT_EQ(ids.free_count(), ContextIds::kMaxIds - 3);
  EXPECT_FALSE(ids.is_free(ContextIds::kBridgeId));
  EXPECT_TRUE(ids.release(ContextIds::kBridgeId).empty());  // reserved: never given back
  EXPECT_FALSE(ids.is_free(ContextIds::kBridgeId));
  EXPECT_EQ(ids.take_alone(), 2);
  EXPECT_EQ(ids.take_alone(), 3);
  EXPECT_TRUE(ids.release(0).empty());  // the predefined ids are never given back
  EXPECT_FALSE(ids.is_free(0));
}

// A released id rests until kResting others were released after it, then comes back (lowest
// first), so that a late message for a freed communicator meets no new one with its id.
TEST(ContextIds, ReleasedIdsRestBeforeTheyComeBack) {
  ContextIds ids;
  const int n = static_cast<int>(ContextIds::kResting) + 2;
  for (int i = 0; i < n; ++i) EXPECT_EQ(ids.take_alone(), 2 + i);
  EXPECT_TRUE(ids.release(2).empty());
  EXPECT_FALSE(ids.is_free(2));
  EXPECT_EQ(ids.take_alone(), 2 + n);  // not 2
  for (int i = 1; i < static_cast<int>(ContextIds::kResting); ++i)
    EXPECT_TRUE(ids.release(2 + i).empty());
  EXPECT_EQ(ids.release(2 + static_cast<int>(ContextIds::kResting)), std::vector<int>{2});
  EXPECT_TRUE(ids.is_free(2));
  EXPECT_EQ(ids.take_alone(), 2);
}

TEST(ContextIds, OnlyTheHolderOffersItsMask) {
  ContextIds ids;
  auto a = ids.enter(10), b = ids.enter(20);
  Mask ma, mb;
  EXPECT_TRUE(ids.offer(a, &ma));
  EXPECT_FALSE(ids.offer(b, &mb));
  EXPECT_EQ(ContextIds::lowest(mb), -1);
  EXPECT_EQ(ids.take_alone(), -1);  // a one-process creation waits while the mask is held
  EXPECT_EQ(ids.conclude(a, ma), 2);
  ids.leave(a);
  EXPECT_FALSE(ids.held());
  EXPECT_TRUE(ids.offer(b, &mb));
  EXPECT_EQ(ids.conclude(b, mb), 3);
  ids.leave(b);
}

TEST(ContextIds, AHolderGivesWayToALowerKey) {
  ContextIds ids;
  auto high = ids.enter(50);
  Mask m, zero{};
  EXPECT_TRUE(ids.offer(high, &m));
  auto low = ids.enter(5);  // entered while the other held the mask
  Mask lm;
  EXPECT_FALSE(ids.offer(low, &lm));
  EXPECT_EQ(ids.conclude(high, zero), -1);  // another member offered nothing
  EXPECT_FALSE(ids.held());                 // ... so the mask goes to the lower key
  EXPECT_FALSE(ids.offer(high, &m));
  EXPECT_TRUE(ids.offer(low, &lm));
}

TEST(ContextIds, ExhaustionLeavesAnEmptyAnd) {
  ContextIds ids;
  for (int i = 2; i < ContextIds::kBridgeId; ++i) EXPECT_EQ(ids.take_alone(), i);
  EXPECT_EQ(ids.take_alone(), -2);
  auto t = ids.enter(1);
  Mask m;
  EXPECT_TRUE(ids.offer(t, &m));
  EXPECT_EQ(ContextIds::lowest(m), -1);
  EXPECT_EQ(ids.conclude(t, m), -1);
  ids.leave(t);
  ids.release(700);
  EXPECT_EQ(ids.take_alone(), 700);
}

// ---- simulated processes ----------------------------------------------------------------

enum class Stage { kStart, kEnter, kOffer, kWait, kDone };

struct Member {
  Stage stage = Stage::kStart;
  ContextIds::Ticket ticket = 0;
  int round = 0;
  int id = -1;
};

struct Agreement {
  std::vector<int> procs;
  std::uint64_t key;
  std::vector<Member> members;
  std::map<int, std::vector<Mask>> offers;  // round -> the members' offers
  std::map<int, int> offered;               // round -> how many members offered
};

class Simulation {
 public:
  Simulation(int procs, unsigned seed)
      : ids_(static_cast<std::size_t>(procs)), live_(procs), rng_(seed) {}

  void add(std::vector<int> procs, std::uint64_t key) {
    Agreement a{std::move(procs), key, {}, {}, {}};
    a.members.resize(a.procs.size());
    agreements_.push_back(std::move(a));
  }

  // Runs random enabled steps until every agreement is done; false if some never end.
  bool run(int max_steps) {
    for (int step = 0; step < max_steps; ++step) {
      std::vector<std::pair<int, int>> enabled;
      for (std::size_t a = 0; a < agreements_.size(); ++a)
        for (std::size_t m = 0; m < agreements_[a].members.size(); ++m)
          if (can_step(agreements_[a], m)) enabled.emplace_back(a, m);
      if (enabled.empty()) return all_done();
      auto [a, m] =
          enabled[std::uniform_int_distribution<std::size_t>(0, enabled.size() - 1)(rng_)];
      do_step(agreements_[a], m);
    }
    return false;
  }

  const std::vector<Agreement>& agreements() const { return agreements_; }
  int failures() const { return failures_; }

 private:
  bool all_done() const {
    for (const Agreement& a : agreements_)
      for (const Member& m : a.members)
        if (m.stage != Stage::kDone) return false;
    return true;
  }

  bool can_step(const Agreement& a, std::size_t m) const {
    const Member& me = a.members[m];
    switch (me.stage) {
      case Stage::kStart:
        return true;
      case Stage::kEnter:  // every member started (the readiness round completed)
        for (const Member& o : a.members)
          if (o.stage == Stage::kStart) return false;
        return true;
      case Stage::kOffer:
        return true;
      case Stage::kWait: {
        auto it = a.offered.find(me.round);
        return it != a.offered.end() && it->second == static_cast<int>(a.members.size());
      }
      case Stage::kDone:
        return false;
    }
    return false;
  }

  void do_step(Agreement& a, std::size_t m) {
    Member& me = a.members[m];
    ContextIds& ids = ids_[a.procs[m]];
    switch (me.stage) {
      case Stage::kStart:
        me.stage = Stage::kEnter;
        break;
      case Stage::kEnter:
        me.ticket = ids.enter(a.key);
        me.stage = Stage::kOffer;
        break;
      case Stage::kOffer: {
        auto& offers = a.offers[me.round];
        offers.resize(a.members.size());
        ids.offer(me.ticket, &offers[m]);
        ++a.offered[me.round];
        me.stage = Stage::kWait;
        break;
      }
      case Stage::kWait:
        conclude(a, m);
        break;
      case Stage::kDone:
        break;
    }
  }

  void conclude(Agreement& a, std::size_t m) {
    Member& me = a.members[m];
    ContextIds& ids = ids_[a.procs[m]];
    Mask reduced;
    reduced.fill(-1);
    for (const Mask& o : a.offers[me.round])
      for (int w = 0; w < ContextIds::kWords; ++w) reduced[w] &= o[w];
    int id = ids.conclude(me.ticket, reduced);
    ++me.round;
    if (id < 0) {
      me.stage = Stage::kOffer;
      return;
    }
    // Safety: the id is not live on this process, and every member gets the same.
    std::set<int>& live = live_[a.procs[m]];
    if (live.count(id) != 0) ++failures_;
    live.insert(id);
    for (const Member& o : a.members)
      if (o.stage == Stage::kDone && o.id != id) ++failures_;
    ids.leave(me.ticket);
    me.id = id;
    me.stage = Stage::kDone;
  }

  std::vector<ContextIds> ids_;
  std::vector<std::set<int>> live_;
  std::vector<Agreement> agreements_;
  std::mt19937 rng_;
  int failures_ = 0;
};

TEST(ContextIdsSimulation, CrossingOrdersOnTwoProcesses) {
  // Two creations over the same two processes, every interleaving that random seeds give.
  for (unsigned seed = 0; seed < 300; ++seed) {
    Simulation sim(2, seed);
    sim.add({0, 1}, 1);
    sim.add({1, 0}, 2);
    ASSERT_TRUE(sim.run(100000)) << "seed " << seed;
    EXPECT_EQ(sim.failures(), 0) << "seed " << seed;
    EXPECT_NE(sim.agreements()[0].members[0].id, sim.agreements()[1].members[0].id);
  }
}

TEST(ContextIdsSimulation, ManyOverlappingCreations) {
  for (unsigned seed = 0; seed < 100; ++seed) {
    std::mt19937 rng(seed);
    int procs = 2 + static_cast<int>(seed % 7);
    Simulation sim(procs, seed * 7 + 1);
    for (int a = 0; a < 12; ++a) {
      std::vector<int> members;
      for (int p = 0; p < procs; ++p)
        if (rng() % 2 || p == a % procs) members.push_back(p);
      sim.add(members, (static_cast<std::uint64_t>(rng() % 4) << 32) | a);
    }
    ASSERT_TRUE(sim.run(1000000)) << "seed " << seed;
    EXPECT_EQ(sim.failures(), 0) << "seed " << seed;
  }
}

}  // namespace
}  // namespace gpurun::core
