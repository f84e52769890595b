// The single-copy ("cma") forms of the shared-memory bcast, allgather(v), alltoall(v), gatherv and
// scatterv, ranks as threads (which read each other's memory by CMA through their own process id):
// 1 to 9 ranks, counts 1, 7, 1K, 16K and 64K, a contiguous and a strided type, in place and not,
// each collective started three times on one operation, ranks arriving in any order. The blocks
// must move without touching the slots; without CMA between all members the same operations go
// through the slots; and a read that CMA refuses fails the call on the reading rank with a message,
// while every rank ends.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

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
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = "p";
  name += std::to_string(c.size) + "_n" + std::to_string(c.count);
  name += c.strided ? "_strided" : "_int";
  name += c.in_place ? "_inplace" : "";
  return name;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int size = 1; size <= 9; ++size)
    for (std::int64_t count : {1, 7, 1024})
      for (bool strided : {false, true})
        for (bool in_place : {false, true}) out.push_back({size, count, strided, in_place});
  // Large: two ranks split a bcast, the reader's half written by the root (strided: read
  // whole by the reader, whose buffer takes no write).
  for (int size : {2, 3}) out.push_back({size, 1 << 16, false, false});
  out.push_back({2, 1 << 14, true, false});
  return out;
}

constexpr std::size_t kSlot = 16384;
constexpr int kStarts = kMovementStarts;
int tag(int rank, int start) { return movement_tag(rank, start); }

// Every arena of `team` reads the others by CMA under process id `pid` (this process's: the
// thread ranks share its memory).
void give_cma(Team& team, int rank, int pid) {
  team.arena(rank).set_cma_pids(std::vector<int>(static_cast<std::size_t>(team.size()), pid));
}

// Whether rank r's slot still holds nothing but zeros (the team's memory starts zeroed).
bool slot_untouched(Team& team, int r) {
  const std::byte* slot = team.arena(r).slot(r);
  return std::all_of(slot, slot + team.arena(r).slot_bytes(),
                     [](std::byte b) { return b == std::byte{0}; });
}

// Whether rank r's slot holds nothing but zeros beyond the first `lines` lines of each half
// (the entry lines of the v forms).
bool slot_untouched_past(Team& team, int r, int lines) {
  const std::byte* slot = team.arena(r).slot(r);
  std::size_t half = team.arena(r).slot_bytes() / 2, skip = lines * kLineBytes;
  auto zeros = [](const std::byte* from, const std::byte* to) {
    return std::all_of(from, to, [](std::byte b) { return b == std::byte{0}; });
  };
  return zeros(slot + skip, slot + half) && zeros(slot + half + skip, slot + 2 * half);
}

class ShmCma : public ::testing::TestWithParam<Case> {
 protected:
  const core::Datatype& type() const { return GetParam().strided ? strided_type() : int32_type(); }
  // Blocks beyond a flag line go by CMA: the slots stay as they were.
  void expect_slots_untouched(Team& team) {
    const Case& c = GetParam();
    if (c.size == 1 || c.count * static_cast<std::int64_t>(type().size()) * c.size <= 56) return;
    for (int r = 0; r < c.size; ++r) EXPECT_TRUE(slot_untouched(team, r)) << "slot of " << r;
  }
};

TEST_P(ShmCma, Bcast) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  check_bcast(team, type(), c.count, make_bcast_cma,
              [&](int rank) { give_cma(team, rank, getpid()); });
  expect_slots_untouched(team);
}

TEST_P(ShmCma, Allgather) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  check_allgather(team, type(), c.count, c.in_place, make_allgather_cma,
                  [&](int rank) { give_cma(team, rank, getpid()); });
  expect_slots_untouched(team);
}

