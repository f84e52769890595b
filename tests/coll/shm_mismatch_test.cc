// Counts that differ between ranks in the shared-memory collectives, ranks as threads: every
// rank finishes (none waits for data that never comes), the ranks that can tell report the
// error class the pml algorithms report (truncation when a source sends more than this rank
// expects, an invalid argument when less), and the next collective on the same arenas works
// (sequence numbers and count entries stay in step). Sizes cover the flag lines, one chunk
// and several chunks of the slot.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "coll/shm/check.h"
#include "tests/coll/shm_test_harness.h"

namespace gpurun::coll::shm::testing {
namespace {

constexpr std::size_t kSlot = 16384;

struct Case {
  int size;
  std::int64_t count;  // ints of the ranks that are right; rank `odd` has twice or half as many
  bool more;           // the odd rank has more (twice as many), else fewer (half)
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on "literal" + std::string.
  std::string name = "p";
  name += std::to_string(info.param.size) + "_n" + std::to_string(info.param.count);
  name += info.param.more ? "_more" : "_fewer";
  return name;
}

// `blocks`: collectives whose p blocks share half a slot (alltoall, gather, scatter) stop at
// blocks of 4096 ints.
std::vector<Case> cases(bool blocks) {
  std::vector<Case> out;
  for (int size : {2, 3, 5})
    for (std::int64_t count : {2, 64, 4096, 40000})
      for (bool more : {false, true})
        if (!blocks || count <= 4096) out.push_back({size, count, more});
  return out;
}

class ShmMismatch : public ::testing::TestWithParam<Case> {
 public:
  static constexpr int kOdd = 0;  // the rank with the other count (a root, when there is one)
  std::int64_t count_of(int rank) const {
    const Case& c = GetParam();
    if (rank != kOdd) return c.count;
    return c.more ? 2 * c.count : c.count / 2;
  }
  // Runs `op` to its end (it must end) and returns its status.
  static Status finish(ShmOp& op) {
    EXPECT_TRUE(op.start().ok());
    while (!op.progress()) std::this_thread::yield();
    return op.status();
  }
  // Afterwards, a barrier and an allreduce of one int work on the same arenas.
  static void still_works(Arena& arena, int size) {
    auto barrier = make_barrier(arena, Args{});
    EXPECT_TRUE(finish(*barrier).ok());
    std::int32_t one = 1, sum = 0;
    Args args{.collective = Collective::kAllreduce,
              .sendbuf = &one,
              .recvbuf = &sum,
              .count = 1,
              .type = &int32_type(),
              .op = &core::Op::predefined(core::OpKind::kSum)};
    auto allreduce = make_allreduce(arena, args);
    Status st = finish(*allreduce);
    EXPECT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(sum, size);
  }
};

// The root sends `count_of(root)`, the others expect their own count: the others report
// (truncated when the root sends more), the root reports nothing.
TEST_P(ShmMismatch, Bcast) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  team.run([&](int rank) {
    std::vector<std::int32_t> data(static_cast<std::size_t>(2 * c.count), rank);
    Args args{.collective = Collective::kBcast,
              .recvbuf = data.data(),
              .count = count_of(rank),
              .type = &int32_type(),
              .root = kOdd};
    auto op = make_bcast(team.arena(rank), args);
    team.ready(rank);
    Status st = finish(*op);
    if (rank == kOdd) {
      EXPECT_TRUE(st.ok()) << st.to_string();
    } else {
      EXPECT_EQ(st.code(), c.more ? ErrorCode::kTruncated : ErrorCode::kInvalidArgument)
          << st.to_string();
      EXPECT_NE(st.message().find("do not match"), std::string_view::npos) << st.to_string();
    }
    still_works(team.arena(rank), c.size);
  });
}

// Every rank of an allreduce, reduce, allgather or alltoall reports.
void all_report(int size, const std::function<Status(int rank, Arena& arena)>& body, Team& team) {
  team.run([&](int rank) {
    Status st = body(rank, team.arena(rank));
    EXPECT_FALSE(st.ok()) << "rank " << rank << " of " << size;
    ShmMismatch::still_works(team.arena(rank), size);
  });
}

TEST_P(ShmMismatch, Allreduce) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  all_report(
      c.size,
      [&](int rank, Arena& arena) {
        std::vector<std::int32_t> in(static_cast<std::size_t>(2 * c.count), 1), out(in.size());
        Args args{.collective = Collective::kAllreduce,
                  .sendbuf = in.data(),
                  .recvbuf = out.data(),
                  .count = count_of(rank),
                  .type = &int32_type(),
                  .op = &core::Op::predefined(core::OpKind::kSum)};
        auto op = make_allreduce(arena, args);
        team.ready(rank);
        return finish(*op);
      },
      team);
}

