#include "cuda/layout_cache.h"

#include <string>
#include <vector>

namespace gpurun::cuda {
namespace {

// Runs at least this long (on average) are moved by a warp each; shorter ones by a thread
// each. 128 bytes is one 16-byte word per lane for eight lanes: below it a warp's lanes idle.
constexpr std::int64_t kWideRun = 128;

}  // namespace

LayoutCache::LayoutCache(const DriverApi& api, Contexts& contexts, std::size_t capacity,
                         std::int64_t max_runs)
    : api_(api),
      contexts_(contexts),
      capacity_(capacity == 0 ? 1 : capacity),
      max_runs_(max_runs) {}

Result<std::shared_ptr<const DeviceLayout>> LayoutCache::get(const core::Datatype& type,
                                                             int device) {
  Key key{type.layout(), device};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      std::list<Key>& uses = uses_[device];
      uses.splice(uses.begin(), uses, it->second.use);
      return it->second.layout;
    }
  }
  GPURUN_ASSIGN_OR_RETURN(std::shared_ptr<const DeviceLayout> layout, build(type, device));
  // Declared before the lock, so released after it: a layout's last release frees its device
  // memory, which waits for the device.
  std::vector<std::shared_ptr<const DeviceLayout>> evicted;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = entries_.try_emplace(key);
  if (!inserted) return it->second.layout;  // another thread built it first
  std::list<Key>& uses = uses_[device];
  uses.push_front(key);
  it->second = Entry{type.shared_layout(), layout, uses.begin()};
  evicted = evict(device);
  return layout;
}

Result<std::shared_ptr<const DeviceLayout>> LayoutCache::build(const core::Datatype& type,
                                                               int device) {
  GPURUN_ASSIGN_OR_RETURN(FlatLayout flat, flatten(type, max_runs_));
  GPURUN_ASSIGN_OR_RETURN(CUcontext context, contexts_.context(device));
  ScopedContext scope(api_, context);
  GPURUN_TRY(scope.status());
  std::size_t bytes = flat.runs.size() * sizeof(kernels::Run);
  CUdeviceptr runs = 0;
  if (CUresult rc = api_.mem_alloc(&runs, bytes); rc != CUDA_SUCCESS)
    return driver_error(
        api_, "cuMemAlloc of a datatype layout (" + std::to_string(bytes) + " bytes)", rc);
  // On the device's own stream and waited for: a cuMemcpyHtoD from pageable memory runs on the
  // legacy stream, which waits for the application's blocking streams, and may return before
  // its data has landed, unordered with kernels on a non-blocking stream.
  Result<CUstream> stream = contexts_.stream(device);
  CUresult rc =
      stream.ok()
          ? api_.memcpy_async(runs, reinterpret_cast<CUdeviceptr>(flat.runs.data()), bytes, *stream)
          : CUDA_ERROR_INVALID_HANDLE;
  if (rc == CUDA_SUCCESS) rc = api_.stream_synchronize(*stream);
  if (rc != CUDA_SUCCESS) {
    api_.mem_free(runs);
    if (!stream.ok()) return stream.status();
    return driver_error(api_, "copying a datatype layout to the device", rc);
  }
  bool wide = flat.size / static_cast<std::int64_t>(flat.runs.size()) >= kWideRun;
  const DriverApi* api = &api_;
  auto* raw = new DeviceLayout{std::move(flat), runs, wide};
  // Freed in the device's context when the last user lets go.
  return std::shared_ptr<const DeviceLayout>(raw, [api, context](const DeviceLayout* l) {
    ScopedContext release(*api, context);
    if (release.status().ok()) api->mem_free(l->runs);
    delete l;
  });
}

std::vector<std::shared_ptr<const DeviceLayout>> LayoutCache::evict(int device) {
  std::vector<std::shared_ptr<const DeviceLayout>> evicted;
  std::list<Key>& uses = uses_[device];
  while (uses.size() > capacity_) {
    auto it = entries_.find(uses.back());
    evicted.push_back(std::move(it->second.layout));
    entries_.erase(it);
    uses.pop_back();
  }
  return evicted;
}

}  // namespace gpurun::cuda
