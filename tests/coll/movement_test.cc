// Conformance of every registered algorithm of the collectives that move data without
// reducing it (bcast, gather(v), scatter(v), allgather(v), alltoall(v,w)) and of barrier:
// 1 to 9 ranks, counts 0, 1, 7 and 1000, plain ints and a vector type with gaps, in place and
// not, against the result the collective defines.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>

#include "tests/coll/coll_job.h"
#include "tests/coll/coll_test_util.h"

namespace gpurun::coll {
namespace {

using namespace testing_util;  // NOLINT(google-build-using-namespace): test helpers

const std::int64_t kCounts[] = {0, 1, 7, 1000};

std::vector<int> vals(int r, std::int64_t first, std::int64_t n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) v[k] = value(r, first + k);
  return v;
}

struct Case {
  Job* job;
  Collective collective;
  std::string algorithm;
  const Layout* layout;
  std::int64_t n;  // elements per block
  bool in_place;
  int tag;
  int p() const { return job->size(); }
  int root() const { return p() / 2; }
  std::string describe() const {
    return std::string(collective_name(collective)) + "/" + algorithm +
           " p=" + std::to_string(p()) + " n=" + std::to_string(n) + " " + layout->name +
           (in_place ? " in place" : "");
  }
};

// Creates and runs every rank's operation with the args that setup(r, args) fills.
void run(const Case& c, const std::function<void(int, Args&)>& setup) {
  const Algorithm* algorithm = Registry::find(c.collective, c.algorithm);
  ASSERT_NE(algorithm, nullptr);
  std::vector<std::unique_ptr<Operation>> ops(c.p());
  std::vector<Args> args(c.p());
  for (int r = 0; r < c.p(); ++r) {
    args[r] = c.job->args(r, c.collective, c.tag);
    setup(r, args[r]);
    ASSERT_TRUE(algorithm->usable == nullptr || algorithm->usable(args[r]));
    auto op = algorithm->create(args[r]);
    ASSERT_TRUE(op.ok()) << op.status().to_string();
    ops[r] = std::move(op).value();
  }
  ASSERT_TRUE(c.job->run(ops)) << "did not complete";
  for (int r = 0; r < c.p(); ++r)
    EXPECT_TRUE(ops[r]->status().ok()) << ops[r]->status().to_string();
}

// Runs `body` for every algorithm of `collective`, rank count, count, layout and in-place.
void for_all(Collective collective, bool has_in_place, const std::function<void(Case&)>& body) {
  int tag = 0;
  for (int p = 1; p <= 9; ++p) {
    Job job(p);
    for (const std::string& name : algorithms_of(collective))
      for (std::int64_t n : kCounts)
        for (const Layout* layout : {&plain_ints(), &gapped_ints()})
          for (bool in_place : {false, true}) {
            if (in_place && !has_in_place) continue;
            Case c{&job, collective, name, layout, n, in_place, tag++};
            SCOPED_TRACE(c.describe());
            body(c);
            if (::testing::Test::HasFatalFailure()) return;
          }
  }
}

// Block sizes for the v forms: n + (i + j) % 3 elements, so some blocks differ (and some are
// empty when n is 0); displacements leave one unused element between blocks.
std::int64_t vcount(std::int64_t n, int i, int j) { return n + (i + 2 * j) % 3; }
std::vector<std::int64_t> displs_of(const std::vector<std::int64_t>& counts) {
  std::vector<std::int64_t> d(counts.size());
  std::int64_t at = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    d[i] = at;
    at += counts[i] + 1;
  }
  return d;
}
std::int64_t extent_of(const std::vector<std::int64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0}) +
         static_cast<std::int64_t>(counts.size());
}

TEST(Movement, Barrier) {
  for (int p = 1; p <= 9; ++p) {
    Job job(p);
    for (const std::string& name : algorithms_of(Collective::kBarrier)) {
      Case c{&job, Collective::kBarrier, name, &plain_ints(), 0, false, 0};
      SCOPED_TRACE(c.describe());
      run(c, [](int, Args&) {});
    }
  }
}

TEST(Movement, Bcast) {
  for_all(Collective::kBcast, false, [](Case& c) {
    int L = c.layout->ints();
    std::vector<Data> d(c.p());
    run(c, [&](int r, Args& a) {
      d[r] = Data(*c.layout, c.n);
      if (r == c.root()) d[r].fill(r, 0, c.n * L, 0);
      a.sendbuf = a.recvbuf = d[r].base();
      a.count = c.n;
      a.type = c.layout->type;
      a.root = c.root();
    });
    for (int r = 0; r < c.p(); ++r) EXPECT_TRUE(same(d[r], 0, vals(c.root(), 0, c.n * L))) << r;
  });
}

