// The predefined ops on every predefined type: each pair the standard defines gives the result
// of a plain C++ reference, each pair it forbids is refused and leaves the buffer alone.
#include "runtime/core/op.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/core/op_kernels.h"
#include "tests/core/op_test_util.h"

namespace gpurun::core {
namespace {

using op_test::applied;
using op_test::predefined;

// The groups of MPI-4.0 section 6.9.2, written out here independently of the library's table.
enum class Group {
  kCInt,
  kFortranInt,
  kMultiLanguage,
  kChar,
  kFloat,
  kComplex,
  kLogical,
  kByte,
  kOther
};

struct Case {
  const char* name;
  BasicType basic;
  std::int64_t size;
  Group group;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const Case kCases[] = {
    {"MPI_SIGNED_CHAR", BasicType::kInt8, 1, Group::kCInt},
    {"MPI_UNSIGNED_CHAR", BasicType::kUint8, 1, Group::kCInt},
    {"MPI_SHORT", BasicType::kInt16, 2, Group::kCInt},
    {"MPI_UNSIGNED_SHORT", BasicType::kUint16, 2, Group::kCInt},
    {"MPI_INT", BasicType::kInt32, 4, Group::kCInt},
    {"MPI_UNSIGNED", BasicType::kUint32, 4, Group::kCInt},
    {"MPI_LONG", BasicType::kInt64, 8, Group::kCInt},
    {"MPI_UNSIGNED_LONG_LONG", BasicType::kUint64, 8, Group::kCInt},
    {"MPI_INT16_T", BasicType::kInt16, 2, Group::kCInt},
    {"MPI_UINT64_T", BasicType::kUint64, 8, Group::kCInt},
    {"MPI_INTEGER", BasicType::kInt32, 4, Group::kFortranInt},
    {"MPI_INTEGER1", BasicType::kInt8, 1, Group::kFortranInt},
    {"MPI_INTEGER2", BasicType::kInt16, 2, Group::kFortranInt},
    {"MPI_INTEGER8", BasicType::kInt64, 8, Group::kFortranInt},
    {"MPI_AINT", BasicType::kInt64, 8, Group::kMultiLanguage},
    {"MPI_COUNT", BasicType::kInt64, 8, Group::kMultiLanguage},
    {"MPI_CHAR", BasicType::kChar, 1, Group::kChar},
    {"MPI_CHARACTER", BasicType::kChar, 1, Group::kChar},
    {"MPI_FLOAT", BasicType::kFloat, 4, Group::kFloat},
    {"MPI_DOUBLE", BasicType::kDouble, 8, Group::kFloat},
    {"MPI_LONG_DOUBLE", BasicType::kLongDouble, 16, Group::kFloat},
    {"MPI_REAL", BasicType::kFloat, 4, Group::kFloat},
    {"MPI_REAL16", BasicType::kFloat128, 16, Group::kFloat},
    {"MPIX_C_FLOAT16", BasicType::kFloat16, 2, Group::kFloat},
    {"MPI_C_FLOAT_COMPLEX", BasicType::kFloatComplex, 8, Group::kComplex},
    {"MPI_C_DOUBLE_COMPLEX", BasicType::kDoubleComplex, 16, Group::kComplex},
    {"MPI_C_LONG_DOUBLE_COMPLEX", BasicType::kLongDoubleComplex, 32, Group::kComplex},
    {"MPI_COMPLEX32", BasicType::kFloat128Complex, 32, Group::kComplex},
    {"MPI_C_BOOL", BasicType::kBool, 1, Group::kLogical},
    {"MPI_LOGICAL", BasicType::kLogical, 4, Group::kLogical},
    {"MPI_BYTE", BasicType::kByte, 1, Group::kByte},
    {"MPI_WCHAR", BasicType::kWchar, 4, Group::kOther},
    {"MPI_PACKED", BasicType::kPacked, 1, Group::kOther},
};

constexpr OpKind kReductionOps[] = {OpKind::kMax,  OpKind::kMin,  OpKind::kSum,    OpKind::kProd,
                                    OpKind::kLand, OpKind::kBand, OpKind::kLor,    OpKind::kBor,
                                    OpKind::kLxor, OpKind::kBxor, OpKind::kMinloc, OpKind::kMaxloc};

// The standard's table, plus the two documented extensions that both peers share: MPI_CHAR as
// a small integer, and the logical ops on MPI_AINT/MPI_OFFSET/MPI_COUNT.
bool defined(OpKind op, Group g) {
  bool integer = g == Group::kCInt || g == Group::kFortranInt || g == Group::kMultiLanguage ||
                 g == Group::kChar;
  switch (op) {
    case OpKind::kMax:
    case OpKind::kMin:
      return integer || g == Group::kFloat;
    case OpKind::kSum:
    case OpKind::kProd:
      return integer || g == Group::kFloat || g == Group::kComplex;
    case OpKind::kLand:
    case OpKind::kLor:
    case OpKind::kLxor:
      return (integer && g != Group::kFortranInt) || g == Group::kLogical;
    case OpKind::kBand:
    case OpKind::kBor:
    case OpKind::kBxor:
      return integer || g == Group::kByte;
    default:
      return false;  // MINLOC/MAXLOC: pairs only (op_pair_test.cc)
  }
}

struct Quad {  // binary128 complex, as the library lays it out: real then imaginary
  __float128 re, im;
};

template <class T>
T reference(OpKind op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = unsigned long long;  // arithmetic modulo 2^64, then truncated: wraps like the MPI op
    switch (op) {
      case OpKind::kMax:
        return std::max(a, b);
      case OpKind::kMin:
        return std::min(a, b);
      case OpKind::kSum:
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case OpKind::kProd:
        return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case OpKind::kLand:
        return (a && b) ? 1 : 0;
      case OpKind::kLor:
        return (a || b) ? 1 : 0;
      case OpKind::kLxor:
        return (!a != !b) ? 1 : 0;
      case OpKind::kBand:
        return static_cast<T>(a & b);
      case OpKind::kBor:
        return static_cast<T>(a | b);
      case OpKind::kBxor:
        return static_cast<T>(a ^ b);
      default:
        break;
    }
  } else if constexpr (std::is_same_v<T, Quad>) {
    if (op == OpKind::kSum) return {a.re + b.re, a.im + b.im};
    if (op == OpKind::kProd) return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>> ||
                       std::is_same_v<T, std::complex<long double>>) {
    if (op == OpKind::kSum) return a + b;
    if (op == OpKind::kProd) return a * b;
#if GPURUN_TEST_HAVE_FLOAT16
  } else if constexpr (std::is_same_v<T, _Float16>) {
    float x = a, y = b;  // one rounding to half precision, as C does it
    switch (op) {
      case OpKind::kMax:
        return x < y ? b : a;
      case OpKind::kMin:
        return y < x ? b : a;
      case OpKind::kSum:
        return static_cast<_Float16>(x + y);
      case OpKind::kProd:
        return static_cast<_Float16>(x * y);
      default:
        break;
    }
#endif
  } else {
    switch (op) {
      case OpKind::kMax:
        return a < b ? b : a;
      case OpKind::kMin:
        return b < a ? b : a;
      case OpKind::kSum:
        return a + b;
      case OpKind::kProd:
        return a * b;
      default:
        break;
    }
  }
  ADD_FAILURE() << "no reference for this op";
  return a;
}

template <class T>
bool same(const T& x, const T& y) {
  if constexpr (std::is_same_v<T, Quad>)
    return x.re == y.re && x.im == y.im;
  else
    return x == y;
}

// Values that exercise each type: integers over their whole range with some zeros (logical
// ops) and extremes (wrap-around); floating point values exact in half precision.
template <class T>
T value(std::mt19937_64& rng, bool logical_bool) {
  if constexpr (std::is_integral_v<T>) {
    if (logical_bool) return static_cast<T>(rng() & 1);
    switch (rng() % 8) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<T>::max();
      case 2:
        return std::numeric_limits<T>::min();
      default:
        return static_cast<T>(rng());
    }
  } else if constexpr (std::is_same_v<T, Quad>) {
    return {value<__float128>(rng, false), value<__float128>(rng, false)};
  } else if constexpr (requires { typename T::value_type; }) {
    using R = typename T::value_type;
    return T(value<R>(rng, false), value<R>(rng, false));
  } else {
    return static_cast<T>(static_cast<int>(rng() % 129) - 64) / static_cast<T>(4);
  }
}

template <class T>
void check_case(const Case& c, OpKind kind, std::int64_t n, std::mt19937_64& rng) {
  SCOPED_TRACE(std::string(c.name) + " count " + std::to_string(n));
  ASSERT_EQ(sizeof(T), static_cast<std::size_t>(c.size));
  DatatypeRef type = predefined(c.basic, c.size, c.name);
  const Op& op = Op::predefined(kind);
  std::vector<T> in(n), inout(n);
  for (std::int64_t i = 0; i < n; ++i) {
    in[i] = value<T>(rng, c.basic == BasicType::kBool);
    inout[i] = value<T>(rng, c.basic == BasicType::kBool);
  }
  std::vector<T> before = inout;
  if (!defined(kind, c.group)) {
    EXPECT_FALSE(op.defined_for(*type)) << op.name();
    // The bytes, padding included (copying a long double need not copy its padding).
    std::vector<std::byte> bytes(n * sizeof(T));
    std::memcpy(bytes.data(), inout.data(), bytes.size());
    Status s = op.apply(in.data(), inout.data(), n, *type);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << op.name();
    EXPECT_NE(s.message().find(op.name()), std::string_view::npos) << s.message();
    EXPECT_NE(s.message().find(c.name), std::string_view::npos) << s.message();
    EXPECT_EQ(std::memcmp(bytes.data(), inout.data(), bytes.size()), 0);
    EXPECT_EQ(op.packed_loop(*type).loop, nullptr) << op.name();
    return;
  }
  EXPECT_TRUE(op.defined_for(*type)) << op.name();
  EXPECT_EQ(packed_kernel(kind, c.basic).unit, basic_size(c.basic));  // as the engine packs
  ASSERT_TRUE(applied(op, in.data(), inout.data(), n, *type));
  for (std::int64_t i = 0; i < n; ++i) {
    T want = reference<T>(kind, in[i], before[i]);
    ASSERT_TRUE(same(want, inout[i])) << op.name() << " element " << i;
  }
  // The loop handed out for repeated use gives what apply() gave.
  Op::PackedLoop loop = op.packed_loop(*type);
  if (!type->contiguous()) {
    EXPECT_EQ(loop.loop, nullptr) << op.name();
    return;
  }
  ASSERT_NE(loop.loop, nullptr) << op.name();
  std::vector<T> again = before;
  loop.loop(in.data(), again.data(), n * loop.per_item);
  for (std::int64_t i = 0; i < n; ++i)  // by value: long double's padding bytes may differ
    ASSERT_TRUE(same(again[i], inout[i])) << op.name() << " element " << i;
  // ... and so does its form with the result in a third buffer, where it has one.
  if (loop.combine == nullptr) return;
  std::vector<T> out(n, T{});
  loop.combine(in.data(), before.data(), out.data(), n * loop.per_item);
  for (std::int64_t i = 0; i < n; ++i)  // by value: long double's padding bytes differ
    ASSERT_TRUE(same(inout[i], out[i])) << op.name() << " element " << i;
}

template <class T>
void check_all_ops(const Case& c) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(c.basic) * 977 + c.size);
  for (OpKind kind : kReductionOps)
    for (std::int64_t n : {1, 7, 1000}) check_case<T>(c, kind, n, rng);
}

