// The shared-memory reduce_scatter(_block), ranks as threads, against a reference computed
// here: 1 to 9 ranks, equal blocks of 0, 1, 7, 1K elements (64K for a few) and unequal ones
// (empty blocks among them), MPI_SUM on ints and a non-commutative user op, in place and not,
// three starts back to back with new data, small slots (many rounds).
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/core/op.h"
#include "tests/coll/shm_test_harness.h"

namespace gpurun::coll::shm::testing {
namespace {

// 2x2 matrices of uint32 under multiplication: associative, not commutative.
struct Matrix {
  std::uint32_t m[4];
};
Matrix times(const Matrix& a, const Matrix& b) {
  return Matrix{{a.m[0] * b.m[0] + a.m[1] * b.m[2], a.m[0] * b.m[1] + a.m[1] * b.m[3],
                 a.m[2] * b.m[0] + a.m[3] * b.m[2], a.m[2] * b.m[1] + a.m[3] * b.m[3]}};
}
void times_fn(const void* in, void* inout, std::int64_t count, const core::Datatype&, void*) {
  const auto* a = static_cast<const Matrix*>(in);
  auto* b = static_cast<Matrix*>(inout);
  for (std::int64_t i = 0; i < count; ++i) b[i] = times(a[i], b[i]);
}
const core::Datatype& matrix_type() {
  static auto* t = [] {
    static auto u32 = core::Datatype::predefined(core::BasicType::kUint32, 4, "MPI_UINT32_T");
    auto c = core::make_contiguous(4, *u32);
    c.value()->commit();
    return new core::DatatypeRef(c.value());
  }();
  return **t;
}

struct Case {
  int size;
  std::int64_t count;  // per block; < 0: unequal blocks (rank r's block holds r * 3 % 5)
  bool matrix;
  bool in_place;
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::string("p") + std::to_string(c.size) +
         (c.count < 0 ? std::string("_unequal") : std::string("_n") + std::to_string(c.count)) +
         (c.matrix ? "_matrix" : "_int") + (c.in_place ? "_inplace" : "");
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int size = 1; size <= 9; ++size)
    for (std::int64_t count : {0, 1, 7, 1024, -1})
      for (bool matrix : {false, true})
        for (bool in_place : {false, true}) out.push_back({size, count, matrix, in_place});
  for (int size : {2, 3, 5}) out.push_back({size, 65536, false, false});
  return out;
}

std::uint32_t entry(int rank, int start, std::int64_t i) {
  return static_cast<std::uint32_t>((rank + 3) * 2246822519u + start * 3266489917u +
                                    i * 668265263u);
}

class ShmReduceScatter : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    user_op_ = core::Op::user(times_fn, nullptr, /*commutative=*/false);
    for (int r = 0; r < GetParam().size; ++r) {
      std::int64_t n = GetParam().count >= 0 ? GetParam().count : r * 3 % 5;
      counts_.push_back(n);
      total_ += n;
    }
  }
  const core::Datatype& type() const {
    static auto u32 = core::Datatype::predefined(core::BasicType::kUint32, 4, "MPI_UINT32_T");
    return GetParam().matrix ? matrix_type() : *u32;
  }
  const core::Op& op() const {
    return GetParam().matrix ? *user_op_ : core::Op::predefined(core::OpKind::kSum);
  }
  std::vector<std::byte> operand(int rank, int start) const {
    std::vector<std::byte> bytes(total_ * type().size());
    for (std::size_t i = 0; i < bytes.size() / 4; ++i) {
      std::uint32_t v = entry(rank, start, static_cast<std::int64_t>(i));
      std::memcpy(&bytes[i * 4], &v, 4);
    }
    return bytes;
  }
  // x0 op (x1 op (... op x(p-1))) over the whole vector.
  std::vector<std::byte> reference(int start) const {
    std::vector<std::byte> acc = operand(GetParam().size - 1, start);
    for (int r = GetParam().size - 2; r >= 0; --r)
      EXPECT_TRUE(op().apply(operand(r, start).data(), acc.data(), total_, type()).ok());
    return acc;
  }

  std::unique_ptr<core::Op> user_op_;
  std::vector<std::int64_t> counts_;
  std::int64_t total_ = 0;
};

TEST_P(ShmReduceScatter, EachRankGetsItsBlock) {
  const Case& c = GetParam();
  Team team(c.size, 16384);
  std::int64_t element = type().size();
  team.run([&](int rank) {
    std::mt19937 random(rank);
    std::int64_t first = 0;
    for (int r = 0; r < rank; ++r) first += counts_[r];
    std::vector<std::byte> send(total_ * element + 1);
    std::vector<std::byte> recv((c.in_place ? total_ : counts_[rank]) * element + 1);
    Args args{
        .collective = c.count < 0 ? Collective::kReduceScatter : Collective::kReduceScatterBlock,
        .sendbuf = c.in_place ? recv.data() : send.data(),
        .recvbuf = recv.data(),
        .in_place = c.in_place,
        .count = c.count < 0 ? 0 : c.count,
        .type = &type(),
        .recvcounts = c.count < 0 ? counts_.data() : nullptr,
        .op = &op()};
    auto operation = make_reduce_scatter(team.arena(rank), args);
    team.ready(rank);  // after the operation was made
    for (int start = 0; start < 3; ++start) {
      std::vector<std::byte> mine = operand(rank, start);
      std::copy(mine.begin(), mine.end(), (c.in_place ? recv : send).begin());
      recv.back() = std::byte{0x5a};
      arrive_late(random);
      run_to_end(*operation);
      std::vector<std::byte> want = reference(start);
      EXPECT_TRUE(std::equal(recv.begin(), recv.begin() + counts_[rank] * element,
                             want.begin() + first * element))
          << "rank " << rank << " start " << start;
      EXPECT_EQ(recv.back(), std::byte{0x5a});
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmReduceScatter, ::testing::ValuesIn(cases()), name_of);

}  // namespace
}  // namespace gpurun::coll::shm::testing