Args reduce_args(const std::vector<std::int32_t>& in, std::vector<std::int32_t>& out,
                 std::int64_t count, int root) {
  return Args{.collective = Collective::kReduce,
              .sendbuf = in.data(),
              .recvbuf = out.data(),
              .count = count,
              .type = &int32_type(),
              .op = &core::Op::predefined(core::OpKind::kSum),
              .root = root};
}

// The root reads every count and reports; so do the non-roots that wait for the others' data
// (the shares of a large reduce), while those that only post their operand (a flag line, one
// direct chunk, the stream of a reduce of two ranks) check nobody's, like the non-roots of a
// gather: if they report, it is the mismatch, and they report it whenever their own count
// takes them to the shares.
TEST_P(ShmMismatch, Reduce) {
  const Case& c = GetParam();
  constexpr int kRoot = 1;
  Team team(c.size, kSlot);
  team.run([&](int rank) {
    std::vector<std::int32_t> in(static_cast<std::size_t>(2 * c.count), 1), out(in.size());
    auto op = make_reduce(team.arena(rank), reduce_args(in, out, count_of(rank), kRoot));
    team.ready(rank);
    Status st = finish(*op);
    bool shares = count_of(rank) * 4 > 32768 / c.size && count_of(rank) * 4 > 4096 && c.size > 2;
    if (rank == kRoot || shares) {
      EXPECT_FALSE(st.ok()) << "rank " << rank << " of " << c.size;
    }
    if (!st.ok()) {
      EXPECT_NE(st.message().find("do not match"), std::string_view::npos) << st.to_string();
    }
    ShmMismatch::still_works(team.arena(rank), c.size);
  });
}

// A non-root of a small reduce waits for nobody: it finishes before the root and the other
// member have started theirs (a count check of everyone's would wait for the slowest).
TEST(ShmReduce, SmallNonRootFinishesBeforeTheOthersStart) {
  for (std::int64_t count : {2, 64, 1024}) {
    Team team(3, kSlot);
    std::atomic<bool> finished{false};
    team.run([&](int rank) {
      std::vector<std::int32_t> in(static_cast<std::size_t>(count), rank + 1), out(in.size());
      auto op = make_reduce(team.arena(rank), reduce_args(in, out, count, 0));
      team.ready(rank);
      if (rank == 2) {
        ASSERT_TRUE(op->start().ok());
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        bool done = false;
        while (!(done = op->progress()) && std::chrono::steady_clock::now() < until)
          std::this_thread::yield();
        EXPECT_TRUE(done) << count << " ints: the non-root waited for the others";
        finished = true;  // let the others in: a non-root that waits for them ends then
        while (!done) done = op->progress();
        return;
      }
      while (!finished) std::this_thread::yield();
      run_to_end(*op);
      if (rank == 0) {
        EXPECT_EQ(out[0], 6) << count << " ints";
      }
    });
  }
}

TEST_P(ShmMismatch, Allgather) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  all_report(
      c.size,
      [&](int rank, Arena& arena) {
        std::int64_t n = count_of(rank);
        std::vector<std::int32_t> in(static_cast<std::size_t>(2 * c.count), 1),
            out(static_cast<std::size_t>(2 * c.count * c.size));
        Args args{.collective = Collective::kAllgather,
                  .sendbuf = in.data(),
                  .recvbuf = out.data(),
                  .count = n,
                  .type = &int32_type(),
                  .recvcount = n,
                  .recvtype = &int32_type()};
        auto op = make_allgather(arena, args);
        team.ready(rank);
        return finish(*op);
      },
      team);
}

class ShmMismatchBlocks : public ShmMismatch {};

TEST_P(ShmMismatchBlocks, Alltoall) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  all_report(
      c.size,
      [&](int rank, Arena& arena) {
        std::int64_t n = count_of(rank);
        std::vector<std::int32_t> in(static_cast<std::size_t>(2 * c.count * c.size), 1),
            out(in.size());
        Args args{.collective = Collective::kAlltoall,
                  .sendbuf = in.data(),
                  .recvbuf = out.data(),
                  .count = n,
                  .type = &int32_type(),
                  .recvcount = n,
                  .recvtype = &int32_type()};
        auto op = make_alltoall(arena, args);
        team.ready(rank);
        return finish(*op);
      },
      team);
}

