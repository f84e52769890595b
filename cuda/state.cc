#include "cuda/state.h"

#include <algorithm>
#include <string>

#include "runtime/base/log.h"

namespace gpurun::cuda {
namespace {

std::mutex g_config_mutex;
AcceleratorConfig g_config;

}  // namespace

State::State(const Driver& driver)
    : driver_(driver),
      memory_(*driver.api(),
              MemoryMapConfig{.host_regions = params::host_cache().get(),
                              .range_capacity = static_cast<std::size_t>(
                                  std::max(1, params::range_cache().get()))}),
      contexts_(*driver.api()) {}

State* State::get() {
  static State* state = [] () -> State* {
    const Driver& driver = Driver::process();
    return driver.usable() ? new State(driver) : nullptr;
  }();
  return state;
}

void State::configure(const AcceleratorConfig& config) {
  {
    std::lock_guard<std::mutex> lock(g_config_mutex);
    g_config = config;
  }
  if (State* s = get()) {
    std::lock_guard<std::mutex> lock(s->mutex_);
    s->assigned_gpus_ = config.assigned_gpus;
    s->assigned_device_ = -2;
  }
}

Result<int> State::home_device() {
  CUcontext current = nullptr;
  if (api().ctx_get_current(&current) == CUDA_SUCCESS && current != nullptr) {
    CUdevice device = 0;
    if (CUresult rc = api().ctx_get_device(&device); rc != CUDA_SUCCESS)
      return driver_error(api(), "cuCtxGetDevice", rc);
    return static_cast<int>(device);
  }
  GPURUN_ASSIGN_OR_RETURN(int assigned, assigned_device());
  return assigned >= 0 ? assigned : 0;
}

// The first bus id of the assigned list, as a CUDA device number (gpurun leaves every GPU
// visible, so device numbers are not gpurun's GPU numbers).
Result<int> State::assigned_device() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (assigned_device_ != -2) return assigned_device_;
  if (assigned_gpus_.empty()) {
    std::lock_guard<std::mutex> config_lock(g_config_mutex);
    assigned_gpus_ = g_config.assigned_gpus;
  }
  std::string bus_id = assigned_gpus_.substr(0, assigned_gpus_.find(','));
  assigned_device_ = -1;
  if (bus_id.empty()) return assigned_device_;
  CUdevice device = 0;
  if (CUresult rc = api().device_get_by_pci_bus_id(&device, bus_id.c_str()); rc != CUDA_SUCCESS) {
    GPURUN_LOG(warn, cuda, "assigned gpu %s is not a CUDA device here (%s); using device 0",
               bus_id.c_str(), driver_error(api(), "cuDeviceGetByPCIBusId", rc).to_string().c_str());
    return assigned_device_;
  }
  assigned_device_ = static_cast<int>(device);
  GPURUN_LOG(info, cuda, "assigned gpu %s is cuda device %d", bus_id.c_str(), assigned_device_);
  return assigned_device_;
}

}  // namespace gpurun::cuda
