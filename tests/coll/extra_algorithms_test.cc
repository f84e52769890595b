// The algorithms beyond the first one per collective (bcast scatter_allgather and chain, reduce
// reduce_scatter_gather, allgather recursive_doubling, alltoall bruck, reduce_scatter(_block)
// recursive_halving and ring), in what the conformance tests (movement_test, reduction_test,
// which run every registered algorithm on 1 to 9 ranks with counts up to 1000) do not reach:
// a million elements, the bcast chain's segment knob (segments that do not divide the message,
// smaller than an element), and the selection refusing the algorithms that need a commutative
// op when a non-commutative one comes, forced knob or not.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "coll/engine.h"
#include "coll/params.h"
#include "runtime/base/param.h"
#include "tests/coll/coll_job.h"
#include "tests/coll/coll_test_util.h"

namespace gpurun::coll {
namespace {

using namespace testing_util;  // NOLINT(google-build-using-namespace): test helpers

constexpr std::int64_t kMillion = 1 << 20;

const core::Op& sum() { return core::Op::predefined(core::OpKind::kSum); }

// Runs `algorithm` of `collective` on every rank of `job` with the args setup(r, args) fills.
void run(Job& job, Collective collective, const std::string& algorithm,
         const std::function<void(int, Args&)>& setup) {
  static int tag = 0;
  const Algorithm* a = Registry::find(collective, algorithm);
  ASSERT_NE(a, nullptr) << algorithm;
  std::vector<std::unique_ptr<Operation>> ops(job.size());
  ++tag;  // one per call, the same on every rank
  for (int r = 0; r < job.size(); ++r) {
    Args args = job.args(r, collective, tag);
    setup(r, args);
    ASSERT_TRUE(a->usable == nullptr || a->usable(args));
    auto op = a->create(args);
    ASSERT_TRUE(op.ok()) << op.status().to_string();
    ops[r] = std::move(op).value();
  }
  ASSERT_TRUE(job.run(ops)) << "did not complete";
  for (int r = 0; r < job.size(); ++r)
    EXPECT_TRUE(ops[r]->status().ok()) << ops[r]->status().to_string();
}

// Sum over ranks 0 .. p-1 of value(r, i).
int sum_of(int p, std::int64_t i) {
  int s = 0;
  for (int r = 0; r < p; ++r) s += value(r, i);
  return s;
}

// Index of the first element of `got` that differs from want(i), or -1.
std::int64_t first_wrong(const std::vector<int>& got,
                         const std::function<int(std::int64_t)>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want(static_cast<std::int64_t>(i))) return static_cast<std::int64_t>(i);
  return -1;
}

std::vector<int> filled(int r, std::int64_t n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = value(r, i);
  return v;
}

class Million : public ::testing::TestWithParam<int> {};

TEST_P(Million, Bcast) {
  Job job(GetParam());
  for (const char* name : {"scatter_allgather", "chain"}) {
    SCOPED_TRACE(name);
    const int root = job.size() - 1;
    std::vector<std::vector<int>> d(job.size());
    run(job, Collective::kBcast, name, [&](int r, Args& a) {
      d[r] = r == root ? filled(r, kMillion + 3) : std::vector<int>(kMillion + 3, kUnset);
      a.recvbuf = d[r].data();
      a.sendbuf = a.recvbuf;
      a.count = kMillion + 3;
      a.type = plain_ints().type;
      a.root = root;
    });
    for (int r = 0; r < job.size(); ++r)
      EXPECT_EQ(first_wrong(d[r], [&](std::int64_t i) { return value(root, i); }), -1) << r;
  }
}

TEST_P(Million, Reduce) {
  Job job(GetParam());
  const int p = job.size(), root = 1 % p;
  for (bool in_place : {false, true}) {
    std::vector<std::vector<int>> send(p), recv(p);
    run(job, Collective::kReduce, "reduce_scatter_gather", [&](int r, Args& a) {
      send[r] = filled(r, kMillion + 1);
      a.sendbuf = send[r].data();
      a.count = kMillion + 1;
      a.type = plain_ints().type;
      a.op = &sum();
      a.root = root;
      if (r != root) return;
      recv[r] = in_place ? send[r] : std::vector<int>(kMillion + 1, kUnset);
      a.recvbuf = recv[r].data();
      if (in_place) a.sendbuf = a.recvbuf;
      a.in_place = in_place;
    });
    EXPECT_EQ(first_wrong(recv[root], [&](std::int64_t i) { return sum_of(p, i); }), -1);
  }
}

TEST_P(Million, ReduceScatterBlock) {
  Job job(GetParam());
  const int p = job.size();
  const std::int64_t block = kMillion / p + 1;
  for (const char* name : {"recursive_halving", "ring"}) {
    SCOPED_TRACE(name);
    std::vector<std::vector<int>> send(p), recv(p);
    run(job, Collective::kReduceScatterBlock, name, [&](int r, Args& a) {
      send[r] = filled(r, block * p);
      recv[r] = std::vector<int>(block, kUnset);
      a.sendbuf = send[r].data();
      a.recvbuf = recv[r].data();
      a.count = block;
      a.type = plain_ints().type;
      a.op = &sum();
    });
    for (int r = 0; r < p; ++r)
      EXPECT_EQ(first_wrong(recv[r], [&](std::int64_t i) { return sum_of(p, r * block + i); }), -1)
          << r;
  }
}

TEST_P(Million, AllgatherAndAlltoall) {
  Job job(GetParam());
  const int p = job.size();
  const std::int64_t block = kMillion / p;
  std::vector<std::vector<int>> send(p), recv(p);
  run(job, Collective::kAllgather, "recursive_doubling", [&](int r, Args& a) {
    send[r] = filled(r, block);
    recv[r] = std::vector<int>(block * p, kUnset);
    a.sendbuf = send[r].data();
    a.recvbuf = recv[r].data();
    a.count = a.recvcount = block;
    a.type = a.recvtype = plain_ints().type;
  });
  for (int r = 0; r < p; ++r)
    EXPECT_EQ(first_wrong(recv[r], [&](std::int64_t i) { return value(i / block, i % block); }),
              -1);
  const std::int64_t small = kMillion / (p * p);  // a million elements per rank in all
  run(job, Collective::kAlltoall, "bruck", [&](int r, Args& a) {
    send[r] = filled(r, small * p);
    recv[r] = std::vector<int>(small * p, kUnset);
    a.sendbuf = send[r].data();
    a.recvbuf = recv[r].data();
    a.count = a.recvcount = small;
    a.type = a.recvtype = plain_ints().type;
  });
  for (int r = 0; r < p; ++r)  // block j of rank r came from rank j's block r
    EXPECT_EQ(first_wrong(recv[r],
                          [&](std::int64_t i) { return value(i / small, r * small + i % small); }),
              -1);
}

INSTANTIATE_TEST_SUITE_P(Ranks, Million, ::testing::Values(3, 4));

// GPURUN_COLL_BCAST_SEGMENT set for the duration of a test.
struct Segment {
  explicit Segment(const char* value) { EXPECT_TRUE(knob().set_from_string(value).ok()); }
  ~Segment() { EXPECT_TRUE(knob().set_from_string(knob().default_string()).ok()); }
  static param::ParamBase& knob() { return *param::find("GPURUN_COLL_BCAST_SEGMENT"); }
};

TEST(BcastChain, SegmentsOfAnySizeDeliverTheWholeMessage) {
  ASSERT_NE(param::find("GPURUN_COLL_BCAST_SEGMENT"), nullptr);
  // 1 byte: one element per segment (the minimum); 20 bytes: 2 gapped elements or 5 ints, which
  // divide neither count.
  for (const char* segment : {"1", "20"}) {
    Segment knob(segment);
    for (int p : {2, 5}) {
      Job job(p);
      for (const Layout* layout : {&plain_ints(), &gapped_ints()}) {
        SCOPED_TRACE(std::string(segment) + " " + layout->name + " p=" + std::to_string(p));
        const std::int64_t n = 37;
        const int root = 1;
        std::vector<Data> d(p);
        run(job, Collective::kBcast, "chain", [&](int r, Args& a) {
          d[r] = Data(*layout, n);
          if (r == root) d[r].fill(r, 0, n * layout->ints(), 0);
          a.recvbuf = d[r].base();
          a.sendbuf = a.recvbuf;
          a.count = n;
          a.type = layout->type;
          a.root = root;
        });
        std::vector<int> want = filled(root, n * layout->ints());
        for (int r = 0; r < p; ++r) EXPECT_TRUE(same(d[r], 0, want)) << r;
      }
    }
  }
}

void compose(const void*, void*, std::int64_t, const core::Datatype&, void*) {}

struct Forced {
  Forced(Collective c, const char* name) : collective(c) {
    EXPECT_TRUE(knob().set_from_string(name).ok());
    reset_engine();
  }
  ~Forced() {
    EXPECT_TRUE(knob().set_from_string("auto").ok());
    reset_engine();
  }
  param::Param<std::string>& knob() {
    return const_cast<param::Param<std::string>&>(params::forced_algorithm(collective));
  }
  Collective collective;
};

TEST(Selection, CommutativeOnlyAlgorithmsAreRefusedANonCommutativeOp) {
  auto user = core::Op::user(compose, nullptr, false);
  core::Communicator comm(core::Group::identity(4), 0, 11);
  const std::pair<Collective, const char*> forced[] = {
      {Collective::kReduce, "reduce_scatter_gather"},
      {Collective::kReduceScatter, "recursive_halving"},
      {Collective::kReduceScatter, "ring"},
      {Collective::kReduceScatterBlock, "recursive_halving"},
      {Collective::kReduceScatterBlock, "ring"}};
  std::int64_t counts[4] = {1, 1, 1, 1};
  for (const auto& [collective, name] : forced) {
    SCOPED_TRACE(std::string(collective_name(collective)) + "/" + name);
    Forced knob(collective, name);
    Args a;
    a.collective = collective;
    a.comm = &comm;
    a.count = 1;
    a.type = plain_ints().type;
    a.recvcounts = counts;
    a.op = &sum();
    auto picked = select(a);
    ASSERT_TRUE(picked.ok()) << picked.status().to_string();
    EXPECT_EQ(picked.value()->name, name) << "a commutative op runs the forced algorithm";
    reset_engine();
    a.op = user.get();
    ::testing::internal::CaptureStderr();
    picked = select(a);
    std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(picked.ok()) << picked.status().to_string();
    EXPECT_NE(picked.value()->name, name);
    EXPECT_NE(err.find(std::string(name) + " (forced by knob) cannot run this call"),
              std::string::npos)
        << err;
  }
}

TEST(Selection, EveryNewAlgorithmIsRegisteredAndRunsAnyRankCount) {
  const std::pair<Collective, const char*> algorithms[] = {
      {Collective::kBcast, "scatter_allgather"},
      {Collective::kBcast, "chain"},
      {Collective::kAllgather, "recursive_doubling"},
      {Collective::kAllgatherv, "recursive_doubling"},
      {Collective::kAlltoall, "bruck"}};
  for (const auto& [collective, name] : algorithms) {
    const Algorithm* a = Registry::find(collective, name);
    ASSERT_NE(a, nullptr) << name;
    for (int p = 1; p <= 9; ++p) {
      core::Communicator comm(core::Group::identity(p), 0, 12);
      Args args;
      args.collective = collective;
      args.comm = &comm;
      EXPECT_TRUE(a->usable(args)) << name << " p=" << p;
    }
  }
}

}  // namespace
}  // namespace gpurun::coll
