// The cuda module in a build without CUDA (no nvcc found, or GPURUN_WITH_CUDA=off): CUDA is
// never usable, and device work fails with kUnsupported, so callers stage or refuse.
#include "cuda/accelerator.h"
#include "cuda/device.h"
#include "cuda/params.h"
#include "runtime/base/log.h"

namespace gpurun::cuda {
namespace {

Status not_built() {
  return Status(ErrorCode::kUnsupported,
                "gpurun was built without CUDA: device buffers cannot be handled (rebuild with "
                "the CUDA toolkit)");
}

}  // namespace

bool usable() { return false; }
std::string unusable_reason() { return "not built: gpurun was built without CUDA"; }
bool required() { return params::mode().get() == Mode::kOn; }
std::unique_ptr<accel::Accelerator> create_accelerator(const AcceleratorConfig&) {
  GPURUN_LOG(info, cuda, "cuda unusable: %s", unusable_reason().c_str());
  return nullptr;
}

Status check_reduce(const core::Op& op, const core::Datatype& type) {
  GPURUN_TRY(op.check(type));
  return not_built();
}
Status reduce_on_device(const ReduceArgs&) { return not_built(); }
Result<std::size_t> pack(const PackArgs&) { return not_built(); }
Result<std::size_t> unpack(const PackArgs&) { return not_built(); }
Status device_work_status() { return not_built(); }

}  // namespace gpurun::cuda