void gather_case(Case& c, bool v, bool all) {
  int p = c.p(), L = c.layout->ints();
  std::vector<std::int64_t> counts(p, c.n);
  if (v)
    for (int i = 0; i < p; ++i) counts[i] = vcount(c.n, i, 0);
  std::vector<std::int64_t> displs = v ? displs_of(counts) : std::vector<std::int64_t>();
  std::vector<Data> send(p), recv(p);
  run(c, [&](int r, Args& a) {
    bool receives = all || r == c.root();
    send[r] = Data(*c.layout, counts[r]);
    send[r].fill(r, 0, counts[r] * L, 0);
    a.sendbuf = send[r].base();
    a.count = counts[r];
    a.type = c.layout->type;
    a.root = c.root();
    if (!receives) return;
    recv[r] = Data(*c.layout, v ? extent_of(counts) : p * c.n);
    a.recvbuf = recv[r].base();
    a.recvcount = c.n;
    a.recvtype = c.layout->type;
    if (v) {
      a.recvcounts = counts.data();
      a.rdispls = displs.data();
    }
    if (c.in_place) {
      recv[r].fill(r, (v ? displs[r] : r * c.n) * L, counts[r] * L, 0);
      a.in_place = true;
      a.sendbuf = nullptr;
      a.count = 0;
      a.type = nullptr;
    }
  });
  for (int r = 0; r < p; ++r) {
    if (!all && r != c.root()) continue;
    for (int i = 0; i < p; ++i) {
      std::int64_t at = (v ? displs[i] : i * c.n) * L;
      EXPECT_TRUE(same(recv[r], at, vals(i, 0, counts[i] * L))) << "rank " << r << " block " << i;
      if (v) {
        EXPECT_EQ(recv[r].at(at + counts[i] * L), kUnset) << "between blocks";
      }
    }
  }
}

TEST(Movement, Gather) {
  for_all(Collective::kGather, true, [](Case& c) { gather_case(c, false, false); });
}
TEST(Movement, Gatherv) {
  for_all(Collective::kGatherv, true, [](Case& c) { gather_case(c, true, false); });
}
TEST(Movement, Allgather) {
  for_all(Collective::kAllgather, true, [](Case& c) { gather_case(c, false, true); });
}
TEST(Movement, Allgatherv) {
  for_all(Collective::kAllgatherv, true, [](Case& c) { gather_case(c, true, true); });
}

void scatter_case(Case& c, bool v) {
  int p = c.p(), L = c.layout->ints(), root = c.root();
  std::vector<std::int64_t> counts(p, c.n);
  if (v)
    for (int i = 0; i < p; ++i) counts[i] = vcount(c.n, i, 1);
  std::vector<std::int64_t> displs = v ? displs_of(counts) : std::vector<std::int64_t>();
  std::vector<Data> send(p), recv(p);
  auto block_at = [&](int i) { return (v ? displs[i] : i * c.n) * L; };
  run(c, [&](int r, Args& a) {
    a.root = root;
    if (r == root) {
      send[r] = Data(*c.layout, v ? extent_of(counts) : p * c.n);
      for (int i = 0; i < p; ++i) send[r].fill(root, block_at(i), counts[i] * L, block_at(i));
      a.sendbuf = send[r].base();
      a.count = c.n;
      a.type = c.layout->type;
      if (v) {
        a.sendcounts = counts.data();
        a.sdispls = displs.data();
      }
    }
    recv[r] = Data(*c.layout, counts[r]);
    a.recvbuf = recv[r].base();
    a.recvcount = counts[r];
    a.recvtype = c.layout->type;
    if (r == root && c.in_place) {
      a.in_place = true;
      a.recvbuf = nullptr;
      a.recvtype = nullptr;
    }
  });
  for (int r = 0; r < p; ++r) {
    if (r == root && c.in_place) {
      EXPECT_TRUE(same(send[r], block_at(r), vals(root, block_at(r), counts[r] * L)));
      continue;
    }
    EXPECT_TRUE(same(recv[r], 0, vals(root, block_at(r), counts[r] * L))) << "rank " << r;
  }
}

TEST(Movement, Scatter) {
  for_all(Collective::kScatter, true, [](Case& c) { scatter_case(c, false); });
}
TEST(Movement, Scatterv) {
  for_all(Collective::kScatterv, true, [](Case& c) { scatter_case(c, true); });
}

