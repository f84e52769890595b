// The shared-memory barrier, bcast, allgather(v), alltoall(v), gather(v) and scatter(v), ranks as
// threads: 1 to 9 ranks, counts 0, 1, 7, 1K (and 1M for a few), a contiguous and a strided
// type, in place and not, roots everywhere, each collective started three times on one operation
// (persistent restarts, back to back with no barrier between), ranks arriving in any order.
#include <atomic>
#include <string>

#include "runtime/progress/progress.h"
#include "tests/coll/shm_data_test.h"
#include "tests/coll/shm_movement_checks.h"
#include "tests/coll/shm_test_harness.h"

namespace gpurun::coll::shm::testing {
namespace {

struct Case {
  int size;
  std::int64_t count;
  bool strided;
  bool in_place;
  std::size_t slot;
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on "literal" + std::string.
  const Case& c = info.param;
  std::string name = "p";
  name += std::to_string(c.size) + "_n" + std::to_string(c.count);
  name += c.strided ? "_strided" : "_int";
  name += c.in_place ? "_inplace" : "";
  name += "_slot" + std::to_string(c.slot / 1024) + "k";
  return name;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int size = 1; size <= 9; ++size)
    for (std::int64_t count : {0, 1, 7, 1024})
      for (bool strided : {false, true})
        for (bool in_place : {false, true}) out.push_back({size, count, strided, in_place, 16384});
  for (int size : {2, 3, 5}) {
    out.push_back({size, 1 << 20, false, false, 512 * 1024});
    out.push_back({size, 1 << 16, true, true, 16384});
  }
  return out;
}

class ShmMovement : public ::testing::TestWithParam<Case> {
 protected:
  const core::Datatype& type() const { return GetParam().strided ? strided_type() : int32_type(); }
  static constexpr int kStarts = kMovementStarts;
  static int tag(int rank, int start) { return movement_tag(rank, start); }
};

TEST_P(ShmMovement, Bcast) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_bcast(team, type(), c.count, make_bcast, [](int) {});
}

TEST_P(ShmMovement, Allgather) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_allgather(team, type(), c.count, c.in_place, make_allgather, [](int) {});
}

TEST_P(ShmMovement, Allgatherv) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_allgatherv(team, type(), c.count, c.in_place, make_allgather, [](int) {});
}

TEST_P(ShmMovement, Alltoall) {
  const Case& c = GetParam();
  // p blocks to every rank: 1M-element blocks would be p^2 x 4 MiB; 64K of them suffice.
  std::int64_t count = c.count >= (1 << 20) ? c.count / 16 : c.count;
  Team team(c.size, c.slot);
  team.run([&](int rank) {
    std::mt19937 random(rank);
    IntArray send(type(), count, c.size);
    IntArray recv(type(), count, c.size);
    IntArray& source = c.in_place ? recv : send;
    Args args{.collective = Collective::kAlltoall,
              .sendbuf = source.data(),
              .recvbuf = recv.data(),
              .in_place = c.in_place,
              .count = count,
              .type = &type(),
              .recvcount = count,
              .recvtype = &type()};
    auto op = make_alltoall(team.arena(rank), args);
    team.ready(rank);  // after the operation was made
    for (int start = 0; start < kStarts; ++start) {
      recv.fill(rank + 100, c.size);
      source.fill(tag(rank, start), c.size);
      arrive_late(random);
      run_to_end(*op);
      for (int r = 0; r < c.size; ++r)
        EXPECT_TRUE(recv.holds(r, tag(r, start), rank)) << "block " << r;
      EXPECT_TRUE(recv.holes_intact());
    }
  });
}

TEST_P(ShmMovement, Alltoallv) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_alltoallv(team, type(), c.count >= (1 << 20) ? c.count / 16 : c.count, c.in_place,
                  make_alltoall, [](int) {});
}

TEST_P(ShmMovement, Gather) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_gatherv(
      team, type(), c.count, c.in_place, make_gather, [](int) {}, true);
}

TEST_P(ShmMovement, Scatter) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_scatterv(
      team, type(), c.count, c.in_place, make_scatter, [](int) {}, true);
}

TEST_P(ShmMovement, Gatherv) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_gatherv(team, type(), c.count, c.in_place, make_gather, [](int) {});
}

