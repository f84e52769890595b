#include "cuda/accelerator.h"

#include <cstring>
#include <string>

#include "cuda/device.h"
#include "cuda/state.h"
#include "cuda/stream.h"
#include "runtime/base/log.h"

namespace gpurun::cuda {
namespace {

bool on_device(const PointerInfo& info) {
  return info.kind == PointerKind::kDevice || info.kind == PointerKind::kManaged;
}

class CudaAccelerator final : public accel::Accelerator {
 public:
  explicit CudaAccelerator(State& state) : state_(state) {}

  const char* name() const override { return "cuda"; }
  bool usable() const override { return true; }
  accel::MemoryInfo query(const void* ptr) const override { return state_.memory().query(ptr); }
  Status copy(void* dst, const void* src, std::size_t bytes) override;
  void* allocate_host(std::size_t bytes) override;
  void free_host(void* ptr) override;
  Result<void*> allocate_device(int device, std::size_t bytes) override;
  void free_device(void* ptr) override;
  Status check_reduce(const core::Op& op, const core::Datatype& type) const override {
    return cuda::check_reduce(op, type);
  }
  Status reduce(const accel::DeviceReduce& args) override {
    return reduce_on_device(ReduceArgs{
        .op = args.op, .in = args.in, .inout = args.inout, .count = args.count, .type = args.type});
  }
  Status pack(const accel::DevicePack& args) override { return move(args, true); }
  Status unpack(const accel::DevicePack& args) override { return move(args, false); }
  Result<std::unique_ptr<accel::Stream>> wrap_stream(std::uintptr_t handle) override {
    return cuda::wrap_stream(state_.api(), handle);
  }

 private:
  // Runs `fn` with the primary context of `device` current.
  template <class Fn>
  Status in_context(int device, Fn fn);
  // pack() and unpack() by device.h's kernels, on gpurun's internal stream.
  Status move(const accel::DevicePack& args, bool pack);

  State& state_;
};

Status CudaAccelerator::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return ok_status();
  PointerInfo to = state_.memory().classify(dst);
  PointerInfo from = state_.memory().classify(src);
  if (!on_device(to) && !on_device(from)) {
    std::memcpy(dst, src, bytes);
    return ok_status();
  }
  const DriverApi& api = state_.api();
  int device = on_device(from) ? from.device : to.device;
  GPURUN_ASSIGN_OR_RETURN(CUcontext context, state_.contexts().context(device));
  GPURUN_ASSIGN_OR_RETURN(CUstream stream, state_.contexts().stream(device));
  ScopedContext scope(api, context);
  GPURUN_TRY(scope.status());
  if (CUresult rc = api.memcpy_async(reinterpret_cast<CUdeviceptr>(dst),
                                     reinterpret_cast<CUdeviceptr>(src), bytes, stream);
      rc != CUDA_SUCCESS)
    return driver_error(api, "cuMemcpyAsync of " + std::to_string(bytes) + " bytes", rc);
  if (CUresult rc = api.stream_synchronize(stream); rc != CUDA_SUCCESS)
    return driver_error(api, "cuStreamSynchronize after a copy", rc);
  return ok_status();
}

Status CudaAccelerator::move(const accel::DevicePack& args, bool pack) {
  // kUnsupported (the caller stages) before any work when the kernels cannot run here.
  GPURUN_TRY(device_work_status());
  if (args.type == nullptr || args.count <= 0 || args.type->size() == 0) return ok_status();
  auto length = static_cast<std::size_t>(args.count * args.type->size());
  PackArgs window{.type = args.type,
                  .typed = args.typed,
                  .count = args.count,
                  .offset = 0,
                  .length = length,
                  .packed = args.packed};
  GPURUN_ASSIGN_OR_RETURN(std::size_t moved, pack ? cuda::pack(window) : cuda::unpack(window));
  if (moved != length)
    return Status(ErrorCode::kInternal, std::string(pack ? "device pack" : "device unpack") +
                                            " moved " + std::to_string(moved) + " of " +
                                            std::to_string(length) + " bytes");
  return ok_status();
}

template <class Fn>
Status CudaAccelerator::in_context(int device, Fn fn) {
  GPURUN_ASSIGN_OR_RETURN(CUcontext context, state_.contexts().context(device));
  ScopedContext scope(state_.api(), context);
  GPURUN_TRY(scope.status());
  return fn();
}

// Pinned memory of the rank's home device's context: copies between it and device memory run
// at full speed, and it is reachable from every context of the process as host memory.
void* CudaAccelerator::allocate_host(std::size_t bytes) {
  Result<int> device = state_.home_device();
  if (!device.ok() || bytes == 0) return nullptr;
  void* ptr = nullptr;
  Status st = in_context(*device, [&]() -> Status {
    if (CUresult rc = state_.api().mem_alloc_host(&ptr, bytes); rc != CUDA_SUCCESS)
      return driver_error(state_.api(), "cuMemAllocHost of " + std::to_string(bytes) + " bytes",
                          rc);
    return ok_status();
  });
  if (!st.ok()) {
    GPURUN_LOG(debug, cuda, "%s; staging through pageable memory", st.to_string().c_str());
    return nullptr;
  }
  return ptr;
}

void CudaAccelerator::free_host(void* ptr) {
  Result<int> device = state_.home_device();
  if (ptr == nullptr || !device.ok()) return;
  Status st = in_context(*device, [&]() -> Status {
    if (CUresult rc = state_.api().mem_free_host(ptr); rc != CUDA_SUCCESS)
      return driver_error(state_.api(), "cuMemFreeHost", rc);
    return ok_status();
  });
  if (!st.ok()) GPURUN_LOG(warn, cuda, "%s", st.to_string().c_str());
}

Result<void*> CudaAccelerator::allocate_device(int device, std::size_t bytes) {
  CUdeviceptr ptr = 0;
  GPURUN_TRY(in_context(device, [&]() -> Status {
    if (CUresult rc = state_.api().mem_alloc(&ptr, bytes == 0 ? 1 : bytes); rc != CUDA_SUCCESS)
      return driver_error(
          state_.api(),
          "cuMemAlloc of " + std::to_string(bytes) + " bytes on device " + std::to_string(device),
          rc);
    return ok_status();
  }));
  return reinterpret_cast<void*>(ptr);
}

// cuMemFree synchronises with the device: no work of gpurun's streams still uses the memory.
void CudaAccelerator::free_device(void* ptr) {
  if (ptr == nullptr) return;
  PointerInfo info = state_.memory().classify(ptr);
  if (!on_device(info)) return;
  Status st = in_context(info.device, [&]() -> Status {
    if (CUresult rc = state_.api().mem_free(reinterpret_cast<CUdeviceptr>(ptr)); rc != CUDA_SUCCESS)
      return driver_error(state_.api(), "cuMemFree", rc);
    return ok_status();
  });
  if (!st.ok()) GPURUN_LOG(warn, cuda, "%s", st.to_string().c_str());
}

}  // namespace

bool usable() { return State::get() != nullptr; }

std::string unusable_reason() { return Driver::process().reason(); }

bool required() { return params::mode().get() == Mode::kOn; }

std::unique_ptr<accel::Accelerator> create_accelerator(const AcceleratorConfig& config) {
  log_availability(Driver::process());
  State::configure(config);
  State* state = State::get();
  if (state == nullptr) return nullptr;
  return std::make_unique<CudaAccelerator>(*state);
}

}  // namespace gpurun::cuda
