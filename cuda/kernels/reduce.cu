// Reduction kernels: inout[i] = in[i] op inout[i] on device memory, for every predefined op on
// every type the standard defines it for, with the host loops' semantics (runtime/core
// op_kernels.cc), so a reduction gives the same bits on the device as on the host: integer
// arithmetic wraps (done unsigned), logical ops write 1 or 0, MAX and MIN are `a > b ? a : b`
// (NaN handling included), half and bfloat16 compute in float and round once to nearest even,
// MINLOC and MAXLOC keep the smaller index on ties. This file is compiled with --fmad=false:
// contracting the complex product into fused multiply-adds would round differently from the
// host.
//
// One templated grid-stride kernel per (op, type), chosen from a table built at compile time;
// a launch costs one table lookup. Each thread handles elements blockDim * gridDim apart, so a
// warp's loads and stores are coalesced.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>
#include <utility>

#include "cuda/kernels/launch.h"

namespace gpurun::cuda::kernels {
namespace {

constexpr int kThreads = 256;
// Enough blocks to fill the largest GPUs several times over; beyond, the grid-stride loop
// takes the rest.
constexpr long long kMaxBlocks = 8192;

enum class Family { kInteger, kFloat, kNarrow, kComplex, kLogical, kByte, kPair };

template <class R>
struct Complex {
  R re;
  R im;
};

template <class V, class I>
struct PairOf {
  using Value = V;
  using Index = I;
};

template <Family F, class T>
struct Is {
  static constexpr Family family = F;
  using Type = T;
};

template <DeviceType T>
struct Traits;
template <>
struct Traits<DeviceType::kInt8> : Is<Family::kInteger, signed char> {};
template <>
struct Traits<DeviceType::kUint8> : Is<Family::kInteger, unsigned char> {};
template <>
struct Traits<DeviceType::kInt16> : Is<Family::kInteger, short> {};
template <>
struct Traits<DeviceType::kUint16> : Is<Family::kInteger, unsigned short> {};
template <>
struct Traits<DeviceType::kInt32> : Is<Family::kInteger, int> {};
template <>
struct Traits<DeviceType::kUint32> : Is<Family::kInteger, unsigned int> {};
template <>
struct Traits<DeviceType::kInt64> : Is<Family::kInteger, long long> {};
template <>
struct Traits<DeviceType::kUint64> : Is<Family::kInteger, unsigned long long> {};
template <>
struct Traits<DeviceType::kFloat> : Is<Family::kFloat, float> {};
template <>
struct Traits<DeviceType::kDouble> : Is<Family::kFloat, double> {};
template <>
struct Traits<DeviceType::kHalf> : Is<Family::kNarrow, __half> {};
template <>
struct Traits<DeviceType::kBfloat16> : Is<Family::kNarrow, __nv_bfloat16> {};
template <>
struct Traits<DeviceType::kFloatComplex> : Is<Family::kComplex, Complex<float>> {};
template <>
struct Traits<DeviceType::kDoubleComplex> : Is<Family::kComplex, Complex<double>> {};
template <>
struct Traits<DeviceType::kBool> : Is<Family::kLogical, unsigned char> {};
template <>
struct Traits<DeviceType::kLogical32> : Is<Family::kLogical, int> {};
template <>
struct Traits<DeviceType::kByte> : Is<Family::kByte, unsigned char> {};
template <>
struct Traits<DeviceType::kFloatInt> : Is<Family::kPair, PairOf<float, int>> {};
template <>
struct Traits<DeviceType::kDoubleInt> : Is<Family::kPair, PairOf<double, int>> {};
template <>
struct Traits<DeviceType::kLongInt> : Is<Family::kPair, PairOf<long long, int>> {};
template <>
struct Traits<DeviceType::kShortInt> : Is<Family::kPair, PairOf<short, int>> {};
template <>
struct Traits<DeviceType::kTwoInt> : Is<Family::kPair, PairOf<int, int>> {};
template <>
struct Traits<DeviceType::kTwoFloat> : Is<Family::kPair, PairOf<float, float>> {};
template <>
struct Traits<DeviceType::kTwoDouble> : Is<Family::kPair, PairOf<double, double>> {};

// MPI-4.0 section 6.9.2, as runtime/core/op_kernels.cc reads it.
constexpr bool allowed(DeviceOp op, Family f) {
  switch (op) {
    case DeviceOp::kMax:
    case DeviceOp::kMin:
      return f == Family::kInteger || f == Family::kFloat || f == Family::kNarrow;
    case DeviceOp::kSum:
    case DeviceOp::kProd:
      return f == Family::kInteger || f == Family::kFloat || f == Family::kNarrow ||
             f == Family::kComplex;
    case DeviceOp::kLand:
    case DeviceOp::kLor:
    case DeviceOp::kLxor:
      return f == Family::kInteger || f == Family::kLogical;
    case DeviceOp::kBand:
    case DeviceOp::kBor:
    case DeviceOp::kBxor:
      return f == Family::kInteger || f == Family::kByte;
    case DeviceOp::kMinloc:
    case DeviceOp::kMaxloc:
      return f == Family::kPair;
    default:
      return false;
  }
}

// Integer arithmetic in an unsigned type at least as wide as unsigned int.
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
constexpr bool kIsComplex = false;
template <class R>
constexpr bool kIsComplex<Complex<R>> = true;

template <DeviceOp K>
struct OpOf;
template <>
struct OpOf<DeviceOp::kMax> {
  template <class T>
  __device__ static T f(T a, T b) {
    return a > b ? a : b;
  }
};
template <>
struct OpOf<DeviceOp::kMin> {
  template <class T>
  __device__ static T f(T a, T b) {
    return a < b ? a : b;
  }
};
template <>
struct OpOf<DeviceOp::kSum> {
  template <class T>
  __device__ static T f(T a, T b) {
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
struct OpOf<DeviceOp::kProd> {
  template <class T>
  __device__ static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    } else if constexpr (kIsComplex<T>) {
      return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    } else {
      return a * b;
    }
  }
};
template <>
struct OpOf<DeviceOp::kLand> {
  template <class T>
  __device__ static T f(T a, T b) {
    return static_cast<T>((a != 0) & (b != 0));
  }
};
template <>
struct OpOf<DeviceOp::kLor> {
  template <class T>
  __device__ static T f(T a, T b) {
    return static_cast<T>((a != 0) | (b != 0));
  }
};
template <>
struct OpOf<DeviceOp::kLxor> {
  template <class T>
  __device__ static T f(T a, T b) {
    return static_cast<T>((a != 0) != (b != 0));
  }
};
template <>
struct OpOf<DeviceOp::kBand> {
  template <class T>
  __device__ static T f(T a, T b) {
    return static_cast<T>(a & b);
  }
};
template <>
struct OpOf<DeviceOp::kBor> {
  template <class T>
  __device__ static T f(T a, T b) {
    return static_cast<T>(a | b);
  }
};
template <>
struct OpOf<DeviceOp::kBxor> {
  template <class T>
  __device__ static T f(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};

__device__ inline float widen(__half h) { return __half2float(h); }
__device__ inline float widen(__nv_bfloat16 h) { return __bfloat162float(h); }
template <class H>
__device__ inline H narrow(float f);
template <>
__device__ inline __half narrow<__half>(float f) {
  return __float2half_rn(f);
}
template <>
__device__ inline __nv_bfloat16 narrow<__nv_bfloat16>(float f) {
  return __float2bfloat16_rn(f);
}

__device__ inline long long first_index() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline long long grid_stride() {
  return static_cast<long long>(gridDim.x) * blockDim.x;
}

template <class F, class T>
__global__ void reduce_elements(const T* __restrict__ in, T* __restrict__ inout, long long n) {
  for (long long i = first_index(); i < n; i += grid_stride()) inout[i] = F::f(in[i], inout[i]);
}

// Half and bfloat16: widen both operands, combine in float, round once.
template <class F, class H>
__global__ void reduce_narrow(const H* __restrict__ in, H* __restrict__ inout, long long n) {
  for (long long i = first_index(); i < n; i += grid_stride())
    inout[i] = narrow<H>(F::f(widen(in[i]), widen(inout[i])));
}

// MINLOC / MAXLOC on pairs `stride` bytes apart, the index `index_at` bytes into each; read
// byte-wise, since the packed layout leaves values unaligned.
template <class V, class I, bool kMax>
__global__ void reduce_pairs(const unsigned char* __restrict__ in,
                             unsigned char* __restrict__ inout, long long n, long long stride,
                             long long index_at) {
  for (long long i = first_index(); i < n; i += grid_stride()) {
    const unsigned char* a = in + i * stride;
    unsigned char* b = inout + i * stride;
    V av, bv;
    I ai, bi;
    memcpy(&av, a, sizeof(V));
    memcpy(&bv, b, sizeof(V));
    memcpy(&ai, a + index_at, sizeof(I));
    memcpy(&bi, b + index_at, sizeof(I));
    if (kMax ? av > bv : av < bv) {
      memcpy(b, &av, sizeof(V));
      memcpy(b + index_at, &ai, sizeof(I));
    } else if (av == bv && ai < bi) {
      memcpy(b + index_at, &ai, sizeof(I));
    }
  }
}

unsigned blocks_for(long long n) {
  long long blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

using Launcher = int (*)(const ReduceLaunch&);

template <DeviceOp K, DeviceType D>
int launch_one(const ReduceLaunch& r) {
  using Tr = Traits<D>;
  using T = typename Tr::Type;
  const unsigned blocks = blocks_for(r.count);
  if constexpr (Tr::family == Family::kPair) {
    using V = typename T::Value;
    using I = typename T::Index;
    long long stride = r.stride != 0 ? r.stride : static_cast<long long>(sizeof(V) + sizeof(I));
    long long index_at = r.index_at != 0 ? r.index_at : static_cast<long long>(sizeof(V));
    reduce_pairs<V, I, K == DeviceOp::kMaxloc><<<blocks, kThreads, 0, r.stream>>>(
        static_cast<const unsigned char*>(r.in), static_cast<unsigned char*>(r.inout), r.count,
        stride, index_at);
  } else if constexpr (Tr::family == Family::kNarrow) {
    reduce_narrow<OpOf<K>, T><<<blocks, kThreads, 0, r.stream>>>(
        static_cast<const T*>(r.in), static_cast<T*>(r.inout), r.count);
  } else {
    reduce_elements<OpOf<K>, T><<<blocks, kThreads, 0, r.stream>>>(
        static_cast<const T*>(r.in), static_cast<T*>(r.inout), r.count);
  }
  return static_cast<int>(cudaGetLastError());
}

template <DeviceOp K, DeviceType D>
constexpr Launcher pick() {
  if constexpr (allowed(K, Traits<D>::family)) {
    return &launch_one<K, D>;
  } else {
    return nullptr;
  }
}

constexpr int kOps = static_cast<int>(DeviceOp::kCount);
constexpr int kTypes = static_cast<int>(DeviceType::kCount);

struct Row {
  Launcher launch[kTypes];
};
struct Table {
  Row rows[kOps];
};

template <DeviceOp K, std::size_t... Ts>
constexpr Row make_row(std::index_sequence<Ts...>) {
  return Row{{pick<K, static_cast<DeviceType>(Ts)>()...}};
}
template <std::size_t... Ks>
constexpr Table make_table(std::index_sequence<Ks...>) {
  return Table{{make_row<static_cast<DeviceOp>(Ks)>(std::make_index_sequence<kTypes>())...}};
}

constexpr Table kTable = make_table(std::make_index_sequence<kOps>());

template <DeviceType D>
constexpr int size_of() {
  using T = typename Traits<D>::Type;
  if constexpr (Traits<D>::family == Family::kPair) {
    return static_cast<int>(sizeof(typename T::Value) + sizeof(typename T::Index));
  } else {
    return static_cast<int>(sizeof(T));
  }
}

struct Sizes {
  int size[kTypes];
};
template <std::size_t... Ts>
constexpr Sizes make_sizes(std::index_sequence<Ts...>) {
  return Sizes{{size_of<static_cast<DeviceType>(Ts)>()...}};
}
constexpr Sizes kSizes = make_sizes(std::make_index_sequence<kTypes>());

Launcher find(DeviceOp op, DeviceType type) {
  auto o = static_cast<int>(op);
  auto t = static_cast<int>(type);
  if (o < 0 || o >= kOps || t < 0 || t >= kTypes) return nullptr;
  return kTable.rows[o].launch[t];
}

}  // namespace

int launch_reduce(const ReduceLaunch& launch) {
  Launcher fn = find(launch.op, launch.type);
  if (fn == nullptr) return -1;
  if (launch.count <= 0) return 0;
  return fn(launch);
}

bool reduce_available(DeviceOp op, DeviceType type) { return find(op, type) != nullptr; }

int type_size(DeviceType type) {
  auto t = static_cast<int>(type);
  return t >= 0 && t < kTypes ? kSizes.size[t] : 0;
}

const char* error_name(int error) { return cudaGetErrorName(static_cast<cudaError_t>(error)); }
const char* error_string(int error) {
  return cudaGetErrorString(static_cast<cudaError_t>(error));
}

}  // namespace gpurun::cuda::kernels
