#include "cuda/ipc/gpu.h"

#include <cstring>

#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {

Gpu::~Gpu() {
  if (driver_ == nullptr || context_ == nullptr) return;
  {
    Scope scope(*this);
    if (stream_ != nullptr) {
      driver_->stream_synchronize(stream_);
      driver_->stream_destroy(stream_);
    }
    for (CUevent e : events_) driver_->event_destroy(e);
    for (void* c : all_chunks_) driver_->mem_free_host(c);
  }
  if (retained_primary_) driver_->device_primary_ctx_release(device_);
}

Result<Driver*> Gpu::driver() {
  if (!resolved_) {
    resolved_ = true;
    auto d = source_();
    if (d.ok())
      driver_ = d.value();
    else
      driver_status_ = d.status();
  }
  if (driver_ == nullptr) return driver_status_;
  return driver_;
}

bool Gpu::push() {
  return context_ != nullptr && driver_->ctx_push_current(context_) == CUDA_SUCCESS;
}

void Gpu::pop() { driver_->ctx_pop_current(); }

Status Gpu::choose_context(const void* hint, const void* hint2, int ordinal) {
  CUcontext current = nullptr;
  if (driver_->ctx_get_current(&current) == CUDA_SUCCESS && current != nullptr) {
    context_ = current;
  } else {
    for (const void* h : {hint, hint2}) {
      PointerAttributes attrs;
      if (h == nullptr ||
          driver_->pointer_attributes(reinterpret_cast<CUdeviceptr>(h), &attrs) != CUDA_SUCCESS ||
          attrs.memory_type != CU_MEMORYTYPE_DEVICE)
        continue;
      context_ = attrs.context;
      if (attrs.device >= 0) ordinal = attrs.device;
      break;
    }
    if (context_ == nullptr) {
      CUdevice device;
      CUresult r = driver_->device_get(&device, ordinal);
      if (r == CUDA_SUCCESS) r = driver_->device_primary_ctx_retain(&context_, device);
      if (r != CUDA_SUCCESS) return cuda_status(*driver_, "cuDevicePrimaryCtxRetain", r);
      retained_primary_ = true;
      device_ = device;
    }
  }
  Scope scope(*this);
  CUresult r = driver_->ctx_get_device(&device_);
  if (r == CUDA_SUCCESS) r = driver_->device_get_uuid(&uuid_, device_);
  if (r != CUDA_SUCCESS) return cuda_status(*driver_, "cuCtxGetDevice", r);
  return ok_status();
}

Status Gpu::ready(const void* hint, const void* hint2, int ordinal) {
  if (stream_ != nullptr) return ok_status();
  GPURUN_TRY(driver());
  if (context_ == nullptr) GPURUN_TRY(choose_context(hint, hint2, ordinal));
  Scope scope(*this);
  CUresult r = driver_->stream_create(&stream_);
  if (r != CUDA_SUCCESS) {
    stream_ = nullptr;
    return cuda_status(*driver_, "cuStreamCreate", r);
  }
  GPURUN_LOG(debug, cuda, "cuda_ipc: working on device %d", static_cast<int>(device_));
  return ok_status();
}

Result<CUevent> Gpu::take_event() {
  if (!events_.empty()) {
    CUevent e = events_.back();
    events_.pop_back();
    return e;
  }
  CUevent e = nullptr;
  CUresult r = driver_->event_create(&e);
  if (r != CUDA_SUCCESS) return cuda_status(*driver_, "cuEventCreate", r);
  return e;
}

void Gpu::give_event(CUevent event) { events_.push_back(event); }

Result<void*> Gpu::take_chunk() {
  if (!chunks_.empty()) {
    void* c = chunks_.back();
    chunks_.pop_back();
    return c;
  }
  void* c = nullptr;
  CUresult r = driver_->mem_host_alloc(&c, chunk_bytes_);
  if (r != CUDA_SUCCESS) return cuda_status(*driver_, "cuMemHostAlloc", r);
  all_chunks_.push_back(c);
  return c;
}

void Gpu::give_chunk(void* chunk) { chunks_.push_back(chunk); }

Status Gpu::copy_sync(void* dst, const void* src, std::size_t bytes) {
  GPURUN_TRY(ready(src, dst));
  Scope scope(*this);
  CUresult r = driver_->memcpy_async(reinterpret_cast<CUdeviceptr>(dst),
                                     reinterpret_cast<CUdeviceptr>(src), bytes, stream_);
  if (r == CUDA_SUCCESS) r = driver_->stream_synchronize(stream_);
  if (r != CUDA_SUCCESS) return cuda_status(*driver_, "cuMemcpyAsync", r);
  return ok_status();
}

int Gpu::ordinal_of(const unsigned char uuid[16]) {
  int count = 0;
  if (driver_->device_get_count(&count) != CUDA_SUCCESS) return -1;
  for (int i = 0; i < count; ++i) {
    CUdevice device;
    CUuuid u{};
    if (driver_->device_get(&device, i) != CUDA_SUCCESS ||
        driver_->device_get_uuid(&u, device) != CUDA_SUCCESS)
      continue;
    if (std::memcmp(u.bytes, uuid, sizeof u.bytes) == 0) return i;
  }
  return -1;
}

}  // namespace gpurun::cuda::ipc