TEST_P(ShmMovement, Scatterv) {
  const Case& c = GetParam();
  Team team(c.size, c.slot);
  check_scatterv(team, type(), c.count, c.in_place, make_scatter, [](int) {});
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmMovement, ::testing::ValuesIn(cases()), name_of);

// A barrier lets no rank through before every rank has arrived: each rank counts itself in
// before the barrier and, after it, must see everyone counted. Sizes above the flat limit go
// through the tree of flags.
class ShmBarrier : public ::testing::TestWithParam<int> {};

void expect_nobody_leaves_early(Team& team) {
  std::atomic<int> arrived{0};
  team.run([&](int rank) {
    std::mt19937 random(rank);
    auto op = make_barrier(team.arena(rank), Args{.collective = Collective::kBarrier});
    team.ready(rank);  // after the operation was made
    for (int round = 1; round <= 20; ++round) {
      arrive_late(random);
      arrived.fetch_add(1);
      run_to_end(*op);
      EXPECT_GE(arrived.load(), round * team.size())
          << "size " << team.size() << " rank " << rank << " round " << round;
      // The next round's count-in happens after everyone has left this one's check.
      run_to_end(*op);
    }
  });
}

TEST_P(ShmBarrier, NobodyLeavesEarly) {
  Team team(GetParam(), 16384);
  expect_nobody_leaves_early(team);
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmBarrier, ::testing::Range(1, 18));

// The same with ranks r and r + 2 sharing a core (Arena::set_core_groups), where a rank whose
// core partners have arrived waits a little for the others (Arena::line_ready_soon).
TEST(ShmBarrierCores, NobodyLeavesEarlyWhenRanksShareCores) {
  for (int size : {3, 4, 5}) {
    Team team(size, 16384);
    std::vector<int> groups(size);
    for (int r = 0; r < size; ++r) groups[r] = r % 2;
    for (int r = 0; r < size; ++r) team.arena(r).set_core_groups(groups);
    expect_nobody_leaves_early(team);
  }
}

// line_ready_soon waits only for a rank on another core, and only once every rank that shares
// the caller's core has posted its line; otherwise it answers line_ready at once.
TEST(ShmLines, ReadySoonWaitsOnlyForOtherCoresOnceOwnCoreHasPosted) {
  Team team(4, 16384);
  for (int r = 0; r < 4; ++r) team.ready(r);
  const std::uint64_t seq = 1;
  Arena& zero = team.arena(0);
  EXPECT_FALSE(zero.line_ready_soon(1, seq));  // no core groups: no waiting
  EXPECT_EQ(zero.line_spins(), 0u);
  for (int r = 0; r < 4; ++r) team.arena(r).set_core_groups({0, 1, 0, 1});  // 0 and 2 share
  EXPECT_FALSE(zero.line_ready_soon(1, seq));  // rank 2 has not posted: no waiting
  EXPECT_EQ(zero.line_spins(), 0u);
  team.arena(2).post_line(seq);
  EXPECT_TRUE(zero.line_ready_soon(2, seq));   // its own core's rank: posted
  EXPECT_FALSE(zero.line_ready_soon(1, seq));  // now it waits for rank 1, in vain
  EXPECT_EQ(zero.line_spins(), 1u);
  team.arena(1).post_line(seq);
  EXPECT_TRUE(zero.line_ready_soon(1, seq));  // ready at the first look: no waiting
  EXPECT_FALSE(zero.line_ready_soon(3, seq));
  EXPECT_EQ(zero.line_spins(), 2u);
  Arena& two = team.arena(2);  // rank 0, its partner, has not posted
  EXPECT_FALSE(two.line_ready_soon(3, seq));
  EXPECT_EQ(two.line_spins(), 0u);
}

// Barrier `seq`, the k-th so checked (k from 1): rank 0 starts it alone and tells whether its
// line went up before the others came (flat) or not (release); then it lets them in (`stage`
// to k) and runs it to the end. The others run it once `stage` is k.
bool posted_alone(Team& team, int rank, ShmOp& barrier, std::uint64_t seq, int k,
                  std::atomic<int>& stage) {
  if (rank != 0) {
    while (stage.load() < k) std::this_thread::yield();
    run_to_end(barrier);
    return false;
  }
  EXPECT_TRUE(barrier.start().ok());
  for (int i = 0; i < 1000; ++i) barrier.progress();
  bool posted = team.arena(0).line_ready(0, seq);
  stage.store(k);
  while (!barrier.progress()) std::this_thread::yield();
  return posted;
}

