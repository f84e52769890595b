#include "cuda/device_layout.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/core/datatype_layout.h"

namespace gpurun::cuda {
namespace {

using Kind = core::Layout::Kind;

class Flattener {
 public:
  explicit Flattener(std::vector<kernels::Run>& runs) : runs_(runs) {}

  void node(const core::Layout& n, std::int64_t origin) {
    std::int64_t at = origin + n.disp;
    switch (n.kind) {
      case Kind::kLeaf:
        add(at, n.size);
        return;
      case Kind::kRepeat:
        for (std::int64_t k = 0; k < n.count; ++k) node(*n.child, at + k * n.stride);
        return;
      case Kind::kBlocks:
        for (const core::Run& r : *n.runs) add(at + r.disp, r.bytes);
        return;
      case Kind::kIndexed:
        for (const core::Segment& s : *n.segments)
          for (std::int64_t k = 0; k < s.count; ++k) node(*n.child, at + s.disp + k * n.stride);
        return;
      case Kind::kList:
        for (const core::Item& item : *n.items) node(*item.node, at);
        return;
    }
  }

 private:
  void add(std::int64_t disp, std::int64_t bytes) {
    if (bytes == 0) return;
    if (!runs_.empty() && runs_.back().disp + runs_.back().bytes == disp) {
      runs_.back().bytes += bytes;
      return;
    }
    std::int64_t start = runs_.empty() ? 0 : runs_.back().start + runs_.back().bytes;
    runs_.push_back(kernels::Run{disp, start, bytes});
  }

  std::vector<kernels::Run>& runs_;
};

// The run of one element that holds packed byte `at` (0 <= at < size).
std::int64_t run_at(const std::vector<kernels::Run>& runs, std::int64_t at) {
  auto after = std::upper_bound(runs.begin(), runs.end(), at,
                                [](std::int64_t v, const kernels::Run& r) { return v < r.start; });
  return static_cast<std::int64_t>(after - runs.begin()) - 1;
}

}  // namespace

Result<FlatLayout> flatten(const core::Datatype& type, std::int64_t max_runs) {
  if (!type.committed())
    return Status(ErrorCode::kInvalidArgument, "datatype is not committed");
  FlatLayout flat{.size = type.size(), .extent = type.extent()};
  if (type.size() == 0) return flat;
  if (type.contiguous() || type.layout() == nullptr) {
    flat.runs.push_back(kernels::Run{type.true_lb(), 0, type.size()});
    return flat;
  }
  if (type.block_count() > max_runs)
    return Status(ErrorCode::kUnsupported,
                  "datatype has " + std::to_string(type.block_count()) +
                      " contiguous blocks per element, more than GPURUN_CUDA_PACK_MAX_RUNS (" +
                      std::to_string(max_runs) + ") allows on the device");
  flat.runs.reserve(static_cast<std::size_t>(type.block_count()));
  Flattener(flat.runs).node(*type.layout(), 0);
  return flat;
}

RunWindow window(const FlatLayout& layout, std::int64_t offset, std::int64_t length) {
  if (length <= 0 || layout.size == 0 || layout.runs.empty()) return {};
  const auto per = static_cast<std::int64_t>(layout.runs.size());
  std::int64_t last = offset + length - 1;
  std::int64_t first = (offset / layout.size) * per + run_at(layout.runs, offset % layout.size);
  std::int64_t end = (last / layout.size) * per + run_at(layout.runs, last % layout.size) + 1;
  return {first, end - first};
}

void move_on_host(const FlatLayout& layout, const kernels::PackLaunch& launch) {
  const auto per = static_cast<std::int64_t>(layout.runs.size());
  for (std::int64_t i = 0; i < launch.run_count; ++i) {
    std::int64_t g = launch.first_run + i;
    kernels::RunSpan span = kernels::run_span(launch, layout.runs[g % per], g / per);
    if (span.bytes == 0) continue;
    auto* typed = reinterpret_cast<void*>(span.typed);
    auto* packed = reinterpret_cast<void*>(span.packed);
    auto n = static_cast<std::size_t>(span.bytes);
    if (launch.pack) {
      std::memcpy(packed, typed, n);
    } else {
      std::memcpy(typed, packed, n);
    }
  }
}

}  // namespace gpurun::cuda
