// CMA (cross-memory attach): copies between this process's memory and another process's on
// the same host with process_vm_readv/writev, one copy by the kernel, no shared buffer. The
// other process must let this one read it (same user; Yama's ptrace scope may forbid it: the
// shm transport checks each peer when it connects, Endpoint::cma_pid).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/base/status.h"

namespace gpurun::transport::shm {

// Copies `length` bytes between `local` and address `remote` of process `pid`: from the other
// process into `local` (read), or from `local` into it (write).
Status cma_copy(int pid, bool write, std::byte* local, std::uint64_t remote, std::size_t length);

// The first of two halves of `length` bytes that two processes copy at once, in whole pages
// (page-aligned halves pin fewer pages); at most `length`.
inline std::uint64_t cma_half(std::uint64_t length) {
  std::uint64_t half = (length / 2 + 4095) & ~std::uint64_t{4095};
  return half < length ? half : length;
}

inline Status cma_read(int pid, void* local, std::uint64_t remote, std::size_t length) {
  return cma_copy(pid, false, static_cast<std::byte*>(local), remote, length);
}
inline Status cma_write(int pid, const void* local, std::uint64_t remote, std::size_t length) {
  return cma_copy(pid, true, static_cast<std::byte*>(const_cast<void*>(local)), remote, length);
}

}  // namespace gpurun::transport::shm
