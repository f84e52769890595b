// Whether the cuda_ipc transport can serve device buffers between this rank and a peer, and
// why not: for the connect-time path choice (the pml's routes per peer and memory kind) and
// `gpurun --explain`. A pure function of what the caller knows, plus one driver question
// (peer access) when both GPUs are known and differ.
#pragma once

#include <optional>
#include <string>

#include "cuda/ipc/driver.h"
#include "runtime/topo/path_policy.h"

namespace gpurun::cuda::ipc {

struct ServeQuery {
  int peer = -1;  // the peer's job rank, for messages
  bool same_host = true;
  std::string disabled_by;  // knob that turned cuda_ipc off ("GPURUN_TRANSPORTS=^cuda_ipc")
  // This process's driver; null when CUDA is not usable here, with the reason.
  Driver* driver = nullptr;
  std::string driver_problem;
  // topo::choose_path's answer for device memory between the two ranks, when the topology is
  // known: a choice other than cuda_ipc carries the reason it was refused.
  const topo::PathChoice* device_path = nullptr;
  // The two ranks' GPUs in this process's numbering, -1 when unknown; peer_gpu_hidden when
  // the peer's GPU is known not to be visible here.
  int device = -1;
  int peer_device = -1;
  bool peer_gpu_hidden = false;
};

// nullopt when cuda_ipc can serve the peer; else the reason, phrased for a log line.
std::optional<std::string> serve_refusal(const ServeQuery& query);

}  // namespace gpurun::cuda::ipc
