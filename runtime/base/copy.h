// Byte copies tuned for the message hot path: tiny copies inline, where a library call would
// cost more than the copy itself.
#pragma once

#include <cstddef>
#include <cstring>

namespace gpurun {

inline void copy_bytes(void* dst_v, const void* src_v, std::size_t length) {
  auto* dst = static_cast<std::byte*>(dst_v);
  const auto* src = static_cast<const std::byte*>(src_v);
  if (length <= 16) {
    if (length >= 8) {
      std::memcpy(dst, src, 8);
      std::memcpy(dst + length - 8, src + length - 8, 8);
    } else if (length >= 4) {
      std::memcpy(dst, src, 4);
      std::memcpy(dst + length - 4, src + length - 4, 4);
    } else {
      for (std::size_t i = 0; i < length; ++i) dst[i] = src[i];
    }
    return;
  }
  std::memcpy(dst, src, length);
}

}  // namespace gpurun
