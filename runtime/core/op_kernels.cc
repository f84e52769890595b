// The predefined ops' loops, one per (op, basic type), and the tables that choose them.
//
// Each loop is `b[i] = f(a[i], b[i])` over restrict pointers, so GCC vectorises it (this file is
// built with -O3: at -O2 GCC 12 does not version or peel loops for vectorisation). Integer
// arithmetic is done in the unsigned type, so that overflow wraps instead of being undefined.
// The value-and-index pairs are read and written with memcpy at their offsets: one template
// serves both their packed layout (value then index) and their C struct layout (padded).
#include "runtime/core/op_kernels.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

namespace gpurun::core {
namespace {

constexpr int kBasicCount = static_cast<int>(BasicType::kTwoDouble) + 1;

// What a basic type is for the ops (the groups of MPI-4.0 section 6.9.2).
enum class Family : std::uint8_t { kNone, kInteger, kFloat, kComplex, kLogical, kByte, kPair };

template <class R>
struct Complex {
  R re;
  R im;
};

template <class V, class I>
struct PairOf {
  using Value = V;
  using Index = I;
  struct Struct {  // the C layout: struct { V value; I index; }
    V value;
    I index;
  };
};

// IEEE binary16, stored as its bits. The ops convert each operand to float, compute there and
// round once to half precision (round to nearest even): float has more than 2 x 11 + 2 bits of
// significand, so this is the correctly rounded half-precision result. The conversions are
// written out with integer operations, which GCC vectorises, rather than using _Float16, whose
// conversions are library calls without F16C (five times slower) and which clang 14 lacks.
struct Half {
  std::uint16_t bits;
};

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t magnitude = h & 0x7fffu;
  // The half's exponent and significand moved to a float's places, scaled by 2^(127 - 15):
  // exact for normal and subnormal halves; infinities and NaNs take the float's top exponent.
  float scaled = std::bit_cast<float>(magnitude << 13) * 0x1p112f;
  std::uint32_t bits = magnitude >= 0x7c00u ? ((magnitude << 13) | 0x7f800000u)
                                            : std::bit_cast<std::uint32_t>(scaled);
  return std::bit_cast<float>(bits | sign);
}

std::uint16_t float_to_half(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  // Below 2^-14 (half subnormals): adding 0.5 lets the FPU round to a multiple of 2^-24.
  std::uint32_t subnormal = std::bit_cast<std::uint32_t>(std::bit_cast<float>(x) + 0.5f) -
                            std::bit_cast<std::uint32_t>(0.5f);
  // Normal: rebias the exponent (-112) and round the 13 dropped bits to nearest even; a carry
  // out of the significand moves to the exponent, up to infinity.
  std::uint32_t odd = (x >> 13) & 1u;
  std::uint32_t normal = (x + 0xc8000fffu + odd) >> 13;
  std::uint32_t huge = x > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN (quiet) or infinity
  std::uint32_t r = x >= 0x47800000u ? huge : x < 0x38800000u ? subnormal : normal;
  return static_cast<std::uint16_t>(r | sign);
}

template <Family F, class T>
struct Is {
  static constexpr Family family = F;
  using Type = T;
};

// The family and C++ representation of each basic type.
template <BasicType B>
struct Traits : Is<Family::kNone, std::uint8_t> {};
template <>
struct Traits<BasicType::kInt8> : Is<Family::kInteger, std::int8_t> {};
template <>
struct Traits<BasicType::kUint8> : Is<Family::kInteger, std::uint8_t> {};
template <>
struct Traits<BasicType::kInt16> : Is<Family::kInteger, std::int16_t> {};
template <>
struct Traits<BasicType::kUint16> : Is<Family::kInteger, std::uint16_t> {};
template <>
struct Traits<BasicType::kInt32> : Is<Family::kInteger, std::int32_t> {};
template <>
struct Traits<BasicType::kUint32> : Is<Family::kInteger, std::uint32_t> {};
template <>
struct Traits<BasicType::kInt64> : Is<Family::kInteger, std::int64_t> {};
template <>
struct Traits<BasicType::kUint64> : Is<Family::kInteger, std::uint64_t> {};
// MPI_CHAR and MPI_CHARACTER reduce as C char, which is signed on x86-64 Linux.
template <>
struct Traits<BasicType::kChar> : Is<Family::kInteger, signed char> {};
template <>
struct Traits<BasicType::kFloat> : Is<Family::kFloat, float> {};
template <>
struct Traits<BasicType::kDouble> : Is<Family::kFloat, double> {};
template <>
struct Traits<BasicType::kLongDouble> : Is<Family::kFloat, long double> {};
template <>
struct Traits<BasicType::kFloat16> : Is<Family::kFloat, Half> {};
template <>
struct Traits<BasicType::kFloat128> : Is<Family::kFloat, __float128> {};
template <>
struct Traits<BasicType::kByte> : Is<Family::kByte, std::uint8_t> {};
template <>
struct Traits<BasicType::kBool> : Is<Family::kLogical, std::uint8_t> {};
template <>
struct Traits<BasicType::kLogical> : Is<Family::kLogical, std::int32_t> {};
template <>
struct Traits<BasicType::kFloatComplex> : Is<Family::kComplex, Complex<float>> {};
template <>
struct Traits<BasicType::kDoubleComplex> : Is<Family::kComplex, Complex<double>> {};
template <>
struct Traits<BasicType::kLongDoubleComplex> : Is<Family::kComplex, Complex<long double>> {};
template <>
struct Traits<BasicType::kFloat128Complex> : Is<Family::kComplex, Complex<__float128>> {};
template <>
struct Traits<BasicType::kFloatInt> : Is<Family::kPair, PairOf<float, std::int32_t>> {};
template <>
struct Traits<BasicType::kDoubleInt> : Is<Family::kPair, PairOf<double, std::int32_t>> {};
template <>
struct Traits<BasicType::kLongInt> : Is<Family::kPair, PairOf<std::int64_t, std::int32_t>> {};
template <>
struct Traits<BasicType::kShortInt> : Is<Family::kPair, PairOf<std::int16_t, std::int32_t>> {};
template <>
struct Traits<BasicType::kLongDoubleInt> : Is<Family::kPair, PairOf<long double, std::int32_t>> {};
template <>
struct Traits<BasicType::kTwoInt> : Is<Family::kPair, PairOf<std::int32_t, std::int32_t>> {};
template <>
struct Traits<BasicType::kTwoFloat> : Is<Family::kPair, PairOf<float, float>> {};
template <>
struct Traits<BasicType::kTwoDouble> : Is<Family::kPair, PairOf<double, double>> {};

constexpr bool allowed(OpKind kind, Family f) {
  switch (kind) {
    case OpKind::kMax:
    case OpKind::kMin:
      return f == Family::kInteger || f == Family::kFloat;
    case OpKind::kSum:
    case OpKind::kProd:
      return f == Family::kInteger || f == Family::kFloat || f == Family::kComplex;
    case OpKind::kLand:
    case OpKind::kLor:
    case OpKind::kLxor:
      return f == Family::kInteger || f == Family::kLogical;
    case OpKind::kBand:
    case OpKind::kBor:
    case OpKind::kBxor:
      return f == Family::kInteger || f == Family::kByte;
    case OpKind::kMinloc:
    case OpKind::kMaxloc:
      return f == Family::kPair;
    default:
      return false;
  }
}

// Integer arithmetic in an unsigned type at least as wide as unsigned int (narrower types would
// be promoted to signed int, whose overflow is undefined).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
constexpr bool kIsComplex = false;
template <class R>
constexpr bool kIsComplex<Complex<R>> = true;

// The ops, as f(a, b) with a from `in` and b from `inout`.
template <OpKind K>
struct OpOf;
template <>
struct OpOf<OpKind::kMax> {
  template <class T>
  static T f(T a, T b) {
    return a > b ? a : b;
  }
};
template <>
struct OpOf<OpKind::kMin> {
  template <class T>
  static T f(T a, T b) {
    return a < b ? a : b;
  }
};
template <>
struct OpOf<OpKind::kSum> {
  template <class T>
  static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
    } else if constexpr (kIsComplex<T>) {
      return {a.re + b.re, a.im + b.im};
    } else {
      return a + b;
    }
  }
};
template <>
struct OpOf<OpKind::kProd> {
  template <class T>
  static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    } else if constexpr (kIsComplex<T>) {
      // The textbook product, without C's Annex G recovery of infinities from NaN parts.
      return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    } else {
      return a * b;
    }
  }
};
// Logical ops compare with zero with non-short-circuit operators (no branch per element).
template <>
struct OpOf<OpKind::kLand> {
  template <class T>
  static T f(T a, T b) {
    return static_cast<T>((a != 0) & (b != 0));
  }
};
template <>
struct OpOf<OpKind::kLor> {
  template <class T>
  static T f(T a, T b) {
    return static_cast<T>((a != 0) | (b != 0));
  }
};
template <>
struct OpOf<OpKind::kLxor> {
  template <class T>
  static T f(T a, T b) {
    return static_cast<T>((a != 0) != (b != 0));
  }
};
template <>
struct OpOf<OpKind::kBand> {
  template <class T>
  static T f(T a, T b) {
    return static_cast<T>(a & b);
  }
};
template <>
struct OpOf<OpKind::kBor> {
  template <class T>
  static T f(T a, T b) {
    return static_cast<T>(a | b);
  }
};
template <>
struct OpOf<OpKind::kBxor> {
  template <class T>
  static T f(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};

template <class F, class T>
void elementwise(const void* in, void* inout, std::int64_t n) {
  if constexpr (std::is_same_v<T, Half>) {
    const auto* __restrict a = static_cast<const std::uint16_t*>(in);
    auto* __restrict b = static_cast<std::uint16_t*>(inout);
    for (std::int64_t i = 0; i < n; ++i)
      b[i] = float_to_half(F::f(half_to_float(a[i]), half_to_float(b[i])));
  } else {
    const T* __restrict a = static_cast<const T*>(in);
    T* __restrict b = static_cast<T*>(inout);
    for (std::int64_t i = 0; i < n; ++i) b[i] = F::f(a[i], b[i]);
  }
}

// MINLOC/MAXLOC: the better value wins with its index; equal values keep the smaller index.
template <class V, class I, std::size_t kIndexAt, std::size_t kStride, bool kMax>
void pair_loc(const void* in, void* inout, std::int64_t n) {
  const auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  for (std::int64_t k = 0; k < n; ++k, a += kStride, b += kStride) {
    V av, bv;
    I ai, bi;
    std::memcpy(&av, a, sizeof(V));
    std::memcpy(&bv, b, sizeof(V));
    std::memcpy(&ai, a + kIndexAt, sizeof(I));
    std::memcpy(&bi, b + kIndexAt, sizeof(I));
    if (kMax ? av > bv : av < bv) {
      std::memcpy(b, a, sizeof(V));
      std::memcpy(b + kIndexAt, a + kIndexAt, sizeof(I));
    } else if (av == bv && ai < bi) {
      std::memcpy(b + kIndexAt, a + kIndexAt, sizeof(I));
    }
  }
}

template <OpKind K, BasicType B>
constexpr ReduceKernel pick_packed() {
  using Tr = Traits<B>;
  if constexpr (!allowed(K, Tr::family)) {
    return nullptr;
  } else if constexpr (Tr::family == Family::kPair) {
    using V = typename Tr::Type::Value;
    using I = typename Tr::Type::Index;
    return &pair_loc<V, I, sizeof(V), sizeof(V) + sizeof(I), K == OpKind::kMaxloc>;
  } else {
    return &elementwise<OpOf<K>, typename Tr::Type>;
  }
}

template <OpKind K, BasicType B>
constexpr ReduceKernel pick_struct() {
  using Tr = Traits<B>;
  if constexpr (Tr::family != Family::kPair || !allowed(K, Tr::family)) {
    return nullptr;
  } else {
    using S = typename Tr::Type::Struct;
    using V = typename Tr::Type::Value;
    using I = typename Tr::Type::Index;
    return &pair_loc<V, I, offsetof(S, index), sizeof(S), K == OpKind::kMaxloc>;
  }
}

using Row = std::array<ReduceKernel, kBasicCount>;

template <OpKind K, std::size_t... Bs>
constexpr Row packed_row(std::index_sequence<Bs...>) {
  return {pick_packed<K, static_cast<BasicType>(Bs)>()...};
}
template <OpKind K, std::size_t... Bs>
constexpr Row struct_row(std::index_sequence<Bs...>) {
  return {pick_struct<K, static_cast<BasicType>(Bs)>()...};
}
template <std::size_t... Ks>
constexpr std::array<Row, kPredefinedOpCount> packed_table(std::index_sequence<Ks...>) {
  return {packed_row<static_cast<OpKind>(Ks)>(std::make_index_sequence<kBasicCount>())...};
}

constexpr std::array<Row, kPredefinedOpCount> kPackedKernels =
    packed_table(std::make_index_sequence<kPredefinedOpCount>());
constexpr Row kMinlocStruct = struct_row<OpKind::kMinloc>(std::make_index_sequence<kBasicCount>());
constexpr Row kMaxlocStruct = struct_row<OpKind::kMaxloc>(std::make_index_sequence<kBasicCount>());

struct Shape {
  std::int64_t packed_alignment = 1;
  std::int64_t struct_alignment = 0;
  std::int64_t struct_size = 0;
};

template <BasicType B>
constexpr Shape shape_of() {
  using Tr = Traits<B>;
  if constexpr (Tr::family == Family::kPair) {
    using S = typename Tr::Type::Struct;
    return {1, alignof(S), sizeof(S)};
  } else {
    return {alignof(typename Tr::Type), 0, 0};
  }
}
template <std::size_t... Bs>
constexpr std::array<Shape, kBasicCount> shape_table(std::index_sequence<Bs...>) {
  return {shape_of<static_cast<BasicType>(Bs)>()...};
}
constexpr std::array<Shape, kBasicCount> kShapes =
    shape_table(std::make_index_sequence<kBasicCount>());

int index_of(BasicType basic) { return static_cast<int>(basic); }

}  // namespace

ReduceKernel packed_kernel(OpKind kind, BasicType basic) {
  auto k = static_cast<int>(kind);
  if (k >= kPredefinedOpCount || index_of(basic) >= kBasicCount) return nullptr;
  return kPackedKernels[k][index_of(basic)];
}

ReduceKernel struct_kernel(OpKind kind, BasicType basic) {
  if (index_of(basic) >= kBasicCount) return nullptr;
  if (kind == OpKind::kMinloc) return kMinlocStruct[index_of(basic)];
  if (kind == OpKind::kMaxloc) return kMaxlocStruct[index_of(basic)];
  return nullptr;
}

std::int64_t packed_alignment(BasicType basic) {
  return index_of(basic) < kBasicCount ? kShapes[index_of(basic)].packed_alignment : 1;
}

std::int64_t struct_alignment(BasicType basic) {
  return index_of(basic) < kBasicCount ? kShapes[index_of(basic)].struct_alignment : 0;
}

std::int64_t struct_size(BasicType basic) {
  return index_of(basic) < kBasicCount ? kShapes[index_of(basic)].struct_size : 0;
}

}  // namespace gpurun::core
