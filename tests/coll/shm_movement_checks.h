// Bcast, allgather(v), alltoallv, gatherv and scatterv checks shared by the shared-memory movement
// tests (ranks as threads): each runs the collective from every root (bcast, gatherv, scatterv)
// kStarts times on one operation, ranks arriving in any order, and checks every rank's data and
// the holes of strided types.
// `prepare(rank)` runs once the rank's arena is mapped (a test that gives it CMA, say).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "tests/coll/shm_data_test.h"
#include "tests/coll/shm_test_harness.h"

namespace gpurun::coll::shm::testing {

inline constexpr int kMovementStarts = 3;
// Each start sends other data, so that data left over from an earlier start shows.
inline int movement_tag(int rank, int start) { return rank + 1000 * start; }

inline void check_bcast(Team& team, const core::Datatype& type, std::int64_t count, Factory make,
                        const std::function<void(int)>& prepare) {
  team.run([&](int rank) {
    std::mt19937 random(rank);
    for (int root = 0; root < team.size(); ++root) {
      IntArray data(type, count);
      Args args{.collective = Collective::kBcast,
                .recvbuf = data.data(),
                .count = count,
                .type = &type,
                .root = root};
      auto op = make(team.arena(rank), args);
      team.ready(rank);  // after the operation was made
      prepare(rank);
      for (int start = 0; start < kMovementStarts; ++start) {
        data.fill(rank == root ? movement_tag(root, start) : rank + 100);
        arrive_late(random);
        run_to_end(*op);
        EXPECT_TRUE(data.holds(0, movement_tag(root, start), 0))
            << "rank " << rank << " root " << root;
        EXPECT_TRUE(data.holes_intact());
      }
    }
  });
}

inline void check_allgather(Team& team, const core::Datatype& type, std::int64_t count,
                            bool in_place, Factory make, const std::function<void(int)>& prepare) {
  team.run([&](int rank) {
    std::mt19937 random(rank);
    IntArray send(type, count);
    IntArray recv(type, count, team.size());
    Args args{.collective = Collective::kAllgather,
              .sendbuf = send.data(),
              .recvbuf = recv.data(),
              .in_place = in_place,
              .count = count,
              .type = &type,
              .recvcount = count,
              .recvtype = &type};
    auto op = make(team.arena(rank), args);
    team.ready(rank);  // after the operation was made
    prepare(rank);
    for (int start = 0; start < kMovementStarts; ++start) {
      send.fill(movement_tag(rank, start));
      recv.fill(rank + 100, team.size());
      if (in_place)
        for (std::int64_t i = 0; i < recv.ints(); ++i)
          recv.at(rank, i) = value(movement_tag(rank, start), 0, i);
      arrive_late(random);
      run_to_end(*op);
      for (int r = 0; r < team.size(); ++r)
        EXPECT_TRUE(recv.holds(r, movement_tag(r, start), 0)) << "block " << r;
      EXPECT_TRUE(recv.holes_intact());
    }
  });
}

// Blocks of different sizes (rank r's block: count + r % 3 elements; count 0: r % 2), each at the
// start of a room of count + 3 elements whose rest must stay untouched; or (not `v`) blocks of
// count elements, one after the other.
struct VBlocks {
  VBlocks(int size, std::int64_t count, bool v = true) : room(v ? count + 3 : count) {
    for (int r = 0; r < size; ++r) {
      counts.push_back(!v ? count : count != 0 ? count + r % 3 : r % 2);
      displs.push_back(r * room);
    }
  }
  std::int64_t room;
  std::vector<std::int64_t> counts, displs;

