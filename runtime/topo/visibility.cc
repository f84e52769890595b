#include "runtime/topo/visibility.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace gpurun::topo {
namespace {

// The GPU that one CUDA_VISIBLE_DEVICES entry names; -1 when it names none (the list ends).
Result<int> entry_gpu(const Topology& topology, std::string_view entry) {
  auto gpus = topology.gpus();
  if (entry.starts_with("MIG-"))
    return Status(ErrorCode::kUnsupported, "CUDA_VISIBLE_DEVICES names a MIG instance (" +
                                               std::string(entry) +
                                               "): gpurun cannot tell which GPUs are hidden");
  if (entry.starts_with("GPU-")) {
    bool known =
        std::any_of(gpus.begin(), gpus.end(), [](const Gpu& g) { return !g.uuid.empty(); });
    if (!known)
      return Status(ErrorCode::kUnsupported,
                    "CUDA_VISIBLE_DEVICES names GPUs by UUID and the topology has no UUIDs (no "
                    "NVML): gpurun cannot tell which GPUs are hidden");
    for (const Gpu& gpu : gpus)
      if (!gpu.uuid.empty() && gpu.uuid.starts_with(entry)) return gpu.index;
    return -1;
  }
  int index = -1;
  auto [ptr, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), index);
  if (ec != std::errc() || ptr != entry.data() + entry.size()) return -1;
  return index >= 0 && index < static_cast<int>(gpus.size()) ? index : -1;
}

}  // namespace

Result<std::vector<int>> hidden_gpus(const Topology& topology, std::string_view value) {
  std::vector<bool> visible(topology.gpus().size(), false);
  while (!value.empty()) {
    std::string_view entry = value.substr(0, value.find(','));
    value.remove_prefix(std::min(value.size(), entry.size() + 1));
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    GPURUN_ASSIGN_OR_RETURN(int gpu, entry_gpu(topology, entry));
    if (gpu < 0) break;
    visible[static_cast<std::size_t>(gpu)] = true;
  }
  std::vector<int> hidden;
  for (std::size_t i = 0; i < visible.size(); ++i)
    if (!visible[i]) hidden.push_back(static_cast<int>(i));
  return hidden;
}

}  // namespace gpurun::topo
