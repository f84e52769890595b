// The shared-memory reduce, allreduce, scan and exscan, ranks as threads, against a reference
// computed here:
// 1 to 9 ranks, counts 0, 1, 7, 1K (1M and 100003 for a few), every way (flag lines, direct,
// shares; flat and tree of flags; core groups, ranks r and r + cores sharing a core; the
// stream of a reduce of two ranks), MPI_SUM on ints
// and doubles, a non-commutative user op, in place and not, every root, each operation
// started three times back to back.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>

#include "coll/shm/core_groups.h"
#include "runtime/base/param.h"
#include "runtime/core/op.h"
#include "tests/coll/shm_test_harness.h"

namespace gpurun::coll::shm::testing {
namespace {

enum class Kind : std::uint8_t { kIntSum, kDoubleSum, kAffine };

// x -> a x + b maps, composed: (f op g)(x) = f(g(x)). Associative, not commutative; the
// operand of the lower rank is the outer map.
struct Affine {
  std::uint32_t a;
  std::uint32_t b;
};
Affine compose(Affine f, Affine g) { return Affine{f.a * g.a, f.a * g.b + f.b}; }
void affine_fn(const void* in, void* inout, std::int64_t count, const core::Datatype&, void*) {
  const auto* f = static_cast<const Affine*>(in);
  auto* g = static_cast<Affine*>(inout);
  for (std::int64_t i = 0; i < count; ++i) g[i] = compose(f[i], g[i]);
}

const core::Datatype& affine_type() {
  static auto* t = [] {
    static auto u32 = core::Datatype::predefined(core::BasicType::kUint32, 4, "MPI_UINT32_T");
    auto c = core::make_contiguous(2, *u32);
    c.value()->commit();
    return new core::DatatypeRef(c.value());
  }();
  return **t;
}

struct Case {
  int size;
  std::int64_t count;
  Kind kind;
  bool in_place;
  const char* way;  // GPURUN_COLL_SHM_DIRECT_MAX: "auto", "0" (shares), "1G" (direct)
  int flat_max;
  int cores = 0;  // > 0: rank r shares core r % cores (Arena::set_core_groups)
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const char* kinds[] = {"int", "double", "affine"};
  std::string way = std::string(c.way) == "0"    ? "shares"
                    : std::string(c.way) == "1G" ? "direct"
                                                 : "auto";
  return std::string("p") + std::to_string(c.size) + "_n" + std::to_string(c.count) + "_" +
         kinds[static_cast<int>(c.kind)] + (c.in_place ? "_inplace" : "") + "_" + way + "_flat" +
         std::to_string(c.flat_max) + (c.cores > 0 ? "_cores" + std::to_string(c.cores) : "");
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int size = 1; size <= 9; ++size)
    for (std::int64_t count : {0, 1, 7, 1024})
      for (Kind kind : {Kind::kIntSum, Kind::kDoubleSum, Kind::kAffine})
        for (bool in_place : {false, true}) {
          out.push_back({size, count, kind, in_place, "auto", 8});
          if (count == 1024) out.push_back({size, count, kind, in_place, "0", 8});
          if (count == 1024) out.push_back({size, count, kind, in_place, "1G", 8});
          if (count <= 7 && size >= 3) out.push_back({size, count, kind, in_place, "auto", 2});
        }
  for (int size : {2, 3, 5}) {
    out.push_back({size, 1 << 20, Kind::kIntSum, false, "auto", 8});
    out.push_back({size, 1 << 20, Kind::kAffine, true, "auto", 8});
  }
  // A reduce of two ranks as a stream through the quarters of the other's slot: many rounds
  // around the four quarters, a short last chunk, in place and not, commutative or not.
  for (Kind kind : {Kind::kIntSum, Kind::kDoubleSum, Kind::kAffine})
    for (bool in_place : {false, true}) out.push_back({2, 100003, kind, in_place, "auto", 8});
  // Core groups: reduce with a commutative op beyond direct; the affine op keeps the shares.
  for (int size = 3; size <= 9; ++size)
    for (int cores : {2, 3})
      for (Kind kind : {Kind::kIntSum, Kind::kDoubleSum, Kind::kAffine})
        for (bool in_place : {false, true})
          if (size > cores) out.push_back({size, 1024, kind, in_place, "0", 8, cores});
  for (int size : {4, 5}) out.push_back({size, 1 << 20, Kind::kIntSum, true, "auto", 8, 2});
  return out;
}

// Each rank's operand: element i of rank r at start s, as int32s (2 per affine element).
std::int32_t operand(int rank, int start, std::int64_t i) {
  return static_cast<std::int32_t>((rank + 1) * 2654435761u + start * 40503u + i * 977u) | 1;
}

class ShmReduction : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(param::find("GPURUN_COLL_SHM_DIRECT_MAX")->set_from_string(GetParam().way).ok());
    ASSERT_TRUE(param::find("GPURUN_COLL_SHM_FLAT_MAX")
                    ->set_from_string(std::to_string(GetParam().flat_max))
                    .ok());
    user_op_ = core::Op::user(affine_fn, nullptr, /*commutative=*/false);
  }
  void TearDown() override {
    (void)param::find("GPURUN_COLL_SHM_DIRECT_MAX")->set_from_string("auto");
    (void)param::find("GPURUN_COLL_SHM_FLAT_MAX")->set_from_string("8");
  }
  const core::Datatype& type() const {
    switch (GetParam().kind) {
      case Kind::kIntSum:
        return int32_type();
      case Kind::kDoubleSum:
        return double_type();
      case Kind::kAffine:
        return affine_type();
    }
    return int32_type();
  }
  const core::Op& op() const {
    return GetParam().kind == Kind::kAffine ? *user_op_ : core::Op::predefined(core::OpKind::kSum);
  }
  // Bytes of `count` elements of operand data, and one rank's operand.
  std::vector<std::byte> make_operand(int rank, int start) const {
    std::int64_t count = GetParam().count;
    std::vector<std::byte> bytes(count * type().size() + 1);
    for (std::int64_t i = 0; i < count; ++i) {
      std::int32_t v = operand(rank, start, i);
      switch (GetParam().kind) {
        case Kind::kIntSum:
          std::memcpy(&bytes[i * 4], &v, 4);
          break;
        case Kind::kDoubleSum: {
          double d = v * 0.001;
          std::memcpy(&bytes[i * 8], &d, 8);
          break;
        }
        case Kind::kAffine: {
          Affine f{static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v) * 7u};
          std::memcpy(&bytes[i * 8], &f, 8);
          break;
        }
      }
    }
    return bytes;
  }
  // x0 op (x1 op (... op x(last))), element by element, the same order as the algorithms
  // (last: p - 1 by default).
  std::vector<std::byte> reference(int start, int last = -1) const {
    if (last < 0) last = GetParam().size - 1;
    std::vector<std::byte> acc = make_operand(last, start);
    for (int r = last - 1; r >= 0; --r) {
      std::vector<std::byte> x = make_operand(r, start);
      EXPECT_TRUE(op().apply(x.data(), acc.data(), GetParam().count, type()).ok());
    }
    return acc;
  }
  // Runs `make`'s operation three times on every rank and checks the result at `root`
  // (every rank when root < 0). `prefix`: kScan or kExscan, run by make_allreduce with root -1.
  // `cma`: the ranks read each other's memory by CMA (their own process).
  void run(Factory make, int root, Collective prefix = Collective::kCount, bool cma = false);
  bool matches(const std::vector<std::byte>& got, const std::vector<std::byte>& expected) const;

  std::unique_ptr<core::Op> user_op_;
  static constexpr int kStarts = 3;
  static constexpr std::byte kGuard{0x5a};
};

