#include "cuda/contexts.h"

#include <string>

namespace gpurun::cuda {

Contexts::~Contexts() {
  for (int d = 0; d < kMaxDevices; ++d) {
    Device& dev = devices_[d];
    if (dev.stream != nullptr) {
      ScopedContext scope(api_, dev.context);
      if (scope.status().ok()) api_.stream_destroy(dev.stream);
    }
    CUdevice handle = 0;
    if (dev.context != nullptr && api_.device_get(&handle, d) == CUDA_SUCCESS)
      api_.primary_ctx_release(handle);
  }
}

Status Contexts::check(int device) const {
  if (device < 0 || device >= kMaxDevices)
    return Status(ErrorCode::kOutOfRange, "CUDA device " + std::to_string(device) +
                                              " is beyond the " + std::to_string(kMaxDevices) +
                                              " devices gpurun handles");
  return ok_status();
}

Result<CUcontext> Contexts::context(int device) {
  GPURUN_TRY(check(device));
  std::lock_guard<std::mutex> lock(mutex_);
  Device& dev = devices_[device];
  if (dev.context != nullptr) return dev.context;
  CUdevice handle = 0;
  if (CUresult rc = api_.device_get(&handle, device); rc != CUDA_SUCCESS)
    return driver_error(api_, "cuDeviceGet " + std::to_string(device), rc);
  CUcontext context = nullptr;
  if (CUresult rc = api_.primary_ctx_retain(&context, handle); rc != CUDA_SUCCESS)
    return driver_error(api_, "cuDevicePrimaryCtxRetain " + std::to_string(device), rc);
  dev.context = context;
  return context;
}

Result<CUstream> Contexts::stream(int device) {
  GPURUN_ASSIGN_OR_RETURN(CUcontext context, this->context(device));
  std::lock_guard<std::mutex> lock(mutex_);
  Device& dev = devices_[device];
  if (dev.stream != nullptr) return dev.stream;
  ScopedContext scope(api_, context);
  GPURUN_TRY(scope.status());
  CUstream stream = nullptr;
  if (CUresult rc = api_.stream_create(&stream, CU_STREAM_NON_BLOCKING); rc != CUDA_SUCCESS)
    return driver_error(api_, "cuStreamCreate on device " + std::to_string(device), rc);
  dev.stream = stream;
  return stream;
}

ScopedContext::ScopedContext(const DriverApi& api, CUcontext context) : api_(api) {
  CUcontext current = nullptr;
  if (api_.ctx_get_current(&current) == CUDA_SUCCESS && current == context) return;
  if (CUresult rc = api_.ctx_push_current(context); rc != CUDA_SUCCESS) {
    status_ = driver_error(api_, "cuCtxPushCurrent", rc);
    return;
  }
  pushed_ = true;
}

ScopedContext::~ScopedContext() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  api_.ctx_pop_current(&popped);
}

}  // namespace gpurun::cuda