// A rank whose send count differs from its own receive count fails at once; the others,
// which read its count, fail too.
TEST_P(ShmMismatch, AllgatherOwnCountsDiffer) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  all_report(
      c.size,
      [&](int rank, Arena& arena) {
        std::vector<std::int32_t> in(static_cast<std::size_t>(2 * c.count), 1),
            out(static_cast<std::size_t>(2 * c.count * c.size));
        Args args{.collective = Collective::kAllgather,
                  .sendbuf = in.data(),
                  .recvbuf = out.data(),
                  .count = count_of(rank),
                  .type = &int32_type(),
                  .recvcount = c.count,
                  .recvtype = &int32_type()};
        auto op = make_allgather(arena, args);
        team.ready(rank);
        return finish(*op);
      },
      team);
}

// Gather: the root, which reads everyone, reports; scatter: the others, which read the root.
TEST_P(ShmMismatchBlocks, GatherAndScatter) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  team.run([&](int rank) {
    constexpr int kRoot = 1;
    std::int64_t mine = rank == kRoot ? count_of(kOdd) : c.count;  // the root is the odd one
    std::vector<std::int32_t> block(static_cast<std::size_t>(2 * c.count), 1),
        all(static_cast<std::size_t>(2 * c.count * c.size));
    Args gather{.collective = Collective::kGather,
                .sendbuf = block.data(),
                .recvbuf = rank == kRoot ? all.data() : nullptr,
                .in_place = rank == kRoot,
                .count = mine,
                .type = &int32_type(),
                .recvcount = mine,
                .recvtype = &int32_type(),
                .root = kRoot};
    auto op = make_gather(team.arena(rank), gather);
    team.ready(rank);
    Status st = finish(*op);
    EXPECT_EQ(st.ok(), rank != kRoot) << "rank " << rank << ": " << st.to_string();
    Args scatter = gather;
    scatter.collective = Collective::kScatter;
    scatter.sendbuf = rank == kRoot ? all.data() : nullptr;
    scatter.recvbuf = block.data();
    auto op2 = make_scatter(team.arena(rank), scatter);
    st = finish(*op2);
    EXPECT_EQ(st.ok(), rank == kRoot) << "rank " << rank << ": " << st.to_string();
    still_works(team.arena(rank), c.size);
  });
}

// A member that ran the call (tag 5) with another algorithm never posts a count for it: its
// next collectives (tags 6, 7) close the gap, and the ranks that wait for its count fail
// instead of waiting for ever; those collectives then work on every rank. `make` builds the
// call on the ranks that run it in shm; rank kOdd skips it (a bcast root, a reduce non-root).
void skipped_by_odd(int size, Collective collective) {
  Team team(size, kSlot);
  team.run([&](int rank) {
    std::vector<std::int32_t> in(4096, 1), out(in.size());
    const core::Op& sum_op = core::Op::predefined(core::OpKind::kSum);
    team.ready(rank);
    if (rank != ShmMismatch::kOdd) {
      Args args{.collective = collective,
                .sendbuf = in.data(),
                .recvbuf = out.data(),
                .count = 4096,
                .type = &int32_type(),
                .op = collective == Collective::kReduce ? &sum_op : nullptr,
                .root = collective == Collective::kReduce ? 1 : ShmMismatch::kOdd,
                .tag = 5};
      auto op = collective == Collective::kReduce ? make_reduce(team.arena(rank), args)
                                                  : make_bcast(team.arena(rank), args);
      Status st = ShmMismatch::finish(*op);
      EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument)
          << "rank " << rank << ": " << st.to_string();
      EXPECT_NE(st.message().find("rank 0 ran this call with another algorithm"),
                std::string_view::npos)
          << st.to_string();
    }
    auto barrier = make_barrier(team.arena(rank), Args{.tag = 6});
    EXPECT_TRUE(ShmMismatch::finish(*barrier).ok());
    std::int32_t one = 1, total = 0;
    Args args{.collective = Collective::kAllreduce,
              .sendbuf = &one,
              .recvbuf = &total,
              .count = 1,
              .type = &int32_type(),
              .op = &sum_op,
              .tag = 7};
    auto allreduce = make_allreduce(team.arena(rank), args);
    EXPECT_TRUE(ShmMismatch::finish(*allreduce).ok());
    EXPECT_EQ(total, size);
  });
}