// With ranks outnumbering cores, rank 0 of a flat team posts its barrier line only after the
// others (release) when a collective rooted at rank 0 followed the previous barrier, and at
// once (flat) when a barrier did. The k-th collective of an arena has sequence number k.
TEST(ShmBarrierShape, RankZeroReleasesWhenARootedCollectiveFollowedTheLastBarrier) {
  progress::engine().configure(/*oversubscribed=*/true, nullptr);  // the yielding wait policy
  Team team(3, 16384);
  std::atomic<int> stage{0};
  team.run([&](int rank) {
    std::int32_t value = rank == 0 ? 42 : 0;
    auto barrier = make_barrier(team.arena(rank), Args{.collective = Collective::kBarrier});
    auto bcast = make_bcast(team.arena(rank), Args{.collective = Collective::kBcast,
                                                   .recvbuf = &value,
                                                   .count = 1,
                                                   .type = &int32_type(),
                                                   .root = 0});
    team.ready(rank);
    run_to_end(*barrier);  // 1
    run_to_end(*bcast);    // 2: rooted at rank 0, after barrier 1
    EXPECT_EQ(value, 42);
    for (std::uint64_t seq : {3, 4}) {  // 3 follows a bcast from rank 0, 4 a barrier
      bool posted = posted_alone(team, rank, *barrier, seq, static_cast<int>(seq) - 2, stage);
      if (rank == 0) {
        EXPECT_EQ(posted, seq == 4) << "barrier " << seq;
      }
    }
  });
  progress::engine().configure(false, nullptr);
}

// Two ranks on cores of their own (the spinning wait policy): rank 0 releases only before a
// bcast or scatter from rank 0 of at most a flag line's data, and stays flat before larger ones
// and before a reduce to rank 0.
TEST(ShmBarrierShape, TwoRanksReleaseOnlyBeforeASmallBcastFromRankZero) {
  progress::engine().configure(/*oversubscribed=*/false, nullptr);
  Team team(2, 16384);
  std::atomic<int> stage{0};
  team.run([&](int rank) {
    std::vector<std::int32_t> data(256, rank == 0 ? 7 : 0);
    std::int32_t one = 1, sum = 0;
    auto barrier = make_barrier(team.arena(rank), Args{.collective = Collective::kBarrier});
    auto bcast_of = [&](std::int64_t count) {
      return make_bcast(team.arena(rank), Args{.collective = Collective::kBcast,
                                               .recvbuf = data.data(),
                                               .count = count,
                                               .type = &int32_type(),
                                               .root = 0});
    };
    auto small = bcast_of(2);  // 8 bytes
    auto large = bcast_of(256);
    auto reduce =
        make_reduce(team.arena(rank), Args{.collective = Collective::kReduce,
                                           .sendbuf = &one,
                                           .recvbuf = &sum,
                                           .count = 1,
                                           .type = &int32_type(),
                                           .op = &core::Op::predefined(core::OpKind::kSum),
                                           .root = 0});
    team.ready(rank);
    auto check = [&](std::uint64_t seq, bool release) {
      int k = static_cast<int>(seq - 1) / 2;  // barriers 3, 5, 7
      bool posted = posted_alone(team, rank, *barrier, seq, k, stage);
      if (rank == 0) {
        EXPECT_EQ(posted, !release) << "barrier " << seq;
      }
    };
    run_to_end(*barrier);  // 1
    run_to_end(*small);    // 2
    check(3, /*release=*/true);
    run_to_end(*large);  // 4
    check(5, /*release=*/false);
    run_to_end(*reduce);  // 6
    check(7, /*release=*/false);
    EXPECT_EQ(data[255], 7);
    if (rank == 0) {
      EXPECT_EQ(sum, 2);
    }
  });
}

}  // namespace
}  // namespace gpurun::coll::shm::testing
