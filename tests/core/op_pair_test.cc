// MPI_MINLOC and MPI_MAXLOC on every value-and-index pair type, in the three layouts the data
// can have: the padded C struct (the predefined types), derived types of pairs (packed through
// scratch), and pairs resized to no padding (value immediately followed by the index).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/core/datatype_build.h"
#include "runtime/core/op.h"
#include "runtime/core/op_kernels.h"
#include "tests/core/op_test_util.h"

namespace gpurun::core {
namespace {

using op_test::applied;
using op_test::committed;
using op_test::predefined;

template <class V, class I>
struct Pair {
  V value;
  I index;
};

// The reference: the better value with its index; equal values keep the smaller index.
template <class V, class I>
Pair<V, I> reference(bool max, Pair<V, I> a, Pair<V, I> b) {
  if (a.value == b.value) return {a.value, a.index < b.index ? a.index : b.index};
  bool a_wins = max ? (b.value < a.value) : (a.value < b.value);
  return a_wins ? a : b;
}

struct PairCase {
  const char* name;
  BasicType basic;
  BasicType value;
  std::int64_t value_size;
  BasicType index;
  std::int64_t index_size;
};

template <class V, class I>
class PairOps {
 public:
  explicit PairOps(const PairCase& c)
      : value_(predefined(c.value, c.value_size, "value")),
        index_(predefined(c.index, c.index_size, "index")),
        type_(op_test::pair(c.basic, *value_, *index_, offsetof(S, index), c.name)) {}

  // Values from a set of four so that ties are common.
  std::vector<Pair<V, I>> random(std::mt19937& rng, int n) {
    std::vector<Pair<V, I>> v(n);
    for (auto& p : v) {
      std::memset(&p, 0, sizeof p);
      p.value = static_cast<V>(static_cast<int>(rng() % 4) - 1);
      p.index = static_cast<I>(rng() % 100);
    }
    return v;
  }

  void check_struct_layout(OpKind kind, std::mt19937& rng) {
    const int n = 67;
    auto in = random(rng, n), inout = random(rng, n), before = inout;
    ASSERT_EQ(type_->extent(), static_cast<std::int64_t>(sizeof(S)));
    ASSERT_TRUE(applied(Op::predefined(kind), in.data(), inout.data(), n, *type_));
    expect_reference(kind, in, before, inout);
  }

  // A vector of pairs with a gap of one pair after every two: the gaps stay as they were.
  void check_derived(OpKind kind, std::mt19937& rng) {
    const int blocks = 500;  // enough pairs to need several scratch chunks
    DatatypeRef vec = committed(make_vector(blocks, 2, 3, *type_));
    ASSERT_EQ(vec->basic(), type_->basic());
    auto in = random(rng, 3 * blocks), inout = random(rng, 3 * blocks), before = inout;
    ASSERT_TRUE(applied(Op::predefined(kind), in.data(), inout.data(), 1, *vec));
    for (int i = 0; i < 3 * blocks; ++i) {
      Pair<V, I> want = i % 3 == 2 ? before[i] : reference(max(kind), in[i], before[i]);
      ASSERT_EQ(want.value, inout[i].value) << i;
      ASSERT_EQ(want.index, inout[i].index) << i;
    }
  }

  // Pairs resized to value + index bytes: one contiguous block in which the index of a pair is
  // not aligned, read as the packed stream is. (Not for MPI_SHORT_INT, whose index is not next
  // to its value: the derived case covers its packed form.)
  void check_unpadded(OpKind kind, std::mt19937& rng) {
    constexpr std::size_t kPacked = sizeof(V) + sizeof(I);
    if (offsetof(S, index) != sizeof(V)) return;
    DatatypeRef tight = committed(make_resized(*type_, 0, kPacked));
    const int n = 41;
    auto in = random(rng, n), inout = random(rng, n);
    std::vector<unsigned char> a(n * kPacked), b(n * kPacked);
    for (int i = 0; i < n; ++i) {
      write(&a[i * kPacked], in[i]);
      write(&b[i * kPacked], inout[i]);
    }
    ASSERT_TRUE(applied(Op::predefined(kind), a.data(), b.data(), n, *tight));
    for (int i = 0; i < n; ++i) {
      Pair<V, I> want = reference(max(kind), in[i], inout[i]), got;
      std::memcpy(&got.value, &b[i * kPacked], sizeof(V));
      std::memcpy(&got.index, &b[i * kPacked + sizeof(V)], sizeof(I));
      ASSERT_EQ(want.value, got.value) << i;
      ASSERT_EQ(want.index, got.index) << i;
    }
  }

  void check_refusals() {
    for (OpKind kind : {OpKind::kMax, OpKind::kSum, OpKind::kBand, OpKind::kLand})
      EXPECT_FALSE(Op::predefined(kind).defined_for(*type_)) << Op::predefined(kind).name();
    EXPECT_TRUE(Op::predefined(OpKind::kMinloc).defined_for(*type_));
    EXPECT_EQ(packed_kernel(OpKind::kMinloc, type_->basic()).unit, type_->size());
    EXPECT_EQ(struct_kernel(OpKind::kMaxloc, type_->basic()).unit, type_->extent());
  }