void ShmReduction::run(Factory make, int root, Collective prefix, bool cma) {
  const Case& c = GetParam();
  Team team(c.size, c.count >= (1 << 20) ? 512 * 1024 : 16384);
  if (c.cores > 0) {
    std::vector<int> groups(c.size);
    for (int r = 0; r < c.size; ++r) groups[r] = r % c.cores;
    for (int r = 0; r < c.size; ++r) team.arena(r).set_core_groups(groups);
  }
  std::size_t bytes = c.count * type().size();
  std::vector<std::vector<std::byte>> results(c.size);
  team.run([&](int rank) {
    std::mt19937 random(rank);
    bool gets = root < 0 || rank == root;
    bool in_place = c.in_place && gets;
    std::vector<std::byte> send(bytes + 1, kGuard);
    std::vector<std::byte> recv(bytes + 1, kGuard);
    Collective collective = root >= 0                      ? Collective::kReduce
                            : prefix != Collective::kCount ? prefix
                                                           : Collective::kAllreduce;
    Args args{.collective = collective,
              .sendbuf = in_place ? recv.data() : send.data(),
              .recvbuf = gets ? recv.data() : nullptr,
              .in_place = in_place,
              .count = c.count,
              .type = &type(),
              .op = &op(),
              .root = root < 0 ? 0 : root};
    auto operation = make(team.arena(rank), args);
    team.ready(rank);  // after the operation was made
    if (cma) team.arena(rank).set_cma_pids(std::vector<int>(c.size, getpid()));
    for (int start = 0; start < kStarts; ++start) {
      std::vector<std::byte> mine = make_operand(rank, start);
      std::copy_n(mine.begin(), bytes, (in_place ? recv : send).begin());
      arrive_late(random);
      run_to_end(*operation);
      if (!gets) continue;
      int last = collective == Collective::kScan     ? rank
                 : collective == Collective::kExscan ? rank - 1
                                                     : c.size - 1;
      if (last >= 0) {
        EXPECT_TRUE(matches(recv, reference(start, last)))
            << "rank " << rank << " root " << root << " start " << start;
      } else if (in_place) {  // rank 0 of an exscan: its buffer as it was
        EXPECT_TRUE(std::equal(mine.begin(), mine.begin() + bytes, recv.begin()));
      } else {
        EXPECT_TRUE(std::all_of(recv.begin(), recv.begin() + bytes,
                                [](std::byte b) { return b == kGuard; }));
      }
      EXPECT_EQ(recv[bytes], kGuard);
      if (collective == Collective::kAllreduce) results[rank] = recv;
    }
  });
  // Every rank of an allreduce gets the same bits (the last start's).
  bool all = root < 0 && prefix == Collective::kCount;
  for (int r = 1; r < c.size && all; ++r) EXPECT_EQ(results[r], results[0]) << "rank " << r;
}

