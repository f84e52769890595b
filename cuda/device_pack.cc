// pack/unpack of device.h: contiguous windows are one cuMemcpyAsync; other layouts go through
// the pack kernels, straight into device-accessible memory, or through device scratch when the
// packed side is pageable host memory (kernels cannot reach it).
#include <algorithm>
#include <string>

#include "cuda/device.h"
#include "cuda/device_work.h"

namespace gpurun::cuda {
namespace {

struct Window {
  std::uintptr_t typed;
  std::uintptr_t packed;
  std::int64_t offset;
  std::int64_t length;
};

Status copy_async(const Work& work, std::uintptr_t dst, std::uintptr_t src, std::int64_t bytes) {
  if (CUresult rc = work.api().memcpy_async(dst, src, static_cast<std::size_t>(bytes),
                                            work.stream);
      rc != CUDA_SUCCESS)
    return driver_error(work.api(), "cuMemcpyAsync of " + std::to_string(bytes) + " bytes", rc);
  return ok_status();
}

// The kernels cannot reach pageable host memory: stage the window in device scratch.
Status move_through_scratch(const Work& work, const core::Datatype& type, bool pack,
                            const Window& w) {
  GPURUN_ASSIGN_OR_RETURN(Scratch scratch,
                          Scratch::make(work, static_cast<std::size_t>(w.length)));
  std::uintptr_t staged = scratch.address();
  if (pack) {
    GPURUN_TRY(move_window(work, type, true, w.typed, staged, w.offset, w.length));
    return copy_async(work, w.packed, staged, w.length);
  }
  GPURUN_TRY(copy_async(work, staged, w.packed, w.length));
  return move_window(work, type, false, w.typed, staged, w.offset, w.length);
}

Status move(const Work& work, const core::Datatype& type, bool pack, const Window& w) {
  if (type.contiguous()) {
    std::uintptr_t at = w.typed + static_cast<std::uintptr_t>(type.true_lb() + w.offset);
    return pack ? copy_async(work, w.packed, at, w.length) : copy_async(work, at, w.packed, w.length);
  }
  PointerInfo packed = work.state->memory().classify(reinterpret_cast<void*>(w.packed));
  if (packed.kind == PointerKind::kUnknown) return move_through_scratch(work, type, pack, w);
  return move_window(work, type, pack, w.typed, w.packed, w.offset, w.length);
}

Result<std::size_t> move_args(const PackArgs& args, bool pack) {
  const char* what = pack ? "pack" : "unpack";
  if (args.type == nullptr || !args.type->committed())
    return Status(ErrorCode::kInvalidArgument,
                  std::string(what) + " on the device needs a committed datatype");
  if (args.count < 0) return Status(ErrorCode::kInvalidArgument, "negative count");
  auto total = static_cast<std::size_t>(args.count * args.type->size());
  if (args.offset >= total || args.length == 0) return std::size_t{0};
  std::size_t n = std::min(args.length, total - args.offset);
  GPURUN_TRY(device_work_status());
  State& state = *State::get();
  PointerInfo typed = state.memory().classify(args.typed);
  if (!on_device(typed))
    return Status(ErrorCode::kInvalidArgument,
                  std::string("the typed buffer of a device ") + what +
                      " is host memory; core::Datatype::" + what + " handles host buffers");
  GPURUN_ASSIGN_OR_RETURN(Work work, begin_work(state, typed.device, args.stream));
  ScopedContext scope(work.api(), work.context);
  GPURUN_TRY(scope.status());
  Window w{reinterpret_cast<std::uintptr_t>(args.typed),
           reinterpret_cast<std::uintptr_t>(args.packed), static_cast<std::int64_t>(args.offset),
           static_cast<std::int64_t>(n)};
  GPURUN_TRY(move(work, *args.type, pack, w));
  GPURUN_TRY(finish_work(work));
  return n;
}

}  // namespace

Result<std::size_t> pack(const PackArgs& args) { return move_args(args, true); }
Result<std::size_t> unpack(const PackArgs& args) { return move_args(args, false); }

}  // namespace gpurun::cuda
