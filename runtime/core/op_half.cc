// Half-precision loops with hardware conversions: eight halves at a time widened to floats
// (vcvtph2ps), combined, and narrowed with round to nearest even (vcvtps2ph); the tail goes
// through the integer conversions. Chosen once, at the first call, from what the CPU offers.
#include "runtime/core/op_half.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace gpurun::core {
namespace {

#if defined(__x86_64__)

template <OpKind K>
float combine(float a, float b) {
  if constexpr (K == OpKind::kMax) return a > b ? a : b;
  if constexpr (K == OpKind::kMin) return a < b ? a : b;
  if constexpr (K == OpKind::kSum) return a + b;
  return a * b;
}

// MAXPS and MINPS return their first operand exactly when `a > b` (`a < b`), as combine does.
template <OpKind K>
__attribute__((target("avx,f16c"))) __m256 combine8(__m256 a, __m256 b) {
  if constexpr (K == OpKind::kMax) return _mm256_max_ps(a, b);
  if constexpr (K == OpKind::kMin) return _mm256_min_ps(a, b);
  if constexpr (K == OpKind::kSum) return _mm256_add_ps(a, b);
  return _mm256_mul_ps(a, b);
}

template <OpKind K>
__attribute__((target("avx,f16c"))) void half_f16c(const void* in, void* inout, std::int64_t n) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    __m128i r = _mm256_cvtps_ph(combine8<K>(x, y), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(b + i), r);
  }
  for (; i < n; ++i) b[i] = float_to_half(combine<K>(half_to_float(a[i]), half_to_float(b[i])));
}

// F16C and AVX from CPUID leaf 1, and the OS saving AVX state (XGETBV); read directly, since
// __builtin_cpu_supports("f16c") is unknown to clang 14.
bool cpu_has_f16c() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    const unsigned kWanted = (1u << 27) | (1u << 28) | (1u << 29);  // OSXSAVE, AVX, F16C
    if ((ecx & kWanted) != kWanted) return false;
    unsigned lo = 0, hi = 0;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6u) == 6u;  // XMM and YMM state enabled
  }();
  return has;
}

#endif

}  // namespace

HalfKernel half_hardware_kernel(OpKind kind) {
#if defined(__x86_64__)
  if (!cpu_has_f16c()) return nullptr;
  switch (kind) {
    case OpKind::kMax:
      return &half_f16c<OpKind::kMax>;
    case OpKind::kMin:
      return &half_f16c<OpKind::kMin>;
    case OpKind::kSum:
      return &half_f16c<OpKind::kSum>;
    case OpKind::kProd:
      return &half_f16c<OpKind::kProd>;
    default:
      return nullptr;
  }
#else
  (void)kind;
  return nullptr;
#endif
}

}  // namespace gpurun::core
