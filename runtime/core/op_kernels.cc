// The predefined ops' loops, one per (op, basic type), and the tables that choose them.
//
// Each loop is `b[i] = f(a[i], b[i])` over restrict pointers, so GCC vectorises it (this file is
// built with -O3: at -O2 GCC 12 does not version or peel loops for vectorisation). Integer
// arithmetic is done in the unsigned type, so that overflow wraps instead of being undefined.
// The value-and-index pairs are read and written with memcpy at their offsets: one template
// serves both their packed layout (value then index) and their C struct layout (padded).
#include "runtime/core/op_kernels.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

#include "runtime/core/op_half.h"

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
struct Traits<BasicType::kBfloat16> : Is<Family::kFloat, Bfloat16> {};
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

// Built three times, for plain x86-64 and for the AVX2 and AVX-512 levels, and chosen by the
// CPU when the library loads (GCC's target_clones, an ifunc), as Open MPI's op/avx does: on an
// AVX-512 Xeon MPI_Reduce_local of 4096 floats took 0.79 us built for plain x86-64 (SSE2), 0.32
// us with the AVX-512 clone. Not under ThreadSanitizer: the loader runs the ifunc's chooser,
// instrumented, before the sanitizer's run-time is set up, and the program dies before main.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)
#define GPURUN_VECTOR_CLONES \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define GPURUN_VECTOR_CLONES
#endif

template <class F, class T>
GPURUN_VECTOR_CLONES void elementwise(const void* in, void* inout, std::int64_t n) {
  if constexpr (std::is_same_v<T, Half>) {
    const auto* __restrict a = static_cast<const std::uint16_t*>(in);
    auto* __restrict b = static_cast<std::uint16_t*>(inout);
    for (std::int64_t i = 0; i < n; ++i)
      b[i] = float_to_half(F::f(half_to_float(a[i]), half_to_float(b[i])));
  } else if constexpr (std::is_same_v<T, Bfloat16>) {
    const auto* __restrict a = static_cast<const std::uint16_t*>(in);
    auto* __restrict b = static_cast<std::uint16_t*>(inout);
    for (std::int64_t i = 0; i < n; ++i)
      b[i] = float_to_bfloat16(F::f(bfloat16_to_float(a[i]), bfloat16_to_float(b[i])));
  } else {
    const T* __restrict a = static_cast<const T*>(in);
    T* __restrict b = static_cast<T*>(inout);
    for (std::int64_t i = 0; i < n; ++i) b[i] = F::f(a[i], b[i]);
  }
}

// out = a op b, where a reduction would otherwise copy b into out and then run elementwise()
// over it (two passes over out instead of one).
template <class F, class T>
GPURUN_VECTOR_CLONES void elementwise_into(const void* a, const void* b, void* out,
                                           std::int64_t n) {
  const T* __restrict x = static_cast<const T*>(a);
  const T* __restrict y = static_cast<const T*>(b);
  T* __restrict z = static_cast<T*>(out);
  for (std::int64_t i = 0; i < n; ++i) z[i] = F::f(x[i], y[i]);
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
constexpr Kernel pick_packed() {
  using Tr = Traits<B>;
  if constexpr (!allowed(K, Tr::family)) {
    return {};
  } else if constexpr (Tr::family == Family::kPair) {
    using V = typename Tr::Type::Value;
    using I = typename Tr::Type::Index;
    constexpr std::size_t kUnit = sizeof(V) + sizeof(I);
    return {&pair_loc<V, I, sizeof(V), kUnit, K == OpKind::kMaxloc>, kUnit, 1};
  } else {
    using T = typename Tr::Type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, Bfloat16>) {
      return {&elementwise<OpOf<K>, T>, sizeof(T), alignof(T)};
    } else {
      return {&elementwise<OpOf<K>, T>, sizeof(T), alignof(T), &elementwise_into<OpOf<K>, T>};
    }
  }
}

template <OpKind K, BasicType B>
constexpr Kernel pick_struct() {
  using Tr = Traits<B>;
  if constexpr (Tr::family != Family::kPair || !allowed(K, Tr::family)) {
    return {};
  } else {
    using S = typename Tr::Type::Struct;
    using V = typename Tr::Type::Value;
    using I = typename Tr::Type::Index;
    return {&pair_loc<V, I, offsetof(S, index), sizeof(S), K == OpKind::kMaxloc>, sizeof(S),
            alignof(S)};
  }
}

using Row = std::array<Kernel, kBasicCount>;

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
constexpr Kernel kNone{};

// The half-precision loops with hardware conversions, where the CPU has them.
const Kernel& half_hardware(int k) {
  static const std::array<Kernel, kPredefinedOpCount> kernels = [] {
    std::array<Kernel, kPredefinedOpCount> table{};
    for (int op = 0; op < kPredefinedOpCount; ++op) {
      Kernel portable = kPackedKernels[op][static_cast<int>(BasicType::kFloat16)];
      HalfKernel fast = half_hardware_kernel(static_cast<OpKind>(op));
      table[op] = fast != nullptr ? Kernel{fast, portable.unit, portable.alignment} : portable;
    }
    return table;
  }();
  return kernels[k];
}

bool in_range(OpKind kind, BasicType basic) {
  return static_cast<int>(kind) < kPredefinedOpCount && static_cast<int>(basic) < kBasicCount;
}

}  // namespace

const Kernel& packed_kernel(OpKind kind, BasicType basic) {
  if (!in_range(kind, basic)) [[unlikely]]
    return kNone;
  if (basic == BasicType::kFloat16) [[unlikely]]
    return half_hardware(static_cast<int>(kind));
  return kPackedKernels[static_cast<int>(kind)][static_cast<int>(basic)];
}

ReduceKernel portable_kernel(OpKind kind, BasicType basic) {
  if (!in_range(kind, basic)) return nullptr;
  return kPackedKernels[static_cast<int>(kind)][static_cast<int>(basic)].loop;
}

const Kernel& struct_kernel(OpKind kind, BasicType basic) {
  if (!in_range(kind, basic)) return kNone;
  if (kind == OpKind::kMinloc) return kMinlocStruct[static_cast<int>(basic)];
  if (kind == OpKind::kMaxloc) return kMaxlocStruct[static_cast<int>(basic)];
  return kNone;
}

}  // namespace gpurun::core