// Runs an alltoall of `count` elements per block on every rank of `team` (each rank's arena
// prepared by `prepare`), checks the blocks, and returns each rank's status.
std::vector<Status> alltoall(Team& team, const core::Datatype& type, std::int64_t count,
                             bool in_place, const std::function<void(int)>& prepare) {
  std::vector<Status> statuses(static_cast<std::size_t>(team.size()));
  team.run([&](int rank) {
    std::mt19937 random(rank);
    IntArray send(type, count, team.size());
    IntArray recv(type, count, team.size());
    IntArray& source = in_place ? recv : send;
    Args args{.collective = Collective::kAlltoall,
              .sendbuf = source.data(),
              .recvbuf = recv.data(),
              .in_place = in_place,
              .count = count,
              .type = &type,
              .recvcount = count,
              .recvtype = &type};
    auto op = make_alltoall_cma(team.arena(rank), args);
    team.ready(rank);
    prepare(rank);
    for (int start = 0; start < kStarts; ++start) {
      recv.fill(rank + 100, team.size());
      source.fill(tag(rank, start), team.size());
      arrive_late(random);
      EXPECT_TRUE(op->start().ok());
      while (!op->progress()) std::this_thread::yield();
      statuses[static_cast<std::size_t>(rank)] = op->status();
      if (!op->status().ok()) continue;
      for (int r = 0; r < team.size(); ++r)
        EXPECT_TRUE(recv.holds(r, tag(r, start), rank)) << "block " << r << " at " << rank;
      EXPECT_TRUE(recv.holes_intact());
    }
  });
  return statuses;
}

TEST_P(ShmCma, Alltoall) {
  const Case& c = GetParam();
  Team team(c.size, kSlot);
  auto statuses = alltoall(team, type(), c.count, c.in_place,
                           [&](int rank) { give_cma(team, rank, getpid()); });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.to_string();
  expect_slots_untouched(team);
}

// Blocks up to 32 B travel in the writer's entry, up to 4K in its slot, larger ones by CMA
// (counts 1, 7 and 3000 cover the three).
TEST_P(ShmCma, Allgatherv) {
  const Case& c = GetParam();
  Team team(c.size, 65536);
  check_allgatherv(team, type(), c.count == 1024 ? 3000 : c.count, c.in_place, make_allgather_cma,
                   [&](int rank) { give_cma(team, rank, getpid()); });
}

// Blocks up to 32 B travel in the writer's entry, up to 4K in its slot, larger ones by CMA
// (counts 1, 7 and 3000 cover the three).
TEST_P(ShmCma, Alltoallv) {
  const Case& c = GetParam();
  Team team(c.size, 65536);
  check_alltoallv(team, type(), c.count == 1024 ? 3000 : c.count, c.in_place, make_alltoall_cma,
                  [&](int rank) { give_cma(team, rank, getpid()); });
}

// Gatherv and scatterv: blocks as in Allgatherv, to and from each root in turn. Blocks beyond
// 4K (count 3000) go by CMA: nothing but the entry lines in the slots (the root's, one a rank).
TEST_P(ShmCma, Gatherv) {
  const Case& c = GetParam();
  Team team(c.size, 65536);
  check_gatherv(team, type(), c.count == 1024 ? 3000 : c.count, c.in_place, make_gather_cma,
                [&](int rank) { give_cma(team, rank, getpid()); });
  for (int r = 0; c.count == 1024 && r < c.size; ++r)
    EXPECT_TRUE(slot_untouched_past(team, r, c.size)) << "slot of " << r;
}

TEST_P(ShmCma, Scatterv) {
  const Case& c = GetParam();
  Team team(c.size, 65536);
  check_scatterv(team, type(), c.count == 1024 ? 3000 : c.count, c.in_place, make_scatter_cma,
                 [&](int rank) { give_cma(team, rank, getpid()); });
  for (int r = 0; c.count == 1024 && r < c.size; ++r)
    EXPECT_TRUE(slot_untouched_past(team, r, c.size)) << "slot of " << r;
}

// Gather and scatter: blocks beyond the flag lines as gatherv's and scatterv's (count 3000: by
// CMA).
TEST_P(ShmCma, Gather) {
  const Case& c = GetParam();
  Team team(c.size, 65536);
  check_gatherv(
      team, type(), c.count == 1024 ? 3000 : c.count, c.in_place, make_gather_cma,
      [&](int rank) { give_cma(team, rank, getpid()); }, true);
  for (int r = 0; c.count == 1024 && r < c.size; ++r)
    EXPECT_TRUE(slot_untouched_past(team, r, c.size)) << "slot of " << r;
}

TEST_P(ShmCma, Scatter) {
  const Case& c = GetParam();
  Team team(c.size, 65536);
  check_scatterv(
      team, type(), c.count == 1024 ? 3000 : c.count, c.in_place, make_scatter_cma,
      [&](int rank) { give_cma(team, rank, getpid()); }, true);
  for (int r = 0; c.count == 1024 && r < c.size; ++r)
    EXPECT_TRUE(slot_untouched_past(team, r, c.size)) << "slot of " << r;
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmCma, ::testing::ValuesIn(cases()), name_of);