// alltoall (form 0), alltoallv (1), alltoallw (2: per-rank types and byte displacements).
void alltoall_case(Case& c, int form) {
  int p = c.p(), L = c.layout->ints();
  // sc[r][j]: elements rank r sends to rank j; rank j receives as many from r.
  std::vector<std::vector<std::int64_t>> sc(p, std::vector<std::int64_t>(p, c.n)), rc = sc;
  for (int r = 0; r < p; ++r)
    for (int j = 0; j < p; ++j)
      sc[r][j] = form == 0 ? c.n : c.n + (r + j) % 3;  // symmetric,
                                                       // as in place needs
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < p; ++i) rc[r][i] = sc[i][r];
  std::vector<std::vector<std::int64_t>> sd(p), rd(p), sbytes(p), rbytes(p);
  std::vector<std::vector<const core::Datatype*>> types(
      p, std::vector<const core::Datatype*>(p, c.layout->type));
  const std::int64_t extent = c.layout->type->extent();
  for (int r = 0; r < p; ++r) {
    sd[r] = form == 0 ? std::vector<std::int64_t>(p) : displs_of(sc[r]);
    rd[r] = form == 0 ? std::vector<std::int64_t>(p) : displs_of(rc[r]);
    for (int i = 0; i < p; ++i) {
      if (form == 0) sd[r][i] = rd[r][i] = i * c.n;
      sbytes[r].push_back(sd[r][i] * extent);
      rbytes[r].push_back(rd[r][i] * extent);
    }
  }
  std::vector<Data> send(p), recv(p);
  auto total = [&](const std::vector<std::int64_t>& counts) {
    return form == 0 ? p * c.n : extent_of(counts);
  };
  run(c, [&](int r, Args& a) {
    send[r] = Data(*c.layout, total(sc[r]));
    recv[r] = Data(*c.layout, total(rc[r]));
    // Rank r's data for rank j: value(r, j * 1000 + k), so each block is recognisable.
    for (int j = 0; j < p; ++j) send[r].fill(r, sd[r][j] * L, sc[r][j] * L, j * 1000);
    a.sendbuf = send[r].base();
    a.recvbuf = recv[r].base();
    a.count = c.n;
    a.type = c.layout->type;
    a.recvcount = c.n;
    a.recvtype = c.layout->type;
    if (form >= 1) {
      a.sendcounts = sc[r].data();
      a.recvcounts = rc[r].data();
      a.sdispls = (form == 2 ? sbytes : sd)[r].data();
      a.rdispls = (form == 2 ? rbytes : rd)[r].data();
    }
    if (form == 2) {
      a.sendtypes = types[r].data();
      a.recvtypes = types[r].data();
    }
    if (c.in_place) {  // the data to send is in recvbuf, laid out as the receive side
      for (int j = 0; j < p; ++j) recv[r].fill(r, rd[r][j] * L, rc[r][j] * L, j * 1000);
      a.in_place = true;
      a.sendbuf = a.recvbuf;
      a.sendcounts = a.recvcounts;
      a.sdispls = a.rdispls;
      a.sendtypes = a.recvtypes;
    }
  });
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < p; ++i)
      EXPECT_TRUE(same(recv[r], rd[r][i] * L, vals(i, r * 1000, rc[r][i] * L)))
          << "rank " << r << " block from " << i;
}

TEST(Movement, Alltoall) {
  for_all(Collective::kAlltoall, true, [](Case& c) { alltoall_case(c, 0); });
}
TEST(Movement, Alltoallv) {
  for_all(Collective::kAlltoallv, true, [](Case& c) { alltoall_case(c, 1); });
}
TEST(Movement, Alltoallw) {
  for_all(Collective::kAlltoallw, true, [](Case& c) { alltoall_case(c, 2); });
}

TEST(Movement, MillionElements) {
  // Rendezvous-sized blocks through every algorithm of bcast and allgather on 3 ranks.
  Job job(3);
  int tag = 100;
  for (Collective collective : {Collective::kBcast, Collective::kAllgather})
    for (const std::string& name : algorithms_of(collective)) {
      Case c{&job,
             collective,
             name,
             &plain_ints(),
             collective == Collective::kBcast ? 1 << 20 : 1 << 18,
             false,
             tag++};
      SCOPED_TRACE(c.describe());
      if (collective == Collective::kBcast) {
        std::vector<Data> d(3);
        run(c, [&](int r, Args& a) {
          d[r] = Data(plain_ints(), c.n);
          if (r == c.root()) d[r].fill(r, 0, c.n, 0);
          a.sendbuf = a.recvbuf = d[r].base();
          a.count = c.n;
          a.type = plain_ints().type;
          a.root = c.root();
        });
        for (int r = 0; r < 3; ++r) EXPECT_TRUE(same(d[r], 0, vals(c.root(), 0, c.n)));
      } else {
        gather_case(c, false, true);
      }
    }
}

}  // namespace
}  // namespace gpurun::coll
