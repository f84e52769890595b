#include "cuda/accelerator.h"

#include <cstring>

#include "cuda/state.h"

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

 private:
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