 private:
  using S = Pair<V, I>;
  static bool max(OpKind kind) { return kind == OpKind::kMaxloc; }
  static void write(unsigned char* at, const S& p) {
    std::memcpy(at, &p.value, sizeof(V));
    std::memcpy(at + sizeof(V), &p.index, sizeof(I));
  }
  void expect_reference(OpKind kind, const std::vector<S>& in, const std::vector<S>& before,
                        const std::vector<S>& inout) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      S want = reference(max(kind), in[i], before[i]);
      ASSERT_EQ(want.value, inout[i].value) << i;
      ASSERT_EQ(want.index, inout[i].index) << i;
    }
  }

  DatatypeRef value_, index_, type_;
};

template <class V, class I>
void check_pair(const PairCase& c) {
  SCOPED_TRACE(c.name);
  PairOps<V, I> ops(c);
  std::mt19937 rng(static_cast<unsigned>(c.basic));
  for (OpKind kind : {OpKind::kMinloc, OpKind::kMaxloc}) {
    SCOPED_TRACE(Op::predefined(kind).name());
    ops.check_struct_layout(kind, rng);
    ops.check_derived(kind, rng);
    ops.check_unpadded(kind, rng);
  }
  ops.check_refusals();
}

const PairCase kFloatInt{
    "MPI_FLOAT_INT", BasicType::kFloatInt, BasicType::kFloat, 4, BasicType::kInt32, 4};
const PairCase kDoubleInt{
    "MPI_DOUBLE_INT", BasicType::kDoubleInt, BasicType::kDouble, 8, BasicType::kInt32, 4};
const PairCase kLongInt{
    "MPI_LONG_INT", BasicType::kLongInt, BasicType::kInt64, 8, BasicType::kInt32, 4};
const PairCase kShortInt{
    "MPI_SHORT_INT", BasicType::kShortInt, BasicType::kInt16, 2, BasicType::kInt32, 4};
const PairCase kLongDoubleInt{"MPI_LONG_DOUBLE_INT",  BasicType::kLongDoubleInt,
                              BasicType::kLongDouble, 16,
                              BasicType::kInt32,      4};
const PairCase kTwoInt{"MPI_2INT", BasicType::kTwoInt, BasicType::kInt32, 4, BasicType::kInt32, 4};
const PairCase kTwoFloat{"MPI_2REAL", BasicType::kTwoFloat, BasicType::kFloat,
                         4,           BasicType::kFloat,    4};
const PairCase kTwoDouble{
    "MPI_2DOUBLE_PRECISION", BasicType::kTwoDouble, BasicType::kDouble, 8, BasicType::kDouble, 8};

TEST(OpPair, FloatInt) { check_pair<float, std::int32_t>(kFloatInt); }
TEST(OpPair, DoubleInt) { check_pair<double, std::int32_t>(kDoubleInt); }
TEST(OpPair, LongInt) { check_pair<std::int64_t, std::int32_t>(kLongInt); }
TEST(OpPair, ShortInt) { check_pair<std::int16_t, std::int32_t>(kShortInt); }
TEST(OpPair, LongDoubleInt) { check_pair<long double, std::int32_t>(kLongDoubleInt); }
TEST(OpPair, TwoInt) { check_pair<std::int32_t, std::int32_t>(kTwoInt); }
TEST(OpPair, TwoReal) { check_pair<float, float>(kTwoFloat); }
TEST(OpPair, TwoDoublePrecision) { check_pair<double, double>(kTwoDouble); }

TEST(OpPair, TiesKeepTheSmallerIndexWhicheverSideItIsOn) {
  DatatypeRef d = predefined(BasicType::kDouble, 8, "MPI_DOUBLE");
  DatatypeRef i = predefined(BasicType::kInt32, 4, "MPI_INT");
  DatatypeRef t = op_test::pair(BasicType::kDoubleInt, *d, *i, 8, "MPI_DOUBLE_INT");
  Pair<double, std::int32_t> in[] = {{3, 5}, {3, 1}, {4, 9}, {2, 9}};
  for (OpKind kind : {OpKind::kMinloc, OpKind::kMaxloc}) {
    Pair<double, std::int32_t> inout[] = {{3, 2}, {3, 4}, {4, 0}, {2, 3}};
    ASSERT_TRUE(applied(Op::predefined(kind), in, inout, 4, *t));
    EXPECT_EQ(inout[0].index, 2);
    EXPECT_EQ(inout[1].index, 1);
    EXPECT_EQ(inout[2].index, 0);
    EXPECT_EQ(inout[3].index, 3);
  }
  Pair<double, std::int32_t> lo[] = {{1, 7}}, hi[] = {{2, 8}};
  ASSERT_TRUE(applied(Op::predefined(OpKind::kMaxloc), lo, hi, 1, *t));
  EXPECT_EQ(hi[0].value, 2);
  EXPECT_EQ(hi[0].index, 8);
  Pair<double, std::int32_t> lo2[] = {{1, 7}}, hi2[] = {{2, 8}};
  ASSERT_TRUE(applied(Op::predefined(OpKind::kMinloc), lo2, hi2, 1, *t));
  EXPECT_EQ(hi2[0].value, 1);
  EXPECT_EQ(hi2[0].index, 7);
}

}  // namespace
}  // namespace gpurun::core
