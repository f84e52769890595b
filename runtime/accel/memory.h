// Memory kinds (DESIGN.md decision 4): every buffer that crosses a layer carries its kind, so
// each layer knows whether a pointer is host, device or managed memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpurun::accel {

enum class MemoryKind : std::uint8_t {
  kHost,          // pageable or pinned host memory
  kCudaDevice,    // device memory of one GPU
  kCudaManaged,   // CUDA managed (unified) memory
};

struct MemoryInfo {
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;  // the owning GPU for device memory, -1 otherwise
};

inline bool is_host(MemoryKind kind) { return kind == MemoryKind::kHost; }

}  // namespace gpurun::accel