// The core tests' teams: a slot of 1M, and ranks r and r + 2 sharing a core.
constexpr std::size_t kCoreSlot = 1 << 20;
bool has_core_partner(int rank, int size) { return rank + 2 < size || rank >= 2; }
// Prepares `rank`'s arena: CMA to everyone, and the core groups.
void share_cores(Team& team, int rank) {
  give_cma(team, rank, getpid());
  std::vector<int> groups;
  for (int r = 0; r < team.size(); ++r) groups.push_back(r % 2);
  team.arena(rank).set_core_groups(groups);
}
// The slot of every rank with a core partner was used when the data went `through_slots`,
// and no other.
void expect_partners_slots(Team& team, bool through_slots) {
  for (int r = 0; r < team.size(); ++r)
    EXPECT_EQ(slot_untouched(team, r), !(through_slots && has_core_partner(r, team.size())))
        << "slot of " << r;
}

// Ranks that share a core (here r and r + 2: Arena::set_core_groups) trade alltoall blocks of up
// to 64K through their slots, filled before they post, so that a writer waits only for the
// readers of its own buffer: the blocks arrive whole over three starts (the sources refilled
// after each, while a partner may still be reading the slot), the slot of every rank with a
// partner holds data and that of a rank alone stays untouched. Larger blocks go by CMA only.
TEST(ShmCmaCores, PartnersOnOneCoreTradeBlocksThroughTheSlots) {
  for (int size : {3, 4, 5}) {
    for (std::int64_t count : {7, 1024, 16384, 32768}) {
      for (bool in_place : {false, true}) {
        char trace[64];
        std::snprintf(trace, sizeof trace, "p%d n%lld%s", size, static_cast<long long>(count),
                      in_place ? " in place" : "");
        SCOPED_TRACE(trace);
        Team team(size, kCoreSlot);
        auto statuses = alltoall(team, int32_type(), count, in_place,
                                 [&](int rank) { share_cores(team, rank); });
        for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.to_string();
        expect_partners_slots(team, count * 4 <= (64 << 10));
      }
    }
  }
}

// Bcast readers that share a core (r and r + 2 here) do not all read the root's buffer: the
// root's core partners copy the message from its slot, and of two partners on another core the
// first to arrive reads the root's buffer and passes the message on through its slot (a group
// of three there reads the root's buffer each). Every root, three starts each, ranks arriving
// in any order: the message arrives whole, the slot of every rank with a partner was used and
// that of a rank alone was not. A message larger than half a slot goes by CMA only.
TEST(ShmCmaCores, BcastReadersOnOneCorePassTheMessageOn) {
  for (int size : {3, 4, 5, 6}) {
    for (std::int64_t count : {1024, 16384, 200000}) {
      for (bool strided : {false, true}) {
        char trace[64];
        std::snprintf(trace, sizeof trace, "p%d n%lld%s", size, static_cast<long long>(count),
                      strided ? " strided" : "");
        SCOPED_TRACE(trace);
        Team team(size, kCoreSlot);
        const core::Datatype& type = strided ? strided_type() : int32_type();
        check_bcast(team, type, count, make_bcast_cma, [&](int rank) { share_cores(team, rank); });
        auto bytes = static_cast<std::size_t>(count) * type.size();
        expect_partners_slots(team, bytes + 64 <= kCoreSlot / 2);
      }
    }
  }
}

// Without CMA between all members (the setup found none), the cma algorithms run through the
// slots, with the same results.
TEST(ShmCmaFallback, WithoutCmaTheBlocksGoThroughTheSlots) {
  Team team(3, kSlot);
  auto statuses = alltoall(team, int32_type(), 1024, false, [](int) {});
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.to_string();
  EXPECT_FALSE(slot_untouched(team, 0));
}

// A read that CMA refuses (here: a process that does not exist) fails the call on every rank
// that read, naming the collective and the source, and every rank still ends.
TEST(ShmCmaFailure, ARefusedReadFailsTheCallAndNobodyWaits) {
  Team team(3, kSlot);
  auto statuses = alltoall(team, int32_type(), 1024, false, [&](int rank) {
    give_cma(team, rank, 0x7ffffff0);  // above any pid_max
  });
  for (const Status& s : statuses) {
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.to_string().find("alltoall: reading the block of rank"), std::string::npos)
        << s.to_string();
  }
}

}  // namespace
}  // namespace gpurun::coll::shm::testing
