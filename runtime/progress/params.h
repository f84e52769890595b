// Knobs of runtime/progress.
#pragma once

#include <optional>

#include "runtime/base/param.h"
#include "runtime/progress/progress.h"

namespace gpurun::progress {

std::span<const std::pair<std::string_view, WaitPolicy>> param_enum_names(WaitPolicy);

// Whether a helper thread progresses large nonblocking collectives (api/progress_helper.h).
enum class HelperMode : std::uint8_t { kAuto, kOn, kOff };
std::span<const std::pair<std::string_view, HelperMode>> param_enum_names(HelperMode);

namespace params {
const param::Param<WaitPolicy>& wait();                           // GPURUN_PROGRESS_WAIT
const param::Param<std::optional<param::Duration>>& spin_time();  // GPURUN_PROGRESS_SPIN_TIME
const param::Param<param::Duration>& sleep_max();                 // GPURUN_PROGRESS_SLEEP_MAX
const param::Param<int>& yield_polls();                           // GPURUN_PROGRESS_YIELD_POLLS
const param::Param<HelperMode>& helper();                         // GPURUN_PROGRESS_HELPER
const param::Param<param::Size>& helper_size();                   // GPURUN_PROGRESS_HELPER_SIZE
}  // namespace params

}  // namespace gpurun::progress
