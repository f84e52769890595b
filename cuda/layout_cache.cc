#include "cuda/layout_cache.h"

#include <string>

namespace gpurun::cuda {
namespace {

// Runs at least this long (on average) are moved by a warp each; shorter ones by a thread
// each. 128 bytes is one 16-byte word per lane for eight lanes: below it a warp's lanes idle.
constexpr std::int64_t kWideRun = 128;

}  // namespace

LayoutCache::LayoutCache(const DriverApi& api, Contexts& contexts, std::size_t capacity,
                         std::int64_t max_runs)
    : api_(api), contexts_(contexts), capacity_(capacity == 0 ? 1 : capacity),
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
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = entries_.try_emplace(key);
  if (!inserted) return it->second.layout;  // another thread built it first
  std::list<Key>& uses = uses_[device];
  uses.push_front(key);
  it->second = Entry{type.shared_layout(), layout, uses.begin()};
  evict(device);
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
    return driver_error(api_, "cuMemAlloc of a datatype layout (" + std::to_string(bytes) +
                                  " bytes)", rc);
  if (CUresult rc = api_.memcpy_htod(runs, flat.runs.data(), bytes); rc != CUDA_SUCCESS) {
    api_.mem_free(runs);
    return driver_error(api_, "cuMemcpyHtoD of a datatype layout", rc);
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

void LayoutCache::evict(int device) {
  std::list<Key>& uses = uses_[device];
  while (uses.size() > capacity_) {
    entries_.erase(uses.back());
    uses.pop_back();
  }
}

}  // namespace gpurun::cuda
