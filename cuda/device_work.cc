#include "cuda/device_work.h"

#include <string>
#include <utility>

#include "cuda/kernels/launch.h"
#include "cuda/params.h"

namespace gpurun::cuda {

bool on_device(const PointerInfo& info) {
  return info.kind == PointerKind::kDevice || info.kind == PointerKind::kManaged;
}

Status device_work_status() {
  State* state = State::get();
  if (state == nullptr)
    return Status(ErrorCode::kUnsupported, "CUDA is unusable (" +
                                               Driver::process().reason() +
                                               "): device buffers cannot be handled");
  const Driver& driver = state->driver();
  if (!driver.kernels_usable())
    return Status(ErrorCode::kUnsupported,
                  "the CUDA driver (version " + std::to_string(driver.version()) +
                      ") is older than the toolkit gpurun was built with (" +
                      std::to_string(CUDA_VERSION) +
                      "): its kernels cannot run; update the NVIDIA driver");
  return ok_status();
}

Result<Work> begin_work(State& state, int device, Stream stream) {
  Work work{.state = &state, .device = device};
  GPURUN_ASSIGN_OR_RETURN(work.context, state.contexts().context(device));
  if (stream != nullptr) {
    work.stream = stream;
  } else {
    GPURUN_ASSIGN_OR_RETURN(work.stream, state.contexts().stream(device));
    work.internal = true;
  }
  return work;
}

Status finish_work(const Work& work) {
  if (!work.internal) return ok_status();
  if (CUresult rc = work.api().stream_synchronize(work.stream); rc != CUDA_SUCCESS)
    return driver_error(work.api(), "cuStreamSynchronize of device work", rc);
  return ok_status();
}

LayoutCache& layouts(State& state) {
  static LayoutCache* cache = new LayoutCache(
      state.api(), state.contexts(),
      static_cast<std::size_t>(std::max(1, params::layout_cache().get())),
      params::pack_max_runs().get());
  return *cache;
}

Result<Scratch> Scratch::make(const Work& work, std::size_t bytes) {
  const DriverApi& api = work.api();
  CUdeviceptr ptr = 0;
  if (api.mem_alloc_async != nullptr && api.mem_free_async != nullptr) {
    if (CUresult rc = api.mem_alloc_async(&ptr, bytes, work.stream); rc == CUDA_SUCCESS)
      return Scratch(work, ptr, true);
  }
  if (CUresult rc = api.mem_alloc(&ptr, bytes); rc != CUDA_SUCCESS)
    return driver_error(api, "cuMemAlloc of " + std::to_string(bytes) + " bytes of scratch", rc);
  return Scratch(work, ptr, false);
}

Scratch::Scratch(Scratch&& other) noexcept
    : work_(other.work_), ptr_(std::exchange(other.ptr_, 0)), async_(other.async_) {}

Scratch::~Scratch() {
  if (ptr_ == 0) return;
  const DriverApi& api = work_->api();
  if (async_) {
    api.mem_free_async(ptr_, work_->stream);
    return;
  }
  api.stream_synchronize(work_->stream);
  api.mem_free(ptr_);
}

Status move_window(const Work& work, const core::Datatype& type, bool pack,
                   std::uintptr_t typed, std::uintptr_t packed, std::int64_t offset,
                   std::int64_t length) {
  GPURUN_ASSIGN_OR_RETURN(std::shared_ptr<const DeviceLayout> layout,
                          layouts(*work.state).get(type, work.device));
  RunWindow runs = window(layout->flat, offset, length);
  kernels::PackLaunch launch{
      .pack = pack,
      .runs = reinterpret_cast<const kernels::Run*>(layout->runs),
      .runs_per_element = static_cast<std::int64_t>(layout->flat.runs.size()),
      .size = layout->flat.size,
      .extent = layout->flat.extent,
      .typed = typed,
      .packed = packed,
      .first_run = runs.first,
      .run_count = runs.count,
      .offset = offset,
      .length = length,
      .wide = layout->wide,
      .stream = work.stream};
  if (int rc = kernels::launch_pack(launch); rc != 0)
    return Status(ErrorCode::kIo, std::string(pack ? "pack" : "unpack") + " kernel launch: " +
                                      kernels::error_name(rc) + ": " + kernels::error_string(rc));
  return ok_status();
}

}  // namespace gpurun::cuda