TEST(ShmSkipped, BcastRootRanAnotherAlgorithm) {
  for (int size : {2, 3, 5}) skipped_by_odd(size, Collective::kBcast);
}

TEST(ShmSkipped, ReduceMemberRanAnotherAlgorithm) {
  for (int size : {2, 3, 5}) skipped_by_odd(size, Collective::kReduce);
}

// Alltoallv, allgatherv, scatterv and gatherv wait in round 0 for the head of each source's
// block, which rank kOdd (a member, the root of the scatterv) never writes: its call failed
// before it started. Those that read its block (every other rank; the gatherv's root, rank 1)
// fail once its next collective closes the gap, whether the block would have come in the head
// (n = 4) or after it (n = 4096); the gatherv's other members read nothing and succeed.
// The single-copy forms (`cma`, the members reaching each other by CMA) wait for an entry line
// instead, and fail the same way (n = 4096: by CMA).
std::unique_ptr<ShmOp> make_v_form(Arena& arena, const Args& args, bool cma) {
  switch (args.collective) {
    case Collective::kAlltoallv:
      return cma ? make_alltoall_cma(arena, args) : make_alltoall(arena, args);
    case Collective::kScatterv:
      return cma ? make_scatter_cma(arena, args) : make_scatter(arena, args);
    case Collective::kAllgatherv:
      return cma ? make_allgather_cma(arena, args) : make_allgather(arena, args);
    default:
      return cma ? make_gather_cma(arena, args) : make_gather(arena, args);
  }
}

void v_form_skipped_by_odd(int size, Collective collective, std::int64_t n, bool cma);

// On 2, 3 and 5 ranks, blocks in the head (n = 4) and after it (n = 4096).
void v_form_skipped_by_odd(Collective collective, bool cma = false) {
  for (int size : {2, 3, 5})
    for (std::int64_t n : {4, 4096}) v_form_skipped_by_odd(size, collective, n, cma);
}

void v_form_skipped_by_odd(int size, Collective collective, std::int64_t n, bool cma) {
  Team team(size, kSlot);
  int root = collective == Collective::kGatherv ? 1 : ShmMismatch::kOdd;
  team.run([&](int rank) {
    auto p = static_cast<std::size_t>(size);
    std::vector<std::int32_t> in(p * static_cast<std::size_t>(n), 1), out(in.size());
    std::vector<std::int64_t> counts(p, n), displs(p);
    for (std::size_t r = 0; r < p; ++r) displs[r] = static_cast<std::int64_t>(r) * n;
    team.ready(rank);
    if (cma) team.arena(rank).set_cma_pids(std::vector<int>(p, getpid()));
    if (rank != ShmMismatch::kOdd) {
      Args args{.collective = collective,
                .sendbuf = in.data(),
                .recvbuf = out.data(),
                .count = n,
                .type = &int32_type(),
                .recvcount = n,
                .recvtype = &int32_type(),
                .sendcounts = counts.data(),
                .sdispls = displs.data(),
                .recvcounts = counts.data(),
                .rdispls = displs.data(),
                .root = root,
                .tag = 5};
      Status st = ShmMismatch::finish(*make_v_form(team.arena(rank), args, cma));
      if (collective == Collective::kGatherv && rank != root) {
        EXPECT_TRUE(st.ok()) << "rank " << rank << ", n " << n << ": " << st.to_string();
      } else {
        EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument)
            << "rank " << rank << ", n " << n << ": " << st.to_string();
        std::string_view who = collective == Collective::kScatterv ? "the root (rank 0) ran this"
                                                                   : "rank 0 ran this call";
        EXPECT_NE(st.message().find(who), std::string_view::npos) << st.to_string();
      }
    }
    auto barrier = make_barrier(team.arena(rank), Args{.tag = 6});
    EXPECT_TRUE(ShmMismatch::finish(*barrier).ok());
    ShmMismatch::still_works(team.arena(rank), size);
  });
}

TEST(ShmSkipped, AlltoallvMemberDidNotRun) { v_form_skipped_by_odd(Collective::kAlltoallv); }

TEST(ShmSkipped, ScattervRootDidNotRun) { v_form_skipped_by_odd(Collective::kScatterv); }

