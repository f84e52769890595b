// IEEE binary16 (MPIX_C_FLOAT16) for the reduction loops, stored as its bits. The ops convert
// each operand to float, compute there and round once to half precision (to nearest even):
// float carries more than 2 x 11 + 2 bits of significand, so that is the correctly rounded
// half-precision result. The conversions are written with integer operations rather than with
// _Float16, whose conversions are library calls without F16C (five times slower) and which
// clang 14 lacks on x86-64; CPUs with F16C get a loop of hardware conversions instead.
//
// Internal to runtime/core.
#pragma once

#include <bit>
#include <cstdint>

#include "runtime/core/op.h"

namespace gpurun::core {

struct Half {
  std::uint16_t bits;
};

inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t magnitude = h & 0x7fffu;
  // The half's exponent and significand moved to a float's places, scaled by 2^(127 - 15):
  // exact for normal and subnormal halves; infinities and NaNs take the float's top exponent.
  float scaled = std::bit_cast<float>(magnitude << 13) * 0x1p112f;
  std::uint32_t bits = magnitude >= 0x7c00u ? ((magnitude << 13) | 0x7f800000u)
                                            : std::bit_cast<std::uint32_t>(scaled);
  return std::bit_cast<float>(bits | sign);
}

inline std::uint16_t float_to_half(float f) {
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

// The loop of `kind` (MAX, MIN, SUM, PROD) on halves with the CPU's conversion instructions
// (x86-64 F16C and AVX), or nullptr when the CPU lacks them or for other ops. Signature of
// ReduceKernel (op_kernels.h).
using HalfKernel = void (*)(const void* in, void* inout, std::int64_t n);
HalfKernel half_hardware_kernel(OpKind kind);

}  // namespace gpurun::core