void check_type(const Case& c) {
  switch (c.basic) {
    case BasicType::kInt8:
      return check_all_ops<std::int8_t>(c);
    case BasicType::kUint8:
      return check_all_ops<std::uint8_t>(c);
    case BasicType::kInt16:
      return check_all_ops<std::int16_t>(c);
    case BasicType::kUint16:
      return check_all_ops<std::uint16_t>(c);
    case BasicType::kInt32:
      return check_all_ops<std::int32_t>(c);
    case BasicType::kUint32:
      return check_all_ops<std::uint32_t>(c);
    case BasicType::kInt64:
      return check_all_ops<std::int64_t>(c);
    case BasicType::kUint64:
      return check_all_ops<std::uint64_t>(c);
    case BasicType::kChar:
      return check_all_ops<signed char>(c);
    case BasicType::kFloat:
      return check_all_ops<float>(c);
    case BasicType::kDouble:
      return check_all_ops<double>(c);
    case BasicType::kLongDouble:
      return check_all_ops<long double>(c);
    case BasicType::kFloat128:
      return check_all_ops<__float128>(c);
    case BasicType::kFloat16:
#if GPURUN_TEST_HAVE_FLOAT16
      return check_all_ops<_Float16>(c);
#else
      GTEST_SKIP() << "the compiler has no _Float16 for the reference";
#endif
    case BasicType::kFloatComplex:
      return check_all_ops<std::complex<float>>(c);
    case BasicType::kDoubleComplex:
      return check_all_ops<std::complex<double>>(c);
    case BasicType::kLongDoubleComplex:
      return check_all_ops<std::complex<long double>>(c);
    case BasicType::kFloat128Complex:
      return check_all_ops<Quad>(c);
    case BasicType::kBool:
      return check_all_ops<std::uint8_t>(c);
    case BasicType::kLogical:
      return check_all_ops<std::int32_t>(c);
    case BasicType::kByte:
      return check_all_ops<std::uint8_t>(c);
    case BasicType::kWchar:
      return check_all_ops<std::int32_t>(c);
    case BasicType::kPacked:
      return check_all_ops<std::uint8_t>(c);
    default:
      FAIL() << "no case for " << c.name;
  }
}

