// Ops on data that is not one array of a predefined type: derived types made of one basic type
// (reduced element by element, gaps untouched), types mixing basic types (refused), buffers
// that are not aligned, MPI_REPLACE and MPI_NO_OP, and users' ops (operand order, arguments).
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/core/datatype_build.h"
#include "runtime/core/op.h"
#include "tests/core/op_test_util.h"

namespace gpurun::core {
namespace {

using op_test::applied;
using op_test::committed;
using op_test::predefined;

class OpLayout : public ::testing::Test {
 protected:
  DatatypeRef int_ = predefined(BasicType::kInt32, 4, "MPI_INT");
  DatatypeRef int32_ = predefined(BasicType::kInt32, 4, "MPI_INT32_T");
  DatatypeRef double_ = predefined(BasicType::kDouble, 8, "MPI_DOUBLE");
  const Op& sum_ = Op::predefined(OpKind::kSum);
};

std::vector<int> iota(int n, int from) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

// Elements 0, 1, then 3, 4, ... of every 3 (a vector of blocks of 2, stride 3) are summed; the
// others stay. With `count` copies of the type one after the other.
TEST_F(OpLayout, VectorOfIntsReducesItsElementsAndLeavesTheGaps) {
  DatatypeRef vec = committed(make_vector(4, 2, 3, *int_));  // extent 11 ints
  ASSERT_EQ(vec->basic(), BasicType::kInt32);
  ASSERT_FALSE(vec->contiguous());
  const int count = 3, span = 11 * count;
  std::vector<int> in = iota(span, 1000), inout = iota(span, 0), before = inout;
  ASSERT_TRUE(applied(sum_, in.data(), inout.data(), count, *vec));
  for (int i = 0; i < span; ++i) {
    int k = i % 11;
    bool data = k % 3 != 2;
    EXPECT_EQ(inout[i], data ? in[i] + before[i] : before[i]) << i;
  }
}

TEST_F(OpLayout, NestedIndexedTypesOfOneBasicTypeReduce) {
  const std::int64_t lengths[] = {3, 1, 2};
  const std::int64_t disps[] = {5, 0, 9};  // out of order, as indexed types may be
  DatatypeRef idx = committed(make_indexed(lengths, disps, *double_));
  DatatypeRef outer = committed(make_hvector(3, 1, std::int64_t{12} * 8, *idx));
  const int n = 36;
  std::vector<double> in(n), inout(n), before;
  for (int i = 0; i < n; ++i) in[i] = i * 0.5, inout[i] = 100 - i;
  before = inout;
  ASSERT_TRUE(applied(Op::predefined(OpKind::kMax), in.data(), inout.data(), 1, *outer));
  for (int i = 0; i < n; ++i) {
    int k = i % 12;
    bool data = k == 0 || (k >= 5 && k <= 7) || k == 9 || k == 10;
    EXPECT_EQ(inout[i], data ? std::max(in[i], before[i]) : before[i]) << i;
  }
}

TEST_F(OpLayout, StructOfTwoNamesOfOneRepresentationReduces) {
  const std::int64_t lengths[] = {1, 2};
  const std::int64_t disps[] = {0, 8};
  const Datatype* types[] = {int_.get(), int32_.get()};
  DatatypeRef s = committed(make_struct(lengths, disps, types));
  ASSERT_EQ(s->basic(), BasicType::kInt32);
  int in[] = {1, 2, 3, 4}, inout[] = {10, 20, 30, 40};
  ASSERT_TRUE(applied(Op::predefined(OpKind::kProd), in, inout, 1, *s));
  EXPECT_EQ(inout[0], 10);
  EXPECT_EQ(inout[1], 20);  // the hole at bytes 4..7
  EXPECT_EQ(inout[2], 90);
  EXPECT_EQ(inout[3], 160);
}

TEST_F(OpLayout, ContiguousDerivedTypesAreOneBlock) {
  DatatypeRef c = committed(make_contiguous(5, *double_));
  ASSERT_TRUE(c->contiguous());
  std::vector<double> in(20, 1.5), inout(20, 2.0);
  ASSERT_TRUE(applied(sum_, in.data(), inout.data(), 4, *c));
  for (double x : inout) EXPECT_EQ(x, 3.5);
}

TEST_F(OpLayout, TypesMixingBasicTypesAreRefusedByEveryPredefinedOp) {
  const std::int64_t lengths[] = {1, 1};
  const std::int64_t disps[] = {0, 8};
  const Datatype* types[] = {int_.get(), double_.get()};
  DatatypeRef mixed = committed(make_struct(lengths, disps, types));
  ASSERT_EQ(mixed->basic(), BasicType::kNone);
  std::vector<char> in(16, 1), inout(16, 2), before = inout;
  for (int k = 0; k < kPredefinedOpCount; ++k) {
    const Op& op = Op::predefined(static_cast<OpKind>(k));
    EXPECT_FALSE(op.defined_for(*mixed)) << op.name();
    Status s = op.apply(in.data(), inout.data(), 1, *mixed);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << op.name();
    EXPECT_NE(s.message().find("mixing basic types"), std::string_view::npos) << s.message();
  }
  EXPECT_EQ(inout, before);
}

TEST_F(OpLayout, LogicalOpsRefuseDerivedTypesOfFortranIntegers) {
  DatatypeRef integer = predefined(BasicType::kInt32, 4, "MPI_INTEGER");
  DatatypeRef vec = committed(make_vector(2, 1, 2, *integer));
  EXPECT_FALSE(Op::predefined(OpKind::kLand).defined_for(*vec));
  Status s = Op::predefined(OpKind::kLand).check(*vec);
  EXPECT_NE(s.message().find("a derived datatype of MPI_INTEGER"), std::string_view::npos)
      << s.message();
  EXPECT_TRUE(Op::predefined(OpKind::kBxor).defined_for(*vec));
  DatatypeRef cvec = committed(make_vector(2, 1, 2, *int_));
  EXPECT_TRUE(Op::predefined(OpKind::kLand).defined_for(*cvec));
}

TEST_F(OpLayout, MisalignedBuffersGiveTheSameResult) {
  const int n = 100;
  std::vector<unsigned char> a(n * 8 + 1), b(n * 8 + 1);
  for (int i = 0; i < n; ++i) {
    double x = i, y = 2.0 * i;
    std::memcpy(&a[1 + 8 * i], &x, 8);
    std::memcpy(&b[1 + 8 * i], &y, 8);
  }
  ASSERT_TRUE(applied(sum_, &a[1], &b[1], n, *double_));
  for (int i = 0; i < n; ++i) {
    double got;
    std::memcpy(&got, &b[1 + 8 * i], 8);
    EXPECT_EQ(got, 3.0 * i) << i;
  }
}

TEST_F(OpLayout, CountZeroTouchesNothing) {
  int in = 1, inout = 2;
  ASSERT_TRUE(applied(sum_, &in, &inout, 0, *int_));
  ASSERT_TRUE(applied(sum_, nullptr, nullptr, 0, *int_));
  EXPECT_EQ(inout, 2);
}

TEST_F(OpLayout, ReplaceCopiesTheElementsAndNoOpKeepsThem) {
  DatatypeRef vec = committed(make_vector(3, 1, 2, *int_));
  std::vector<int> in = iota(5, 100), inout = iota(5, 0);
  ASSERT_TRUE(applied(Op::predefined(OpKind::kNoOp), in.data(), inout.data(), 1, *vec));
  EXPECT_EQ(inout, iota(5, 0));
  ASSERT_TRUE(applied(Op::predefined(OpKind::kReplace), in.data(), inout.data(), 1, *vec));
  EXPECT_EQ(inout, (std::vector<int>{100, 1, 102, 3, 104}));
  std::vector<int> whole = iota(5, 0);
  ASSERT_TRUE(applied(Op::predefined(OpKind::kReplace), in.data(), whole.data(), 5, *int_));
  EXPECT_EQ(whole, in);
}

// A user op that is not commutative: 2x2 matrix product, inout = in x inout.
struct Calls {
  int count = 0;
  std::int64_t last_count = 0;
  const Datatype* last_type = nullptr;
};

void matmul(const void* in, void* inout, std::int64_t count, const Datatype& type, void* ctx) {
  auto* calls = static_cast<Calls*>(ctx);
  ++calls->count;
  calls->last_count = count;
  calls->last_type = &type;
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (std::int64_t k = 0; k < count; ++k, a += 4, b += 4) {
    int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, c, sizeof c);
  }
}

TEST_F(OpLayout, UserOpsGetTheirArgumentsAndKeepOperandOrder) {
  Calls calls;
  std::unique_ptr<Op> op = Op::user(&matmul, &calls, false);
  EXPECT_EQ(op->kind(), OpKind::kUser);
  EXPECT_FALSE(op->commutative());
  EXPECT_FALSE(op->is_predefined());
  EXPECT_STREQ(op->name(), "user op");
  DatatypeRef mat = committed(make_contiguous(4, *int_));
  EXPECT_TRUE(op->defined_for(*mat));
  int lower[] = {1, 2, 0, 1, 2, 0, 0, 2}, upper[] = {1, 0, 3, 1, 1, 0, 0, 1};
  ASSERT_TRUE(applied(*op, lower, upper, 2, *mat));
  EXPECT_EQ(calls.count, 1);
  EXPECT_EQ(calls.last_count, 2);
  EXPECT_EQ(calls.last_type, mat.get());
  // [1 2; 0 1] x [1 0; 3 1] = [7 2; 3 1], not [1 2; 3 7]
  EXPECT_EQ(std::vector<int>(upper, upper + 4), (std::vector<int>{7, 2, 3, 1}));
  EXPECT_EQ(std::vector<int>(upper + 4, upper + 8), (std::vector<int>{2, 0, 0, 2}));
  EXPECT_TRUE(Op::user(&matmul, &calls, true)->commutative());
  EXPECT_TRUE(applied(*op, lower, upper, 0, *mat));
  EXPECT_EQ(calls.count, 1);  // no call for no data
}

TEST_F(OpLayout, InUseCountsReferences) {
  Calls calls;
  std::unique_ptr<Op> op = Op::user(&matmul, &calls, true);
  EXPECT_FALSE(op->in_use());
  op->retain();
  op->retain();
  op->release();
  EXPECT_TRUE(op->in_use());
  op->release();
  EXPECT_FALSE(op->in_use());
  EXPECT_EQ(op->user_context(), &calls);
}

}  // namespace
}  // namespace gpurun::core
