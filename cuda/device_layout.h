// The pack kernels' view of a datatype: one element as a flat list of contiguous runs
// (displacement, packed start, length), copied once to device memory and walked by the kernels
// with one thread (short runs) or one warp (long runs) per run. Flattening the compiled layout
// (runtime/core/datatype_layout.h) trades the layout's compact loops for a list the device
// can index directly: any run of any element is found by a division, with no walk.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/kernels/launch.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype.h"

namespace gpurun::cuda {

struct FlatLayout {
  std::vector<kernels::Run> runs;  // of one element, in packed order, adjacent runs merged
  std::int64_t size = 0;           // packed bytes of one element
  std::int64_t extent = 0;
};

// Flattens a committed type. kUnsupported when an element has more than `max_runs` blocks
// (GPURUN_CUDA_PACK_MAX_RUNS), kInvalidArgument for an uncommitted type.
Result<FlatLayout> flatten(const core::Datatype& type, std::int64_t max_runs);

// The runs of `count` elements that hold packed bytes [offset, offset + length): runs
// [first, first + count) of the whole stream (run k of element e is e * runs + k).
struct RunWindow {
  std::int64_t first = 0;
  std::int64_t count = 0;
};
RunWindow window(const FlatLayout& layout, std::int64_t offset, std::int64_t length);

// The kernels' work done on the host, run by run (tests compare it with core::Datatype::pack).
void move_on_host(const FlatLayout& layout, const kernels::PackLaunch& launch);

}  // namespace gpurun::cuda