class EveryType : public ::testing::TestWithParam<Case> {};

TEST_P(EveryType, EachOpGivesTheReferenceOrIsRefused) { check_type(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Op, EveryType, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

TEST(Op, UnsignedArithmeticWraps) {
  DatatypeRef u8 = predefined(BasicType::kUint8, 1, "MPI_UINT8_T");
  DatatypeRef u16 = predefined(BasicType::kUint16, 2, "MPI_UINT16_T");
  DatatypeRef u32 = predefined(BasicType::kUint32, 4, "MPI_UINT32_T");
  std::uint8_t a8 = 200, b8 = 100;
  ASSERT_TRUE(applied(Op::predefined(OpKind::kSum), &a8, &b8, 1, *u8));
  EXPECT_EQ(b8, 44);
  std::uint16_t a16 = 300, b16 = 300;  // 90000 mod 65536; promoted to int it would not wrap
  ASSERT_TRUE(applied(Op::predefined(OpKind::kProd), &a16, &b16, 1, *u16));
  EXPECT_EQ(b16, 24464);
  std::uint32_t a32 = 0xffffffffu, b32 = 2;
  ASSERT_TRUE(applied(Op::predefined(OpKind::kSum), &a32, &b32, 1, *u32));
  EXPECT_EQ(b32, 1u);
}

TEST(Op, SignedArithmeticWrapsInTwosComplement) {
  DatatypeRef i32 = predefined(BasicType::kInt32, 4, "MPI_INT");
  std::int32_t a = INT32_MAX, b = 1;
  ASSERT_TRUE(applied(Op::predefined(OpKind::kSum), &a, &b, 1, *i32));
  EXPECT_EQ(b, INT32_MIN);
}

TEST(Op, LogicalOpsTakeAnyNonZeroAsTrueAndWriteOneOrZero) {
  DatatypeRef i32 = predefined(BasicType::kInt32, 4, "MPI_INT");
  const std::int32_t in[] = {2, 0, -3, 0, 7};
  const std::int32_t start[] = {5, 7, 0, 0, -1};
  const std::int32_t land[] = {1, 0, 0, 0, 1}, lor[] = {1, 1, 1, 0, 1}, lxor[] = {0, 1, 1, 0, 0};
  const std::pair<OpKind, const std::int32_t*> cases[] = {
      {OpKind::kLand, land}, {OpKind::kLor, lor}, {OpKind::kLxor, lxor}};
  for (auto [kind, want] : cases) {
    std::int32_t inout[5];
    std::memcpy(inout, start, sizeof inout);
    ASSERT_TRUE(applied(Op::predefined(kind), in, inout, 5, *i32));
    for (int i = 0; i < 5; ++i) EXPECT_EQ(inout[i], want[i]) << Op::predefined(kind).name() << i;
  }
}

TEST(Op, ComplexProductIsTheComplexProduct) {
  DatatypeRef z = predefined(BasicType::kDoubleComplex, 16, "MPI_C_DOUBLE_COMPLEX");
  std::complex<double> in[] = {{1, 2}, {0, 1}}, inout[] = {{3, -1}, {0, 1}};
  ASSERT_TRUE(applied(Op::predefined(OpKind::kProd), in, inout, 2, *z));
  EXPECT_EQ(inout[0], std::complex<double>(5, 5));  // (1+2i)(3-i) = 3 - i + 6i + 2
  EXPECT_EQ(inout[1], std::complex<double>(-1, 0));
}

#if GPURUN_TEST_HAVE_FLOAT16
TEST(Op, HalfPrecisionRoundsOnce) {
  DatatypeRef h = predefined(BasicType::kFloat16, 2, "MPIX_C_FLOAT16");
  auto h16 = [](float x) { return static_cast<_Float16>(x); };
  _Float16 in[] = {h16(1.5f), h16(2048), h16(-3)}, inout[] = {h16(2.25f), h16(1), h16(0.5f)};
  ASSERT_TRUE(applied(Op::predefined(OpKind::kSum), in, inout, 3, *h));
  EXPECT_EQ(static_cast<float>(inout[0]), 3.75f);
  EXPECT_EQ(static_cast<float>(inout[1]), 2048.0f);  // 2049 is not representable: ties to even
  EXPECT_EQ(static_cast<float>(inout[2]), -2.5f);
}

// Every half-precision value (subnormals, infinities and NaNs included) against operands of
// every kind, compared with the compiler's _Float16 arithmetic: through Op::apply (hardware
// conversions where the CPU has them) and through the portable loop.
void check_every_half(OpKind kind,
                      const std::function<void(const void*, void*, std::int64_t)>& kernel) {
  const std::uint16_t others[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc01,
                                  0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x3555, 0x1234, 0xc7ff};
  for (std::uint16_t other : others) {
    std::vector<std::uint16_t> in(65536), inout(65536, other);
    for (std::uint32_t i = 0; i < 65536; ++i) in[i] = static_cast<std::uint16_t>(i);
    kernel(in.data(), inout.data(), 65536);
    for (std::uint32_t i = 0; i < 65536; ++i) {
      _Float16 a, b, got;
      std::memcpy(&a, &in[i], 2);
      std::memcpy(&b, &other, 2);
      std::memcpy(&got, &inout[i], 2);
      bool minmax = kind == OpKind::kMax || kind == OpKind::kMin;
      if (minmax && (a != a || b != b)) continue;  // MPI leaves MAX/MIN of NaN undefined
      _Float16 want = reference<_Float16>(kind, a, b);
      std::uint16_t want_bits;
      std::memcpy(&want_bits, &want, 2);
      bool both_nan = want != want && got != got;
      bool equal = minmax ? want == got : want_bits == inout[i];  // MAX(-0, +0) is either
      ASSERT_TRUE(equal || both_nan)
          << Op::predefined(kind).name() << " of 0x" << std::hex << i << " and 0x" << other
          << ": 0x" << inout[i] << ", want 0x" << want_bits;
    }
  }
}

TEST(Op, HalfPrecisionMatchesTheCompilerOnEveryValue) {
  DatatypeRef h = predefined(BasicType::kFloat16, 2, "MPIX_C_FLOAT16");
  for (OpKind kind : {OpKind::kSum, OpKind::kProd, OpKind::kMax, OpKind::kMin}) {
    SCOPED_TRACE(Op::predefined(kind).name());
    check_every_half(kind, [&](const void* in, void* inout, std::int64_t n) {
      ASSERT_TRUE(applied(Op::predefined(kind), in, inout, n, *h));
    });
    check_every_half(kind, portable_kernel(kind, BasicType::kFloat16));
  }
}
#endif

TEST(Op, PredefinedOpsKnowTheirNamesAndCommutativity) {
  EXPECT_STREQ(Op::predefined(OpKind::kSum).name(), "MPI_SUM");
  EXPECT_STREQ(Op::predefined(OpKind::kMaxloc).name(), "MPI_MAXLOC");
  EXPECT_STREQ(Op::predefined(OpKind::kNoOp).name(), "MPI_NO_OP");
  for (OpKind kind : kReductionOps) {
    EXPECT_EQ(Op::predefined(kind).kind(), kind);
    EXPECT_TRUE(Op::predefined(kind).commutative());
    EXPECT_TRUE(Op::predefined(kind).is_predefined());
  }
  EXPECT_FALSE(Op::predefined(OpKind::kReplace).commutative());
  EXPECT_EQ(&Op::predefined(OpKind::kSum), &Op::predefined(OpKind::kSum));
}

TEST(Op, RefusalsSayWhatTheOpTakes) {
  DatatypeRef f = predefined(BasicType::kDouble, 8, "MPI_DOUBLE");
  Status s = Op::predefined(OpKind::kBand).check(*f);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("MPI_BAND is not defined for MPI_DOUBLE"), std::string_view::npos)
      << s.message();
  EXPECT_NE(s.message().find("MPI_BYTE"), std::string_view::npos) << s.message();
  DatatypeRef fi = predefined(BasicType::kInt32, 4, "MPI_INTEGER");
  s = Op::predefined(OpKind::kLor).check(*fi);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Fortran INTEGER"), std::string_view::npos) << s.message();
  EXPECT_TRUE(Op::predefined(OpKind::kBor).check(*fi).ok());
  // No loop to call straight where apply() refuses or does not reduce.
  EXPECT_EQ(Op::predefined(OpKind::kLor).packed_loop(*fi).loop, nullptr);
  EXPECT_NE(Op::predefined(OpKind::kBor).packed_loop(*fi).loop, nullptr);
  EXPECT_EQ(Op::predefined(OpKind::kReplace).packed_loop(*f).loop, nullptr);
  EXPECT_EQ(Op::predefined(OpKind::kNoOp).packed_loop(*f).loop, nullptr);
  auto user =
      Op::user([](const void*, void*, std::int64_t, const Datatype&, void*) {}, nullptr, true);
  EXPECT_EQ(user->packed_loop(*f).loop, nullptr);
}

}  // namespace
}  // namespace gpurun::core
