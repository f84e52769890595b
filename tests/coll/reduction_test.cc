// Conformance of every registered algorithm of the reducing collectives (reduce, allreduce,
// reduce_scatter(_block), scan, exscan): 1 to 9 ranks, counts 0, 1, 7 and 1000, in place and
// not, with MPI_SUM on plain ints, MPI_SUM on a vector type with gaps (which must survive),
// MPI_MAX on doubles, and a non-commutative user op (composition of affine maps, so any
// operand out of rank order changes the result), against a fold in rank order.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "tests/coll/coll_job.h"
#include "tests/coll/coll_test_util.h"

namespace gpurun::coll {
namespace {

using namespace testing_util;  // NOLINT(google-build-using-namespace): test helpers
using Words = std::vector<std::uint64_t>;

// An element kind: its type, op, where its words lie, their values and how two combine.
struct Kind {
  std::string name;
  const core::Datatype* type = nullptr;
  const core::Op* op = nullptr;
  int word_bytes = 4;
  std::vector<std::int64_t> offsets;  // byte offsets of the words in an element
  std::function<Words(int r, std::int64_t i)> value;
  std::function<Words(const Words& lower, const Words& higher)> combine;
};

struct Buffer {
  const Kind* kind = nullptr;
  std::vector<std::byte> bytes;
  Buffer() = default;
  Buffer(const Kind& k, std::int64_t count)
      : kind(&k), bytes(static_cast<std::size_t>(count * k.type->extent()), std::byte{0xee}) {}
  void* base() { return bytes.data(); }
  Words get(std::int64_t i) const {
    Words w;
    for (std::int64_t off : kind->offsets) {
      std::uint64_t x = 0;
      std::memcpy(&x, bytes.data() + i * kind->type->extent() + off, kind->word_bytes);
      w.push_back(x);
    }
    return w;
  }
  void set(std::int64_t i, const Words& w) {
    for (std::size_t k = 0; k < w.size(); ++k)
      std::memcpy(bytes.data() + i * kind->type->extent() + kind->offsets[k], &w[k],
                  kind->word_bytes);
  }
  void fill(int r, std::int64_t first, std::int64_t n, std::int64_t first_value) {
    for (std::int64_t k = 0; k < n; ++k) set(first + k, kind->value(r, first_value + k));
  }
  bool gaps_intact() const {
    for (std::size_t b = 0; b < bytes.size(); ++b) {
      std::int64_t in = static_cast<std::int64_t>(b) % kind->type->extent();
      bool data = false;
      for (std::int64_t off : kind->offsets) data |= in >= off && in < off + kind->word_bytes;
      if (!data && bytes[b] != std::byte{0xee}) return false;
    }
    return true;
  }
};

// Element i folded over ranks [lo, hi] in rank order.
Words fold(const Kind& k, int lo, int hi, std::int64_t i) {
  Words acc = k.value(lo, i);
  for (int r = lo + 1; r <= hi; ++r) acc = k.combine(acc, k.value(r, i));
  return acc;
}

::testing::AssertionResult holds(const Buffer& b, std::int64_t first, std::int64_t n, int lo,
                                 int hi, std::int64_t first_value) {
  for (std::int64_t k = 0; k < n; ++k) {
    if (b.get(first + k) != fold(*b.kind, lo, hi, first_value + k))
      return ::testing::AssertionFailure() << "element " << first + k << " differs";
  }
  if (!b.gaps_intact()) return ::testing::AssertionFailure() << "a gap was written";
  return ::testing::AssertionSuccess();
}

const core::Datatype& predefined(core::BasicType basic, int size, const char* name) {
  static std::vector<core::DatatypeRef>* types = new std::vector<core::DatatypeRef>();
  types->push_back(core::Datatype::predefined(basic, size, name));
  return *types->back();
}

void compose(const void* in, void* inout, std::int64_t count, const core::Datatype&, void*) {
  const auto* x = static_cast<const std::uint64_t*>(in);
  auto* y = static_cast<std::uint64_t*>(inout);
  for (std::int64_t i = 0; i < count; ++i) {  // y := y o x, x being the lower rank's map
    std::uint64_t a = y[2 * i] * x[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
    y[2 * i] = a;
    y[2 * i + 1] = b;
  }
}

const std::vector<Kind>& kinds() {
  static auto* all = [] {
    auto* v = new std::vector<Kind>();
    auto sum32 = [](const Words& a, const Words& b) {
      Words out;
      for (std::size_t k = 0; k < a.size(); ++k)
        out.push_back(static_cast<std::uint32_t>(a[k] + b[k]));
      return out;
    };
    auto ints = [](int r, std::int64_t i) {
      return Words{static_cast<std::uint32_t>(value(r, i))};
    };
    const core::Op& sum = core::Op::predefined(core::OpKind::kSum);
    v->push_back(Kind{"int sum", plain_ints().type, &sum, 4, {0}, ints, sum32});
    v->push_back(Kind{"vector sum",
                      gapped_ints().type,
                      &sum,
                      4,
                      {0, 8},
                      [](int r, std::int64_t i) {
                        return Words{static_cast<std::uint32_t>(value(r, 2 * i)),
                                     static_cast<std::uint32_t>(value(r, 2 * i + 1))};
                      },
                      sum32});
    auto dbl = [](double d) {
      std::uint64_t w;
      std::memcpy(&w, &d, 8);
      return w;
    };
    v->push_back(
        Kind{"double max",
             &predefined(core::BasicType::kDouble, 8, "MPI_DOUBLE"),
             &core::Op::predefined(core::OpKind::kMax),
             8,
             {0},
             [dbl](int r, std::int64_t i) { return Words{dbl((r * 37 + i * 11) % 17 - 8.5)}; },
             [](const Words& a, const Words& b) {
               double x, y;
               std::memcpy(&x, &a[0], 8);
               std::memcpy(&y, &b[0], 8);
               return x > y ? a : b;
             }});
    static auto affine_type =
        core::make_contiguous(2, predefined(core::BasicType::kUint64, 8, "MPI_UINT64_T"));
    affine_type.value()->commit();
    static std::unique_ptr<core::Op> affine = core::Op::user(compose, nullptr, false);
    v->push_back(Kind{"affine compose (non-commutative)",
                      affine_type.value().get(),
                      affine.get(),
                      8,
                      {0, 8},
                      [](int r, std::int64_t i) {
                        return Words{static_cast<std::uint64_t>((r * 7 + i) % 11 + 2),
                                     static_cast<std::uint64_t>(r * 13 + i + 1)};
                      },
                      [](const Words& x, const Words& y) {
                        return Words{y[0] * x[0], y[0] * x[1] + y[1]};
                      }});
    return v;
  }();
  return *all;
}

struct Case {
  Job* job;
  Collective collective;
  std::string algorithm;
  const Kind* kind;
  std::int64_t n;
  bool in_place;
  int tag;
  mutable bool skipped = false;  // the algorithm cannot run this case
  int p() const { return job->size(); }
  int root() const { return ((p() - 1) / 2 + static_cast<int>(n % 2)) % p(); }  // varies with n
};

void run(const Case& c, const std::function<void(int, Args&)>& setup) {
  const Algorithm* algorithm = Registry::find(c.collective, c.algorithm);
  ASSERT_NE(algorithm, nullptr);
  std::vector<std::unique_ptr<Operation>> ops(c.p());
  std::vector<Args> args(c.p());
  for (int r = 0; r < c.p(); ++r) {
    args[r] = c.job->args(r, c.collective, c.tag);
    args[r].op = c.kind->op;
    args[r].type = c.kind->type;
    setup(r, args[r]);
    // An algorithm that cannot run the case (a non-commutative op for a ring) is not tried.
    if (algorithm->usable != nullptr && !algorithm->usable(args[r])) {
      c.skipped = true;
      return;
    }
    auto op = algorithm->create(args[r]);
    ASSERT_TRUE(op.ok()) << op.status().to_string();
    ops[r] = std::move(op).value();
  }
  ASSERT_TRUE(c.job->run(ops)) << "did not complete";
  for (int r = 0; r < c.p(); ++r)
    EXPECT_TRUE(ops[r]->status().ok()) << ops[r]->status().to_string();
}

void for_all(Collective collective, const std::function<void(Case&)>& body) {
  int tag = 0;
  for (int p = 1; p <= 9; ++p) {
    Job job(p);
    for (const std::string& name : algorithms_of(collective))
      for (const Kind& kind : kinds())
        for (std::int64_t n : {0, 1, 7, 1000})
          for (bool in_place : {false, true}) {
            Case c{&job, collective, name, &kind, n, in_place, tag++};
            SCOPED_TRACE(std::string(collective_name(collective)) + "/" + name +
                         " p=" + std::to_string(p) + " n=" + std::to_string(n) + " " + kind.name +
                         (in_place ? " in place" : ""));
            body(c);
            if (::testing::Test::HasFatalFailure()) return;
          }
  }
}

TEST(Reduction, Reduce) {
  for_all(Collective::kReduce, [](Case& c) {
    std::vector<Buffer> send(c.p()), recv(c.p());
    run(c, [&](int r, Args& a) {
      send[r] = Buffer(*c.kind, c.n);
      send[r].fill(r, 0, c.n, 0);
      a.sendbuf = send[r].base();
      a.count = c.n;
      a.root = c.root();
      if (r != c.root()) return;
      recv[r] = Buffer(*c.kind, c.n);
      a.recvbuf = recv[r].base();
      if (c.in_place) {
        recv[r] = send[r];
        a.recvbuf = recv[r].base();
        a.sendbuf = a.recvbuf;
        a.in_place = true;
      }
    });
    if (c.skipped) return;
    EXPECT_TRUE(holds(recv[c.root()], 0, c.n, 0, c.p() - 1, 0));
  });
}

TEST(Reduction, Allreduce) {
  for_all(Collective::kAllreduce, [](Case& c) {
    std::vector<Buffer> send(c.p()), recv(c.p());
    run(c, [&](int r, Args& a) {
      send[r] = Buffer(*c.kind, c.n);
      send[r].fill(r, 0, c.n, 0);
      recv[r] = c.in_place ? send[r] : Buffer(*c.kind, c.n);
      a.sendbuf = c.in_place ? recv[r].base() : send[r].base();
      a.recvbuf = recv[r].base();
      a.in_place = c.in_place;
      a.count = c.n;
    });
    if (c.skipped) return;
    for (int r = 0; r < c.p(); ++r) EXPECT_TRUE(holds(recv[r], 0, c.n, 0, c.p() - 1, 0)) << r;
  });
}

void scan_case(Case& c, bool exclusive) {
  std::vector<Buffer> send(c.p()), recv(c.p()), before(c.p());
  run(c, [&](int r, Args& a) {
    send[r] = Buffer(*c.kind, c.n);
    send[r].fill(r, 0, c.n, 0);
    recv[r] = c.in_place ? send[r] : Buffer(*c.kind, c.n);
    before[r] = recv[r];
    a.sendbuf = c.in_place ? recv[r].base() : send[r].base();
    a.recvbuf = recv[r].base();
    a.in_place = c.in_place;
    a.count = c.n;
  });
  if (c.skipped) return;
  for (int r = 0; r < c.p(); ++r) {
    if (exclusive && r == 0) {
      EXPECT_EQ(recv[0].bytes, before[0].bytes) << "rank 0's exscan result is left alone";
      continue;
    }
    EXPECT_TRUE(holds(recv[r], 0, c.n, 0, exclusive ? r - 1 : r, 0)) << r;
  }
}

TEST(Reduction, Scan) {
  for_all(Collective::kScan, [](Case& c) { scan_case(c, false); });
}
TEST(Reduction, Exscan) {
  for_all(Collective::kExscan, [](Case& c) { scan_case(c, true); });
}

void reduce_scatter_case(Case& c, bool block) {
  int p = c.p();
  std::vector<std::int64_t> counts(p), first(p);
  std::int64_t total = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = block ? c.n : c.n + i % 3;
    first[i] = total;
    total += counts[i];
  }
  std::vector<Buffer> send(p), recv(p);
  run(c, [&](int r, Args& a) {
    send[r] = Buffer(*c.kind, total);
    send[r].fill(r, 0, total, 0);
    recv[r] = c.in_place ? send[r] : Buffer(*c.kind, counts[r]);
    a.sendbuf = c.in_place ? recv[r].base() : send[r].base();
    a.recvbuf = recv[r].base();
    a.in_place = c.in_place;
    a.count = c.n;
    if (!block) a.recvcounts = counts.data();
  });
  if (c.skipped) return;
  for (int r = 0; r < p; ++r) {
    Buffer mine(*c.kind, counts[r]);
    if (!mine.bytes.empty())  // an empty vector's data() may be null
      std::memcpy(mine.bytes.data(), recv[r].bytes.data(), mine.bytes.size());
    EXPECT_TRUE(holds(mine, 0, counts[r], 0, p - 1, first[r])) << r;
  }
}

TEST(Reduction, ReduceScatterBlock) {
  for_all(Collective::kReduceScatterBlock, [](Case& c) { reduce_scatter_case(c, true); });
}
TEST(Reduction, ReduceScatter) {
  for_all(Collective::kReduceScatter, [](Case& c) { reduce_scatter_case(c, false); });
}

TEST(Reduction, MillionIntsAllreduce) {
  Job job(4);
  int tag = 0;
  for (const std::string& name : algorithms_of(Collective::kAllreduce)) {
    Case c{&job, Collective::kAllreduce, name, &kinds()[0], 1 << 20, false, tag++};
    SCOPED_TRACE(name);
    std::vector<Buffer> send(4), recv(4);
    run(c, [&](int r, Args& a) {
      send[r] = Buffer(*c.kind, c.n);
      send[r].fill(r, 0, c.n, 0);
      recv[r] = Buffer(*c.kind, c.n);
      a.sendbuf = send[r].base();
      a.recvbuf = recv[r].base();
      a.count = c.n;
    });
    if (c.skipped) continue;
    for (int r = 0; r < 4; ++r) EXPECT_TRUE(holds(recv[r], 0, c.n, 0, 3, 0));
  }
}

}  // namespace
}  // namespace gpurun::coll
