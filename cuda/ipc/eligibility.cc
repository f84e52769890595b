#include "cuda/ipc/eligibility.h"

namespace gpurun::cuda::ipc {
namespace {

std::optional<std::string> policy_refusal(const topo::PathChoice& choice) {
  if (choice.transport == "cuda_ipc") return std::nullopt;
  for (const topo::Refusal& r : choice.refused)
    if (r.transport == "cuda_ipc") return r.reason;
  return "the path policy chose " + topo::describe(choice);
}

}  // namespace

std::optional<std::string> serve_refusal(const ServeQuery& q) {
  std::string peer = "rank " + std::to_string(q.peer);
  if (!q.same_host) return peer + " is on another host: cuda_ipc reaches ranks of one host";
  if (!q.disabled_by.empty()) return "disabled by " + q.disabled_by;
  if (q.driver == nullptr)
    return "CUDA is not usable here" + (q.driver_problem.empty() ? "" : ": " + q.driver_problem);
  if (q.device_path != nullptr)
    if (auto refusal = policy_refusal(*q.device_path)) return refusal;
  if (q.peer_gpu_hidden)
    return "the GPU of " + peer +
           " is not visible here (CUDA_VISIBLE_DEVICES): IPC needs both "
           "GPUs visible";
  if (q.device < 0 || q.peer_device < 0 || q.device == q.peer_device) return std::nullopt;
  CUdevice a, b;
  int can = 0;
  if (q.driver->device_get(&a, q.device) != CUDA_SUCCESS ||
      q.driver->device_get(&b, q.peer_device) != CUDA_SUCCESS ||
      q.driver->device_can_access_peer(&can, a, b) != CUDA_SUCCESS || can == 0)
    return "no peer access from GPU " + std::to_string(q.device) + " to GPU " +
           std::to_string(q.peer_device) + " of " + peer + " (cuDeviceCanAccessPeer)";
  return std::nullopt;
}

}  // namespace gpurun::cuda::ipc
