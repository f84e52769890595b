// The "hierarchical" algorithms (coll/algo/hier_algorithms.cc) on communicators spread over
// pretend hosts: the ranks are pmls inside the test process (tests/coll/coll_job.h) and
// Args::job_nodes says which host each runs on. Layouts: hosts of consecutive ranks, ranks
// dealt round-robin over hosts, uneven hosts, a host per rank. Each collective is compared
// with its definition; a non-commutative op checks that operands stay in rank order; the
// algorithms refuse what they cannot do (non-commutative op on round-robin hosts, unknown
// nodes).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll/algo/hier.h"
#include "tests/coll/coll_job.h"
#include "tests/coll/coll_test_util.h"

namespace gpurun::coll {
namespace {

using namespace testing_util;  // NOLINT(google-build-using-namespace): test helpers

struct Spread {
  std::string name;
  std::function<int(int r, int p)> node;
};

const std::vector<Spread>& spreads() {
  static const std::vector<Spread> all = {
      {"halves", [](int r, int p) { return r < (p + 1) / 2 ? 7 : 3; }},
      {"thirds", [](int r, int p) { return 3 * r / p; }},
      {"round-robin", [](int r, int) { return r % 2; }},
      {"one and the rest", [](int r, int) { return r == 0 ? 0 : 1; }},
      {"host per rank", [](int r, int) { return 100 - r; }},
  };
  return all;
}

struct Fixture {
  Job job;
  std::vector<int> nodes;
  int tag = 0;
  Fixture(int p, const Spread& s) : job(p), nodes(static_cast<std::size_t>(p)) {
    for (int r = 0; r < p; ++r) nodes[static_cast<std::size_t>(r)] = s.node(r, p);
  }
  int p() { return job.size(); }
  Args args(int r, Collective c) {
    Args a = job.args(r, c, tag);
    a.one_host = false;
    a.job_nodes = nodes;
    return a;
  }
  // Creates every rank's operation from setup(r, args) and runs them all.
  void run(Collective c, const std::function<void(int, Args&)>& setup) {
    const Algorithm* algorithm = Registry::find(c, "hierarchical");
    ASSERT_NE(algorithm, nullptr);
    std::vector<std::unique_ptr<Operation>> ops(static_cast<std::size_t>(p()));
    for (int r = 0; r < p(); ++r) {
      Args a = args(r, c);
      setup(r, a);
      ASSERT_TRUE(algorithm->usable(a));
      auto op = algorithm->create(a);
      ASSERT_TRUE(op.ok()) << op.status().to_string();
      ops[static_cast<std::size_t>(r)] = std::move(op).value();
    }
    ++tag;
    ASSERT_TRUE(job.run(ops)) << "did not complete";
    for (auto& op : ops) EXPECT_TRUE(op->status().ok()) << op->status().to_string();
  }
};

// Every spread on 2 to 7 ranks, counts 0, 1 and 1000 (and the layouts of coll_test_util).
void for_all(const std::function<void(Fixture&, std::int64_t, const Layout&)>& body) {
  for (int p = 2; p <= 7; ++p)
    for (const Spread& s : spreads()) {
      Fixture f(p, s);
      for (std::int64_t n : {0, 1, 1000})
        for (const Layout* l : {&plain_ints(), &gapped_ints()}) {
          SCOPED_TRACE(s.name + " p=" + std::to_string(p) + " n=" + std::to_string(n) + " " +
                       l->name);
          body(f, n, *l);
          if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

std::vector<int> sums(int p, std::int64_t ints) {
  std::vector<int> want(static_cast<std::size_t>(ints), 0);
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < ints; ++i) want[static_cast<std::size_t>(i)] += value(r, i);
  return want;
}

const core::Op& sum_op() { return core::Op::predefined(core::OpKind::kSum); }

TEST(HierTest, Allreduce) {
  for_all([](Fixture& f, std::int64_t n, const Layout& l) {
    for (bool in_place : {false, true}) {
      std::vector<Data> in, out;
      for (int r = 0; r < f.p(); ++r) {
        in.emplace_back(l, n);
        in.back().fill(r, 0, n * l.ints(), 0);
        out.emplace_back(in_place ? in.back() : Data(l, n));
      }
      f.run(Collective::kAllreduce, [&](int r, Args& a) {
        a.sendbuf = in_place ? out[r].base() : in[r].base();
        a.recvbuf = out[r].base();
        a.in_place = in_place;
        a.count = n;
        a.type = l.type;
        a.op = &sum_op();
      });
      for (int r = 0; r < f.p(); ++r) EXPECT_TRUE(same(out[r], 0, sums(f.p(), n * l.ints())));
    }
  });
}

TEST(HierTest, ReduceToEveryRoot) {
  for_all([](Fixture& f, std::int64_t n, const Layout& l) {
    for (int root = 0; root < f.p(); ++root) {
      std::vector<Data> in;
      for (int r = 0; r < f.p(); ++r) {
        in.emplace_back(l, n);
        in.back().fill(r, 0, n * l.ints(), 0);
      }
      Data out(l, n);
      f.run(Collective::kReduce, [&](int r, Args& a) {
        a.sendbuf = in[r].base();
        a.recvbuf = r == root ? out.base() : nullptr;
        a.count = n;
        a.type = l.type;
        a.op = &sum_op();
        a.root = root;
      });
      EXPECT_TRUE(same(out, 0, sums(f.p(), n * l.ints()))) << "root " << root;
    }
  });
}

TEST(HierTest, BcastFromEveryRoot) {
  for_all([](Fixture& f, std::int64_t n, const Layout& l) {
    for (int root = 0; root < f.p(); ++root) {
      std::vector<Data> buf;
      for (int r = 0; r < f.p(); ++r) buf.emplace_back(l, n);
      buf[root].fill(root, 0, n * l.ints(), 0);
      f.run(Collective::kBcast, [&](int r, Args& a) {
        a.recvbuf = buf[r].base();
        a.sendbuf = a.recvbuf;
        a.count = n;
        a.type = l.type;
        a.root = root;
      });
      std::vector<int> want(static_cast<std::size_t>(n * l.ints()));
      for (std::int64_t i = 0; i < n * l.ints(); ++i) want[i] = value(root, i);
      for (int r = 0; r < f.p(); ++r) EXPECT_TRUE(same(buf[r], 0, want)) << "root " << root;
    }
  });
}

TEST(HierTest, AllgatherAndAllgatherv) {
  for_all([](Fixture& f, std::int64_t n, const Layout& l) {
    const int p = f.p();
    for (bool v : {false, true})
      for (bool in_place : {false, true}) {
        std::vector<std::int64_t> counts(p), displs(p);
        std::int64_t total = 0;
        for (int i = 0; i < p; ++i) {
          counts[i] = v ? n + i % 2 : n;
          displs[i] = total + (v ? 1 : 0);
          total = displs[i] + counts[i];
        }
        std::vector<Data> in, out;
        for (int r = 0; r < p; ++r) {
          in.emplace_back(l, counts[r]);
          in.back().fill(r, 0, counts[r] * l.ints(), 0);
          out.emplace_back(l, total);
          if (in_place) out.back().fill(r, displs[r] * l.ints(), counts[r] * l.ints(), 0);
        }
        f.run(v ? Collective::kAllgatherv : Collective::kAllgather, [&](int r, Args& a) {
          a.sendbuf = in[r].base();
          a.in_place = in_place;
          a.count = counts[r];
          a.type = l.type;
          a.recvbuf = out[r].base();
          a.recvcount = n;
          a.recvtype = l.type;
          if (v) {
            a.recvcounts = counts.data();
            a.rdispls = displs.data();
          }
        });
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < p; ++i) {
            std::vector<int> want(static_cast<std::size_t>(counts[i] * l.ints()));
            for (std::size_t k = 0; k < want.size(); ++k) want[k] = value(i, k);
            EXPECT_TRUE(same(out[r], displs[i] * l.ints(), want))
                << "rank " << r << " block " << i << (v ? " v" : "")
                << (in_place ? " in place" : "");
          }
      }
  });
}

TEST(HierTest, Barrier) {
  for (int p = 1; p <= 7; ++p)
    for (const Spread& s : spreads()) {
      Fixture f(p, s);
      f.run(Collective::kBarrier, [](int, Args&) {});
    }
}

// A non-commutative op: element = (a, b), x op y = (y.a * x.a, y.a * x.b + y.b) (composition
// of affine maps), so operands out of rank order change the result.
void compose(const void* in, void* inout, std::int64_t count, const core::Datatype&, void*) {
  auto* x = static_cast<const std::uint64_t*>(in);
  auto* y = static_cast<std::uint64_t*>(inout);
  for (std::int64_t i = 0; i < count; ++i)
    y[2 * i + 1] = y[2 * i] * x[2 * i + 1] + y[2 * i + 1], y[2 * i] *= x[2 * i];
}

TEST(HierTest, NonCommutativeInRankOrderOnConsecutiveHosts) {
  static std::unique_ptr<core::Op> op = core::Op::user(compose, nullptr, false);
  static core::DatatypeRef u64 =
      core::Datatype::predefined(core::BasicType::kUint64, 8, "MPI_UINT64_T");
  static auto pair = core::make_contiguous(2, *u64.get());
  pair.value()->commit();
  const std::int64_t n = 5;
  for (int p = 2; p <= 7; ++p)
    for (const Spread& s : spreads()) {
      SCOPED_TRACE(s.name + " p=" + std::to_string(p));
      Fixture f(p, s);
      Args probe = f.args(0, Collective::kAllreduce);
      probe.op = op.get();
      const auto* layout = algo::hier::layout_of(probe);
      ASSERT_NE(layout, nullptr);
      EXPECT_EQ(algo::hier::usable_ordered(probe), layout->contiguous);
      if (!layout->contiguous) continue;
      std::vector<std::vector<std::uint64_t>> in(p), out(p, std::vector<std::uint64_t>(2 * n));
      std::vector<std::uint64_t> want(2 * n);
      for (int r = 0; r < p; ++r)
        for (std::int64_t i = 0; i < n; ++i) {
          in[r].push_back((r * 7 + i) % 11 + 2);
          in[r].push_back(r * 13 + i + 1);
          if (r == 0) {
            want[2 * i] = in[r][2 * i], want[2 * i + 1] = in[r][2 * i + 1];
          } else {  // want = want op in[r]
            want[2 * i + 1] = in[r][2 * i] * want[2 * i + 1] + in[r][2 * i + 1];
            want[2 * i] *= in[r][2 * i];
          }
        }
      for (Collective c : {Collective::kAllreduce, Collective::kReduce}) {
        f.run(c, [&](int r, Args& a) {
          a.sendbuf = in[r].data();
          a.recvbuf = c == Collective::kReduce && r != p - 1 ? nullptr : out[r].data();
          a.count = n;
          a.type = pair.value().get();
          a.op = op.get();
          a.root = p - 1;
        });
        for (int r = 0; r < p; ++r) {
          if (c == Collective::kAllreduce || r == p - 1) {
            EXPECT_EQ(out[r], want) << collective_name(c) << " rank " << r;
          }
        }
      }
    }
}

TEST(HierTest, UnknownNodesOnSeveralHostsAreRefused) {
  Job job(2);
  Args a = job.args(0, Collective::kAllreduce);
  a.one_host = false;  // and no job_nodes
  EXPECT_FALSE(Registry::find(Collective::kAllreduce, "hierarchical")->usable(a));
  std::vector<int> short_nodes{0};  // rank 1 has no node
  a.job_nodes = short_nodes;
  EXPECT_FALSE(Registry::find(Collective::kAllreduce, "hierarchical")->usable(a));
  a.one_host = true;  // one host: the host phases alone
  EXPECT_TRUE(Registry::find(Collective::kAllreduce, "hierarchical")->usable(a));
}

TEST(HierTest, LayoutGroupsRanksByNode) {
  Fixture f(5, spreads()[2]);  // round-robin: nodes 0 1 0 1 0
  const auto* l = algo::hier::layout_of(f.args(3, Collective::kBarrier));
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->hosts, (std::vector<std::vector<int>>{{0, 2, 4}, {1, 3}}));
  EXPECT_EQ(l->leaders, (std::vector<int>{0, 1}));
  EXPECT_FALSE(l->contiguous);
  algo::hier::release(f.job.comm(3)->context_id());
}

}  // namespace
}  // namespace gpurun::coll
