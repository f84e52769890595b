// A blocking call's start (ShmOp::start_blocking), ranks as threads: it runs the collective at
// once when the others have posted, waits through the engine (queued) when one is late, and
// never runs ahead of a collective still queued on the same arena.
#include <atomic>
#include <thread>

#include "runtime/core/op.h"
#include "tests/coll/shm_test_harness.h"

namespace gpurun::coll::shm::testing {
namespace {

Args allreduce_of(const int* in, int* out) {
  return Args{.collective = Collective::kAllreduce,
              .sendbuf = in,
              .recvbuf = out,
              .count = 1,
              .type = &int32_type(),
              .op = &core::Op::predefined(core::OpKind::kSum)};
}

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load()) std::this_thread::yield();
}

void finish(ShmOp& op) {
  while (!op.progress()) std::this_thread::yield();
  EXPECT_TRUE(op.status().ok()) << op.status().to_string();
}

TEST(ShmBlocking, RunsAtOnceWhenTheOthersHavePosted) {
  Team team(2, 16384);
  std::atomic<bool> posted{false};
  team.run([&](int rank) {
    int mine = rank + 1, sum = 0;
    auto op = make_allreduce(team.arena(rank), allreduce_of(&mine, &sum));
    team.ready(rank);
    if (rank == 1) {
      ASSERT_TRUE(op->start().ok());  // posts its flag line at once
      posted = true;
      finish(*op);
    } else {
      wait_for(posted);
      bool done = false;
      ASSERT_TRUE(op->start_blocking(done).ok());
      EXPECT_TRUE(done);
      EXPECT_FALSE(team.arena(rank).busy());
      EXPECT_TRUE(op->status().ok()) << op->status().to_string();
    }
    EXPECT_EQ(sum, 3);
  });
}

TEST(ShmBlocking, WaitsThroughTheEngineWhenAnotherIsLate) {
  Team team(2, 16384);
  std::atomic<bool> returned{false};
  team.run([&](int rank) {
    int mine = rank + 1, sum = 0;
    auto op = make_allreduce(team.arena(rank), allreduce_of(&mine, &sum));
    team.ready(rank);
    if (rank == 0) {
      bool done = true;
      ASSERT_TRUE(op->start_blocking(done).ok());
      EXPECT_FALSE(done);
      EXPECT_TRUE(team.arena(rank).busy());  // queued: the engine's poller progresses it
      returned = true;
    } else {
      wait_for(returned);
      ASSERT_TRUE(op->start().ok());
    }
    finish(*op);
    EXPECT_EQ(sum, 3);
  });
}

TEST(ShmBlocking, QueuesBehindACollectiveStillRunning) {
  Team team(2, 16384);
  std::atomic<bool> returned{false};
  team.run([&](int rank) {
    int first_in = rank + 1, first_sum = 0, second_in = 10 * (rank + 1), second_sum = 0;
    auto first = make_allreduce(team.arena(rank), allreduce_of(&first_in, &first_sum));
    auto second = make_allreduce(team.arena(rank), allreduce_of(&second_in, &second_sum));
    team.ready(rank);
    if (rank == 0) {
      ASSERT_TRUE(first->start().ok());  // a nonblocking call, waiting for rank 1
      bool done = true;
      ASSERT_TRUE(second->start_blocking(done).ok());
      EXPECT_FALSE(done);
      // Collective 2 waits behind collective 1: its flag line is not posted yet.
      EXPECT_FALSE(team.arena(rank).line_ready(rank, 2));
      returned = true;
    } else {
      wait_for(returned);
      ASSERT_TRUE(first->start().ok());
      finish(*first);
      ASSERT_TRUE(second->start().ok());
    }
    finish(*second);
    finish(*first);
    EXPECT_EQ(first_sum, 3);
    EXPECT_EQ(second_sum, 30);
  });
}

}  // namespace
}  // namespace gpurun::coll::shm::testing