// Exact for integers and the affine maps (exact arithmetic: any association gives the same
// bits). Sums of doubles may associate differently from x0 + (x1 + (... + x8)): up the tree of
// flags, or in another order for a commutative op (MPI takes the ops as associative, and
// commutative ones as commutative); every rank still gets the same bits (checked apart).
bool ShmReduction::matches(const std::vector<std::byte>& got,
                           const std::vector<std::byte>& expected) const {
  const Case& c = GetParam();
  std::size_t bytes = c.count * type().size();
  if (c.kind != Kind::kDoubleSum) return std::memcmp(got.data(), expected.data(), bytes) == 0;
  for (std::int64_t i = 0; i < c.count; ++i) {
    double a, b;
    std::memcpy(&a, &got[i * 8], 8);
    std::memcpy(&b, &expected[i * 8], 8);
    if (std::abs(a - b) > 1e-12 * std::max(std::abs(a), std::abs(b))) return false;
  }
  return true;
}

TEST_P(ShmReduction, Allreduce) { run(make_allreduce, -1); }

TEST_P(ShmReduction, Reduce) {
  for (int root = 0; root < GetParam().size; ++root) run(make_reduce, root);
}

// The cma algorithm: two ranks combine a part each straight from the other's buffer, in rank
// order (the affine op is not commutative); other team sizes take the slot ways.
TEST_P(ShmReduction, ReduceByCma) {
  for (int root = 0; root < GetParam().size; ++root)
    run(make_reduce_cma, root, Collective::kCount, /*cma=*/true);
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmReduction, ::testing::ValuesIn(cases()), name_of);

