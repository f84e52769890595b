// Knobs of the shm transport (GPURUN_SHM_*).
#pragma once

#include <optional>

#include "runtime/base/param.h"

namespace gpurun::transport::shm {

enum class SegmentKind : std::uint8_t { kMemfd, kNamed };
enum class CmaMode : std::uint8_t { kAuto, kOn, kOff };
std::span<const std::pair<std::string_view, SegmentKind>> param_enum_names(SegmentKind);
std::span<const std::pair<std::string_view, CmaMode>> param_enum_names(CmaMode);

namespace params {
const param::Param<std::optional<param::Size>>& ring_size();  // GPURUN_SHM_RING_SIZE
const param::Param<param::Size>& fragment_size();             // GPURUN_SHM_FRAGMENT_SIZE
const param::Param<std::optional<int>>& fragments();          // GPURUN_SHM_FRAGMENTS
const param::Param<CmaMode>& cma();                           // GPURUN_SHM_CMA
const param::Param<SegmentKind>& segment();                   // GPURUN_SHM_SEGMENT
}  // namespace params

}  // namespace gpurun::transport::shm
