// The schedules of coll/basic, run as message passing between simulated members for every
// team size from 1 to 40 (powers of two and not): what each member ends with must be what the
// collective promises. The pml side of coll/basic runs in mpi_tests (comm/, env/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "coll/basic.h"

namespace gpurun::coll {
namespace {

constexpr int kMaxSize = 40;

TEST(BasicPlan, BarrierMembersHearFromEveryone) {
  for (int size = 1; size <= kMaxSize; ++size) {
    // heard[m]: whose entry member m knows of (transitively) once its rounds are done.
    std::vector<std::set<int>> heard(static_cast<std::size_t>(size));
    for (int m = 0; m < size; ++m) heard[m] = {m};
    for (int round = 0; round < plan::barrier_rounds(size); ++round) {
      auto before = heard;
      for (int m = 0; m < size; ++m) {
        int from = plan::barrier_from(m, size, round);
        EXPECT_EQ(plan::barrier_to(from, size, round), m) << "size " << size;
        heard[m].insert(before[from].begin(), before[from].end());
      }
    }
    for (int m = 0; m < size; ++m) EXPECT_EQ(heard[m].size(), size_t(size)) << "size " << size;
  }
}

TEST(BasicPlan, BcastTreeReachesEveryMemberOnce) {
  for (int size = 1; size <= kMaxSize; ++size) {
    for (int root = 0; root < size; ++root) {
      std::vector<int> received_from(static_cast<std::size_t>(size), -2);
      for (int m = 0; m < size; ++m)
        for (int child : plan::bcast_children(m, size, root)) {
          EXPECT_EQ(received_from[child], -2) << "member " << child << " gets it twice";
          received_from[child] = m;
        }
      for (int m = 0; m < size; ++m) {
        int parent = plan::bcast_parent(m, size, root);
        if (m == root) {
          EXPECT_EQ(parent, -1);
          EXPECT_EQ(received_from[m], -2);
        } else {
          EXPECT_EQ(received_from[m], parent) << "size " << size << " root " << root;
        }
      }
      // Depth is at most ceil(log2 size): the data gets there in that many hops.
      for (int m = 0; m < size; ++m) {
        int hops = 0;
        for (int x = m; x != root; x = plan::bcast_parent(x, size, root)) ++hops;
        EXPECT_LE(hops, plan::barrier_rounds(size));
      }
    }
  }
}

TEST(BasicPlan, BruckAllgatherGathersEveryBlock) {
  for (int size = 1; size <= kMaxSize; ++size) {
    // blocks[m][i]: the member whose block sits at slot i of m's array (-1: none yet).
    std::vector<std::vector<int>> blocks(size, std::vector<int>(size, -1));
    for (int m = 0; m < size; ++m) blocks[m][0] = m;
    for (int round = 0; round < plan::allgather_rounds(size); ++round) {
      auto before = blocks;
      for (int m = 0; m < size; ++m) {
        plan::BruckRound r = plan::allgather_round(m, size, round);
        plan::BruckRound peer = plan::allgather_round(r.from, size, round);
        EXPECT_EQ(peer.to, m);
        EXPECT_EQ(peer.count, r.count);
        ASSERT_LE(r.offset + r.count, size);
        for (int i = 0; i < r.count; ++i) blocks[m][r.offset + i] = before[r.from][i];
      }
    }
    for (int m = 0; m < size; ++m)
      for (int i = 0; i < size; ++i)
        EXPECT_EQ(blocks[m][i], (m + i) % size) << "size " << size << " member " << m;
  }
}

TEST(BasicPlan, AllreduceCombinesEveryContribution) {
  for (int size = 1; size <= kMaxSize; ++size) {
    // Each member starts with one bit of its own; a sum must count each exactly once.
    std::vector<std::vector<std::int64_t>> data(size, std::vector<std::int64_t>(2));
    for (int m = 0; m < size; ++m) data[m] = {std::int64_t{1} << m, m + 1};
    for (int step = 0; step < plan::allreduce_steps(size); ++step) {
      auto before = data;
      for (int m = 0; m < size; ++m) {
        plan::Exchange x = plan::allreduce_step(m, size, step);
        if (x.recv_from < 0) continue;
        EXPECT_EQ(plan::allreduce_step(x.recv_from, size, step).send_to, m);
        if (x.combine) {
          reduce(ReduceOp::kSum, before[x.recv_from], data[m]);
        } else {
          data[m] = before[x.recv_from];
        }
      }
    }
    std::int64_t all_bits = (std::int64_t{1} << size) - 1, total = size * (size + 1) / 2;
    for (int m = 0; m < size; ++m) {
      EXPECT_EQ(data[m][0], all_bits) << "size " << size << " member " << m;
      EXPECT_EQ(data[m][1], total) << "size " << size << " member " << m;
    }
  }
}

TEST(BasicPlan, ReduceOperations) {
  std::vector<std::int64_t> a{0b1100, 5, -3}, b{0b1010, 7, -9};
  auto apply = [&](ReduceOp op) {
    std::vector<std::int64_t> out = a;
    reduce(op, b, out);
    return out;
  };
  EXPECT_EQ(apply(ReduceOp::kBand), (std::vector<std::int64_t>{0b1000, 5, -11}));
  EXPECT_EQ(apply(ReduceOp::kBor), (std::vector<std::int64_t>{0b1110, 7, -1}));
  EXPECT_EQ(apply(ReduceOp::kMax), (std::vector<std::int64_t>{0b1100, 7, -3}));
  EXPECT_EQ(apply(ReduceOp::kMin), (std::vector<std::int64_t>{0b1010, 5, -9}));
  EXPECT_EQ(apply(ReduceOp::kSum), (std::vector<std::int64_t>{0b10110, 12, -12}));
}

TEST(BasicPlan, TeamMapsMembersToCommunicatorRanks) {
  core::Communicator comm(core::Group::identity(6), 4, 0);
  Team all{.comm = &comm, .members = {}, .tag = 0};
  EXPECT_EQ(all.size(), 6);
  EXPECT_EQ(all.me(), 4);
  Team some{.comm = &comm, .members = {5, 4, 1}, .tag = 0};
  EXPECT_EQ(some.size(), 3);
  EXPECT_EQ(some.me(), 1);
  EXPECT_EQ(some.comm_rank(2), 1);
  Team without{.comm = &comm, .members = {0, 1}, .tag = 0};
  EXPECT_EQ(without.me(), -1);
}

}  // namespace
}  // namespace gpurun::coll

namespace gpurun::coll {
namespace {

// MPI_Comm_create_group's tags stay clear of coll's own and of every collective call's.
TEST(TeamTag, BelowCollsOwnTagsForEveryUserTag) {
  for (int tag : {0, 1, 14, 15, 16, 17, 1 << 20, INT_MAX - 1, INT_MAX}) {
    EXPECT_LE(team_tag(tag), kFirstTeamTag) << tag;
    EXPECT_NE(team_tag(tag), kGuardNoticeTag) << tag;
    EXPECT_NE(team_tag(tag), kShmSetupTag) << tag;
  }
  EXPECT_LT(kFirstTeamTag, kGuardNoticeTag);
  EXPECT_LT(kFirstTeamTag, kShmSetupTag);
  EXPECT_NE(team_tag(14), team_tag(15));
}

}  // namespace
}  // namespace gpurun::coll
