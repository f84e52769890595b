#include "runtime/core/datatype_external.h"

#include <algorithm>
#include <cstring>

namespace gpurun::core {
namespace {

// x87 80-bit extended (little-endian, in 16 bytes) <-> IEEE binary128 (little-endian). Both have
// a 15-bit exponent with bias 16383; x87 keeps the integer bit of its 64-bit mantissa
// explicit, binary128 has 112 fraction bits. Going back drops the 49 fraction bits x87 lacks.
void extended_to_quad(std::byte* p) {
  std::uint64_t mantissa;
  std::uint16_t sign_exponent;
  std::memcpy(&mantissa, p, 8);
  std::memcpy(&sign_exponent, p + 8, 2);
  std::uint64_t fraction = mantissa & ~(std::uint64_t{1} << 63);  // 63 bits
  std::uint64_t hi = (std::uint64_t{sign_exponent} << 48) | (fraction >> 15);
  std::uint64_t lo = fraction << 49;
  std::memcpy(p, &lo, 8);
  std::memcpy(p + 8, &hi, 8);
}

void quad_to_extended(std::byte* p) {
  std::uint64_t lo, hi;
  std::memcpy(&lo, p, 8);
  std::memcpy(&hi, p + 8, 8);
  auto sign_exponent = static_cast<std::uint16_t>(hi >> 48);
  std::uint64_t fraction = ((hi & 0xffffffffffffu) << 15) | (lo >> 49);
  std::uint64_t integer_bit = (sign_exponent & 0x7fff) != 0 ? std::uint64_t{1} << 63 : 0;
  std::uint64_t mantissa = integer_bit | fraction;
  std::memset(p, 0, 16);
  std::memcpy(p, &mantissa, 8);
  std::memcpy(p + 8, &sign_exponent, 2);
}

// One element: `from` bytes at src become `to` bytes at dst (src may be dst when they are
// equal). Values are little-endian natively, big-endian in external32.
struct Element {
  BasicType basic;
  std::int64_t native;
  std::int64_t external;
};

void to_external(const Element& e, const std::byte* src, std::byte* dst) {
  std::byte v[32];
  std::memcpy(v, src, static_cast<std::size_t>(e.native));
  if (e.basic == BasicType::kLongDouble || e.basic == BasicType::kLongDoubleComplex) {
    for (std::int64_t at = 0; at < e.native; at += 16) {
      extended_to_quad(v + at);
      std::reverse(v + at, v + at + 16);
    }
  } else if (e.basic == BasicType::kFloatComplex || e.basic == BasicType::kDoubleComplex ||
             e.basic == BasicType::kFloat128Complex) {
    std::reverse(v, v + e.native / 2);
    std::reverse(v + e.native / 2, v + e.native);
  } else {
    std::reverse(v, v + e.external);  // a narrowed integer keeps its low bytes
  }
  std::memcpy(dst, v, static_cast<std::size_t>(e.external));
}

void from_external(const Element& e, const std::byte* src, std::byte* dst) {
  std::byte v[32];
  std::memcpy(v, src, static_cast<std::size_t>(e.external));
  if (e.basic == BasicType::kLongDouble || e.basic == BasicType::kLongDoubleComplex) {
    for (std::int64_t at = 0; at < e.native; at += 16) {
      std::reverse(v + at, v + at + 16);
      quad_to_extended(v + at);
    }
  } else if (e.basic == BasicType::kFloatComplex || e.basic == BasicType::kDoubleComplex ||
             e.basic == BasicType::kFloat128Complex) {
    std::reverse(v, v + e.native / 2);
    std::reverse(v + e.native / 2, v + e.native);
  } else {
    std::reverse(v, v + e.external);
    bool negative =
        e.basic == BasicType::kInt64 && (v[e.external - 1] & std::byte{0x80}) != std::byte{0};
    std::memset(v + e.external, negative ? 0xff : 0,
                static_cast<std::size_t>(e.native - e.external));
  }
  std::memcpy(dst, v, static_cast<std::size_t>(e.native));
}

// A run of plain scalars whose size does not change: byte swaps in a loop.
template <class U>
void swap_run(const std::byte* src, std::byte* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i, src += sizeof(U), dst += sizeof(U)) {
    U v;
    std::memcpy(&v, src, sizeof v);
    if constexpr (sizeof(U) == 2) v = __builtin_bswap16(v);
    if constexpr (sizeof(U) == 4) v = __builtin_bswap32(v);
    if constexpr (sizeof(U) == 8) v = __builtin_bswap64(v);
    std::memcpy(dst, &v, sizeof v);
  }
}

bool swap_runs(const Element& e, const std::byte* src, std::byte* dst, std::int64_t n) {
  if (e.native != e.external) return false;
  switch (e.basic) {
    case BasicType::kLongDouble:
    case BasicType::kLongDoubleComplex:
    case BasicType::kFloatComplex:
    case BasicType::kDoubleComplex:
    case BasicType::kFloat128Complex:
      return false;
    default:
      break;
  }
  switch (e.native) {
    case 2:
      swap_run<std::uint16_t>(src, dst, n);
      return true;
    case 4:
      swap_run<std::uint32_t>(src, dst, n);
      return true;
    case 8:
      swap_run<std::uint64_t>(src, dst, n);
      return true;
    default:
      return false;
  }
}

struct Cursor {
  const std::byte* src;
  std::byte* dst;
  bool to_external;
};

// Converts `copies` elements of `type`, moving the cursor past them.
void convert(const Datatype& type, std::int64_t copies, Cursor& c) {
  if (type.parts().empty()) {  // a basic element (or a marker without data)
    if (type.size() == 0) return;
    Element e{type.basic(), type.size(), type.external32_size()};
    std::int64_t in = c.to_external ? e.native : e.external;
    std::int64_t out = c.to_external ? e.external : e.native;
    if (swap_runs(e, c.src, c.dst, copies)) {
      c.src += copies * in;
      c.dst += copies * out;
      return;
    }
    for (std::int64_t i = 0; i < copies; ++i, c.src += in, c.dst += out) {
      if (e.native == 1) {
        *c.dst = *c.src;
      } else if (c.to_external) {
        to_external(e, c.src, c.dst);
      } else {
        from_external(e, c.src, c.dst);
      }
    }
    return;
  }
  for (std::int64_t i = 0; i < copies; ++i)
    for (const Part& part : type.parts()) convert(*type.children()[part.child], part.copies(), c);
}

}  // namespace

void to_external32(const Datatype& type, std::int64_t count, const std::byte* native,
                   std::byte* external) {
  Cursor c{native, external, true};
  convert(type, count, c);
}

void from_external32(const Datatype& type, std::int64_t count, const std::byte* external,
                     std::byte* native) {
  Cursor c{external, native, false};
  convert(type, count, c);
}

}  // namespace gpurun::core
