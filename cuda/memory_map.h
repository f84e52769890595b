// MemoryMap: what kind of memory a pointer refers to, from the CUDA driver's pointer
// attributes, with two caches in front of it: HostRegions (plain host memory, answered with no
// driver call) and RangeCache (device allocations, trusted while their buffer id holds).
//
// A classification costs: a HostRegions hit, one relaxed load; otherwise one
// cuPointerGetAttributes (memory type, buffer id, managed flag, device ordinal); for the first
// pointer into a device allocation, one cuMemGetAddressRange and one cuPointerSetAttribute
// (SYNC_MEMOPS, so that CUDA's synchronous calls on it finish first) more; for a pointer the
// driver does not know, one process_vm_readv of a byte (host memory is remembered only where the
// host can read it). No call creates a context.
//
// Thread-safety: every member may be called concurrently.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>

#include "cuda/driver.h"
#include "cuda/host_regions.h"
#include "cuda/range_cache.h"
#include "runtime/accel/memory.h"
#include "runtime/base/status.h"

namespace gpurun::cuda {

// What the driver knows of a pointer.
enum class PointerKind : std::uint8_t {
  kUnknown,  // not CUDA's: pageable host memory (or a bad pointer)
  kPinned,   // host memory that CUDA allocated or registered (the device can reach it)
  kDevice,
  kManaged,
};

struct PointerInfo {
  PointerKind kind = PointerKind::kUnknown;
  int device = -1;        // device and managed memory: the owning device
  Allocation allocation;  // device and managed memory: the whole allocation

  accel::MemoryInfo memory() const;
};

struct MemoryMapConfig {
  int host_regions = 64;              // GPURUN_CUDA_HOST_CACHE
  std::size_t range_capacity = 4096;  // GPURUN_CUDA_RANGE_CACHE
};

class MemoryMap {
 public:
  // `api` must outlive the map (the process driver's, or a test double's).
  MemoryMap(const DriverApi& api, const MemoryMapConfig& config);

  // The kind of memory at `ptr`; never fails (what the driver cannot classify is host memory).
  accel::MemoryInfo query(const void* ptr) const;
  // The full answer, with the allocation of device and managed memory.
  PointerInfo classify(const void* ptr) const;

  RangeCache& ranges() { return ranges_; }
  // Driver calls made by classifications so far (for tests and measurements).
  std::uint64_t driver_calls() const { return driver_calls_.load(std::memory_order_relaxed); }

 private:
  PointerInfo classify_device(const void* ptr, std::uint64_t buffer_id, bool managed,
                              int ordinal) const;
  void synchronize_memops(std::uintptr_t base) const;
  // Whether this process can read the byte at `ptr` (one system call, made on host-cache
  // misses only).
  static bool host_readable(const void* ptr);

  const DriverApi& api_;
  mutable HostRegions host_;
  mutable RangeCache ranges_;
  mutable std::atomic<std::uint64_t> driver_calls_{0};
};

}  // namespace gpurun::cuda
