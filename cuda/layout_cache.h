// LayoutCache: datatype layouts flattened (cuda/device_layout.h) and copied to device memory
// for the pack kernels, per device, kept for the next message of the same type. Bounded per
// device (GPURUN_CUDA_LAYOUT_CACHE): the least recently used layout is dropped; its device
// memory is freed when the last user lets go (cuMemFree waits for kernels still using it).
//
// Thread-safety: get() may be called concurrently.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda/contexts.h"
#include "cuda/device_layout.h"
#include "cuda/driver.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype.h"
#include "runtime/core/datatype_layout.h"

namespace gpurun::cuda {

struct DeviceLayout {
  FlatLayout flat;       // the host copy (to find a window's runs)
  CUdeviceptr runs = 0;  // the device copy of flat.runs
  bool wide = false;     // long runs: a warp per run
};

class LayoutCache {
 public:
  LayoutCache(const DriverApi& api, Contexts& contexts, std::size_t capacity,
              std::int64_t max_runs);

  // The layout of a committed, non-contiguous `type` on `device`.
  Result<std::shared_ptr<const DeviceLayout>> get(const core::Datatype& type, int device);

 private:
  using Key = std::pair<const core::Layout*, int>;
  struct Entry {
    core::LayoutPtr keep;  // holds the key's address while it is cached
    std::shared_ptr<const DeviceLayout> layout;
    std::list<Key>::iterator use;
  };
  Result<std::shared_ptr<const DeviceLayout>> build(const core::Datatype& type, int device);
  // Drops the least recently used layouts beyond the capacity; the caller releases them once
  // it has let go of mutex_.
  std::vector<std::shared_ptr<const DeviceLayout>> evict(int device);

  const DriverApi& api_;
  Contexts& contexts_;
  const std::size_t capacity_;
  const std::int64_t max_runs_;
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::map<int, std::list<Key>> uses_;  // per device, most recent first
};

}  // namespace gpurun::cuda