TEST(ShmSkipped, AllgathervMemberDidNotRun) { v_form_skipped_by_odd(Collective::kAllgatherv); }

TEST(ShmSkipped, GathervMemberDidNotRun) { v_form_skipped_by_odd(Collective::kGatherv); }

TEST(ShmSkipped, CmaAlltoallvMemberDidNotRun) {
  v_form_skipped_by_odd(Collective::kAlltoallv, true);
}

TEST(ShmSkipped, CmaScattervRootDidNotRun) { v_form_skipped_by_odd(Collective::kScatterv, true); }

TEST(ShmSkipped, CmaAllgathervMemberDidNotRun) {
  v_form_skipped_by_odd(Collective::kAllgatherv, true);
}

TEST(ShmSkipped, CmaGathervMemberDidNotRun) { v_form_skipped_by_odd(Collective::kGatherv, true); }

INSTANTIATE_TEST_SUITE_P(Shm, ShmMismatch, ::testing::ValuesIn(cases(false)), name_of);
INSTANTIATE_TEST_SUITE_P(Shm, ShmMismatchBlocks, ::testing::ValuesIn(cases(true)), name_of);

// A member that leaves (its communicator freed, or MPI_Finalize) without running a call: the
// ranks that wait for it in that call, a bcast it is the root of, an allreduce or a barrier,
// fail and name it, whether the data would have come in a flag line (n = 1) or through the
// slots (n = 4096).
TEST(ShmLeft, TheOthersFailAndNameIt) {
  for (int size : {2, 3, 5})
    for (Collective collective : {Collective::kBcast, Collective::kAllreduce, Collective::kBarrier})
      for (std::int64_t n : {1, 4096}) {
        Team team(size, kSlot);
        team.run([&](int rank) {
          std::vector<std::int32_t> in(4096, 1), out(in.size());
          team.ready(rank);
          if (rank == ShmMismatch::kOdd) {
            team.arena(rank).leave();
            return;
          }
          Args args{.collective = collective,
                    .sendbuf = in.data(),
                    .recvbuf = out.data(),
                    .count = n,
                    .type = &int32_type(),
                    .op = &core::Op::predefined(core::OpKind::kSum),
                    .root = ShmMismatch::kOdd,
                    .tag = 5};
          Arena& arena = team.arena(rank);
          auto op = collective == Collective::kBcast       ? make_bcast(arena, args)
                    : collective == Collective::kAllreduce ? make_allreduce(arena, args)
                                                           : make_barrier(arena, args);
          Status st = ShmMismatch::finish(*op);
          EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument)
              << "p " << size << ", n " << n << ", rank " << rank << ": " << st.to_string();
          EXPECT_NE(st.message().find("rank 0 left the communicator"), std::string_view::npos)
              << st.to_string();
        });
      }
}

// Rank 0 runs an allgather where the others run an allreduce of the same bytes: the counts they
// publish carry the collective (check.h: signed_count), so every rank reports, naming both.
TEST(ShmOtherCollective, AllgatherAgainstAllreduceOfTheSameBytes) {
  for (int size : {2, 3, 5})
    for (std::int64_t n : {2, 4096}) {
      Team team(size, kSlot);
      team.run([&](int rank) {
        std::vector<std::int32_t> in(static_cast<std::size_t>(n), 1),
            out(static_cast<std::size_t>(n * size));
        Args args{.collective = Collective::kAllreduce,
                  .sendbuf = in.data(),
                  .recvbuf = out.data(),
                  .count = n,
                  .type = &int32_type(),
                  .recvcount = n,
                  .recvtype = &int32_type(),
                  .op = &core::Op::predefined(core::OpKind::kSum)};
        Arena& arena = team.arena(rank);
        bool odd = rank == ShmMismatch::kOdd;
        if (odd) args.collective = Collective::kAllgather;
        auto op = odd ? make_allgather(arena, args) : make_allreduce(arena, args);
        team.ready(rank);
        Status st = ShmMismatch::finish(*op);
        EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument)
            << "p " << size << ", n " << n << ", rank " << rank << ": " << st.to_string();
        EXPECT_NE(st.message().find(odd ? "runs allreduce in this call, this rank allgather"
                                        : "rank 0 runs allgather in this call"),
                  std::string_view::npos)
            << st.to_string();
        ShmMismatch::still_works(arena, size);
      });
    }
}

}  // namespace
}  // namespace gpurun::coll::shm::testing
