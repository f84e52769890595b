#include "cuda/stream.h"

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdio>

#include "cuda/contexts.h"
#include "runtime/base/log.h"

namespace gpurun::cuda {
namespace {

struct Words {
  alignas(64) std::atomic<std::uint32_t> started{0};
  alignas(64) std::atomic<std::uint32_t> released{0};
};

// What a host function on the stream does (the fallback): write `value` or wait for it.
struct HostStep {
  Words* words;
  std::uint32_t value;
};

void CUDA_CB write_started(void* data) {
  auto* step = static_cast<HostStep*>(data);
  step->words->started.store(step->value, std::memory_order_release);
  delete step;
}

void CUDA_CB wait_released(void* data) {
  auto* step = static_cast<HostStep*>(data);
  while (!accel::reached(step->words->released.load(std::memory_order_acquire), step->value))
    sched_yield();
  delete step;
}

class CudaStream final : public accel::Stream {
 public:
  CudaStream(const DriverApi& api, CUstream stream, CUcontext context, Words* words,
             CUdeviceptr device_words)
      : api_(api), stream_(stream), context_(context), words_(words), device_(device_words) {}
  ~CudaStream() override {
    ScopedContext scope(api_, context_);
    api_.mem_free_host(words_);
  }

  Status signal(std::uint32_t value) override {
    return step(device_ + offsetof(Words, started), value, true);
  }
  Status wait(std::uint32_t value) override {
    return step(device_ + offsetof(Words, released), value, false);
  }
  std::uint32_t started() const override { return words_->started.load(std::memory_order_acquire); }
  void release(std::uint32_t value) override {
    words_->released.store(value, std::memory_order_release);
  }
  std::string describe() const override {
    char text[128];
    std::snprintf(text, sizeof text, "CUDA stream %p, ordered by %s", static_cast<void*>(stream_),
                  memory_ops_ ? "stream memory operations" : "host functions");
    return text;
  }

 private:
  Status step(CUdeviceptr word, std::uint32_t value, bool write);
  Status host_step(std::uint32_t value, bool write);

  const DriverApi& api_;
  CUstream stream_;
  CUcontext context_;
  Words* words_;
  CUdeviceptr device_;
  bool memory_ops_ = true;
};

Status CudaStream::step(CUdeviceptr word, std::uint32_t value, bool write) {
  ScopedContext scope(api_, context_);
  GPURUN_TRY(scope.status());
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (api_.stream_is_capturing != nullptr &&
      api_.stream_is_capturing(stream_, &capture) == CUDA_SUCCESS &&
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return Status(ErrorCode::kUnsupported,
                  "the CUDA stream is being captured into a graph: gpurun does not capture "
                  "enqueued MPI operations yet");
  if (memory_ops_) {
    CUresult rc = write ? api_.stream_write_value32(stream_, word, value, 0)
                        : api_.stream_wait_value32(stream_, word, value, CU_STREAM_WAIT_VALUE_GEQ);
    if (rc == CUDA_SUCCESS) return ok_status();
    if (rc != CUDA_ERROR_NOT_SUPPORTED || api_.launch_host_func == nullptr)
      return driver_error(api_, write ? "cuStreamWriteValue32" : "cuStreamWaitValue32", rc);
    memory_ops_ = false;
    GPURUN_LOG(warn, cuda,
               "stream memory operations are not supported here: enqueued MPI operations on "
               "CUDA stream %p are ordered by host functions, which hold the stream's callbacks "
               "while they wait",
               static_cast<void*>(stream_));
  }
  return host_step(value, write);
}

Status CudaStream::host_step(std::uint32_t value, bool write) {
  auto* data = new HostStep{words_, value};
  CUresult rc = api_.launch_host_func(stream_, write ? write_started : wait_released, data);
  if (rc == CUDA_SUCCESS) return ok_status();
  delete data;
  return driver_error(api_, "cuLaunchHostFunc", rc);
}

}  // namespace

Result<std::unique_ptr<accel::Stream>> wrap_stream(const DriverApi& api, std::uintptr_t handle) {
  if (api.mem_host_alloc == nullptr || api.mem_host_get_device_pointer == nullptr ||
      api.stream_write_value32 == nullptr || api.stream_wait_value32 == nullptr)
    return Status(ErrorCode::kUnsupported, "the CUDA driver lacks stream memory operations");
  auto stream = reinterpret_cast<CUstream>(handle);
  CUcontext context = nullptr;
  if (CUresult rc = api.stream_get_ctx(stream, &context); rc != CUDA_SUCCESS) {
    Status st = driver_error(api, "cuStreamGetCtx", rc);
    return Status(ErrorCode::kInvalidArgument, std::string(st.message()));
  }
  ScopedContext scope(api, context);
  GPURUN_TRY(scope.status());
  void* host = nullptr;
  if (CUresult rc = api.mem_host_alloc(&host, sizeof(Words),
                                       CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
      rc != CUDA_SUCCESS)
    return driver_error(api, "cuMemHostAlloc of the stream's words", rc);
  auto* words = new (host) Words();
  CUdeviceptr device = 0;
  if (CUresult rc = api.mem_host_get_device_pointer(&device, host, 0); rc != CUDA_SUCCESS) {
    api.mem_free_host(host);
    return driver_error(api, "cuMemHostGetDevicePointer", rc);
  }
  return std::unique_ptr<accel::Stream>(
      std::make_unique<CudaStream>(api, stream, context, words, device));
}

}  // namespace gpurun::cuda