// Scan and exscan take the flag lines or the direct way whatever the knobs, on every team.
class ShmScan : public ShmReduction {};

std::vector<Case> scan_cases() {
  std::vector<Case> out;
  for (int size = 1; size <= 9; ++size)
    for (std::int64_t count : {0, 1, 7, 1024})
      for (Kind kind : {Kind::kIntSum, Kind::kAffine})
        for (bool in_place : {false, true}) out.push_back({size, count, kind, in_place, "auto", 2});
  for (int size : {2, 5}) out.push_back({size, 1 << 20, Kind::kAffine, false, "auto", 8});
  return out;
}

TEST_P(ShmScan, ScanAndExscan) {
  run(make_allreduce, -1, Collective::kScan);
  run(make_allreduce, -1, Collective::kExscan);
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmScan, ::testing::ValuesIn(scan_cases()), name_of);

// A reduce of two ranks whose elements are larger than a quarter slot (a contiguous type of
// 6K in 16K slots) does not stream: a chunk would hold no element. Every root, sums checked.
TEST(ShmReduce, TwoRanksWithElementsLargerThanAQuarterSlot) {
  constexpr std::int64_t kInts = 1536, kCount = 5;
  auto made = core::make_contiguous(kInts, int32_type());
  ASSERT_TRUE(made.ok());
  made.value()->commit();
  const core::Datatype& big = *made.value();
  for (int root = 0; root < 2; ++root) {
    Team team(2, 16384);
    team.run([&](int rank) {
      std::vector<std::int32_t> in(kInts * kCount), out(in.size(), 0);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i * (rank + 2));
      Args args{.collective = Collective::kReduce,
                .sendbuf = in.data(),
                .recvbuf = out.data(),
                .count = kCount,
                .type = &big,
                .op = &core::Op::predefined(core::OpKind::kSum),
                .root = root};
      auto op = make_reduce(team.arena(rank), args);
      team.ready(rank);
      run_to_end(*op);
      EXPECT_TRUE(op->ok()) << op->status().to_string();
      if (rank != root) return;
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], static_cast<std::int32_t>(i * 5)) << "element " << i << " root " << root;
    });
  }
}

TEST(CoreGroups, RanksThatTakeTurnsOnTheirCpusShareAGroup) {
  auto seat = [](std::int64_t key, std::int64_t cpus) { return Seat{1, key, cpus}; };
  // -np 4 on 2 cores, bound round robin: {0, 2} and {1, 3}.
  EXPECT_EQ(core_groups({seat(11, 1), seat(22, 1), seat(11, 1), seat(22, 1)}),
            (std::vector<int>{0, 1, 0, 1}));
  // A core of 2 hardware threads holds 2 ranks without taking turns: no group.
  EXPECT_EQ(core_groups({seat(11, 2), seat(11, 2), seat(22, 2)}), (std::vector<int>{0, 1, 2}));
  // 3 ranks on it do take turns.
  EXPECT_EQ(core_groups({seat(22, 1), seat(11, 2), seat(11, 2), seat(11, 2)}),
            (std::vector<int>{0, 1, 1, 1}));
  // Unbound ranks (key 0) are never grouped, however many.
  EXPECT_EQ(core_groups({seat(0, 2), seat(0, 2), seat(0, 2)}), (std::vector<int>{0, 1, 2}));
}

TEST(CoreGroups, OwnSeatIsTheCallingThreadsBinding) {
  Seat seat = own_seat(true);
  EXPECT_EQ(seat.mapped, 1);
  EXPECT_GE(seat.cpus, 1);
  cpu_set_t all, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c)
    if (CPU_ISSET(c, &all)) cpu = c;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  Seat bound = [&] {
    Seat s;
    std::thread([&] {
      sched_setaffinity(0, sizeof(one), &one);
      s = own_seat(false);
    }).join();
    return s;
  }();
  EXPECT_EQ(bound.cpus, 1);
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    EXPECT_NE(bound.cpu_key, 0);
  }
  EXPECT_EQ(bound.mapped, 0);
}

}  // namespace
}  // namespace gpurun::coll::shm::testing