  // Fills `recv` for start `start` of rank `rank`: `rank + 100`'s pattern, and its own block's
  // data where it gathers in place.
  void fill(IntArray& recv, int rank, int start, bool in_place) const {
    recv.fill(rank + 100, static_cast<int>(counts.size()));
    for (std::int64_t i = 0; in_place && i < counts[rank] * per(recv); ++i)
      recv.at(rank, i) = value(movement_tag(rank, start), 0, i);
  }
  // Every block r of `recv` holds rank r's data of `start` in its first counts[r] elements and
  // the fill of fill() after them.
  void expect_blocks(IntArray& recv, int rank, int start) const {
    for (int r = 0; r < static_cast<int>(counts.size()); ++r) {
      bool ok = true;
      for (std::int64_t i = 0; i < recv.ints(); ++i)
        ok &= recv.at(r, i) == (i < counts[r] * per(recv) ? value(movement_tag(r, start), 0, i)
                                                          : value(rank + 100, r, i));
      EXPECT_TRUE(ok) << "block " << r << ", rank " << rank << ", start " << start;
    }
    EXPECT_TRUE(recv.holes_intact());
  }
  // Ints per element.
  std::int64_t per(const IntArray& recv) const {
    return recv.ints() / std::max<std::int64_t>(room, 1);
  }
};

// Every rank sends its block of VBlocks to every other.
inline void check_allgatherv(Team& team, const core::Datatype& type, std::int64_t count,
                             bool in_place, Factory make, const std::function<void(int)>& prepare) {
  const VBlocks v(team.size(), count);
  team.run([&](int rank) {
    std::mt19937 random(rank);
    IntArray send(type, v.counts[rank]);
    IntArray recv(type, v.room, team.size());
    Args args{.collective = Collective::kAllgatherv,
              .sendbuf = send.data(),
              .recvbuf = recv.data(),
              .in_place = in_place,
              .count = v.counts[rank],
              .type = &type,
              .recvtype = &type,
              .recvcounts = v.counts.data(),
              .rdispls = v.displs.data()};
    auto op = make(team.arena(rank), args);
    team.ready(rank);  // after the operation was made
    prepare(rank);
    for (int start = 0; start < kMovementStarts; ++start) {
      send.fill(movement_tag(rank, start));
      v.fill(recv, rank, start, in_place);
      arrive_late(random);
      run_to_end(*op);
      v.expect_blocks(recv, rank, start);
    }
  });
}

// Ranks i and j exchange count + (i + j) % 3 elements each way (count 0: (i + j) % 2), each
// block at the start of a room of count + 3 elements whose rest must stay untouched.
inline void check_alltoallv(Team& team, const core::Datatype& type, std::int64_t count,
                            bool in_place, Factory make, const std::function<void(int)>& prepare) {
  const std::int64_t room = count + 3;
  auto pair = [&](int i, int j) { return count != 0 ? count + (i + j) % 3 : (i + j) % 2; };
  team.run([&](int rank) {
    std::mt19937 random(rank);
    std::vector<std::int64_t> counts, displs;
    for (int r = 0; r < team.size(); ++r) {
      counts.push_back(pair(rank, r));
      displs.push_back(r * room);
    }
    IntArray send(type, room, team.size());
    IntArray recv(type, room, team.size());
    IntArray& source = in_place ? recv : send;
    const std::int64_t per = recv.ints() / room;  // ints per element
    Args args{.collective = Collective::kAlltoallv,
              .sendbuf = source.data(),
              .recvbuf = recv.data(),
              .in_place = in_place,
              .type = &type,
              .recvtype = &type,
              .sendcounts = counts.data(),
              .sdispls = displs.data(),
              .recvcounts = counts.data(),
              .rdispls = displs.data()};
    auto op = make(team.arena(rank), args);
    team.ready(rank);  // after the operation was made
    prepare(rank);
    for (int start = 0; start < kMovementStarts; ++start) {
      recv.fill(rank + 100, team.size());
      source.fill(movement_tag(rank, start), team.size());
      arrive_late(random);
      run_to_end(*op);
      for (int r = 0; r < team.size(); ++r) {
        int rest = in_place ? movement_tag(rank, start) : rank + 100;
        bool ok = true;
        for (std::int64_t i = 0; i < recv.ints(); ++i)
          ok &= recv.at(r, i) ==
                (i < counts[r] * per ? value(movement_tag(r, start), rank, i) : value(rest, r, i));
        EXPECT_TRUE(ok) << "block " << r << ", start " << start;
      }
      EXPECT_TRUE(recv.holes_intact());
    }
  });
}

// Every rank sends its block of VBlocks to each root in turn (gatherv, or `gather`).
inline void check_gatherv(Team& team, const core::Datatype& type, std::int64_t count,
                          bool in_place_at_root, Factory make,
                          const std::function<void(int)>& prepare, bool gather = false) {
  const VBlocks v(team.size(), count, !gather);
  team.run([&](int rank) {
    std::mt19937 random(rank);
    for (int root = 0; root < team.size(); ++root) {
      bool in_place = in_place_at_root && rank == root;
      IntArray send(type, v.counts[rank]);
      IntArray recv(type, v.room, team.size());
      bool vs = !gather && rank == root;
      Args args{.collective = gather ? Collective::kGather : Collective::kGatherv,
                .sendbuf = send.data(),
                .recvbuf = rank == root ? recv.data() : nullptr,
                .in_place = in_place,
                .count = v.counts[rank],
                .type = &type,
                .recvcount = count,
                .recvtype = &type,
                .recvcounts = vs ? v.counts.data() : nullptr,
                .rdispls = vs ? v.displs.data() : nullptr,
                .root = root};
      auto op = make(team.arena(rank), args);
      team.ready(rank);  // after the operation was made
      prepare(rank);
      for (int start = 0; start < kMovementStarts; ++start) {
        send.fill(movement_tag(rank, start));
        v.fill(recv, rank, start, in_place);
        arrive_late(random);
        run_to_end(*op);
        if (rank == root) v.expect_blocks(recv, rank, start);
      }
    }
  });
}

// Each root in turn sends every rank its block of VBlocks (scatterv, or `scatter`).
inline void check_scatterv(Team& team, const core::Datatype& type, std::int64_t count,
                           bool in_place_at_root, Factory make,
                           const std::function<void(int)>& prepare, bool scatter = false) {
  const VBlocks v(team.size(), count, !scatter);
  team.run([&](int rank) {
    std::mt19937 random(rank);
    for (int root = 0; root < team.size(); ++root) {
      bool in_place = in_place_at_root && rank == root;
      IntArray send(type, v.room, team.size());
      IntArray recv(type, v.counts[rank]);
      bool vs = !scatter && rank == root;
      Args args{.collective = scatter ? Collective::kScatter : Collective::kScatterv,
                .sendbuf = rank == root ? send.data() : nullptr,
                .recvbuf = in_place ? nullptr : recv.data(),
                .in_place = in_place,
                .count = count,
                .type = &type,
                .recvcount = v.counts[rank],
                .recvtype = &type,
                .sendcounts = vs ? v.counts.data() : nullptr,
                .sdispls = vs ? v.displs.data() : nullptr,
                .root = root};
      auto op = make(team.arena(rank), args);
      team.ready(rank);  // after the operation was made
      prepare(rank);
      for (int start = 0; start < kMovementStarts; ++start) {
        send.fill(movement_tag(rank, start), team.size());
        recv.fill(rank + 100);
        arrive_late(random);
        run_to_end(*op);
        int expected = in_place ? rank + 100 : movement_tag(root, start);
        int block = in_place ? 0 : rank;
        EXPECT_TRUE(recv.holds(0, expected, block)) << "rank " << rank << " root " << root;
        EXPECT_TRUE(recv.holes_intact());
      }
    }
  });
}

}  // namespace gpurun::coll::shm::testing
