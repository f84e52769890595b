#include "runtime/progress/params.h"

namespace gpurun::progress {

std::span<const std::pair<std::string_view, WaitPolicy>> param_enum_names(WaitPolicy) {
  static constexpr std::pair<std::string_view, WaitPolicy> kNames[] = {
      {"auto", WaitPolicy::kAuto},
      {"spin", WaitPolicy::kSpin},
      {"yield", WaitPolicy::kYield},
      {"block", WaitPolicy::kBlock}};
  return kNames;
}

std::span<const std::pair<std::string_view, HelperMode>> param_enum_names(HelperMode) {
  static constexpr std::pair<std::string_view, HelperMode> kNames[] = {
      {"auto", HelperMode::kAuto}, {"on", HelperMode::kOn}, {"off", HelperMode::kOff}};
  return kNames;
}

namespace params {
namespace {
param::Param<WaitPolicy> g_wait(
    "GPURUN_PROGRESS_WAIT", WaitPolicy::kAuto,
    "How a waiting rank waits: spin, yield, block, or auto (spin when every rank has a core, "
    "yield when ranks outnumber cores; either sleeps after GPURUN_PROGRESS_SPIN_TIME idle).");
param::Param<std::optional<param::Duration>> g_spin_time(
    "GPURUN_PROGRESS_SPIN_TIME", std::nullopt,
    "How long a waiting rank polls without finding work before it sleeps on its doorbell; "
    "auto: 50ms when every rank has a core, 2ms when ranks outnumber cores.");
param::Param<param::Duration> g_sleep_max(
    "GPURUN_PROGRESS_SLEEP_MAX", param::Duration(1'000'000),
    "Longest single sleep of a waiting rank before it polls again (bounds the cost of a "
    "missed wake-up).",
    param::Level::kAdvanced);
param::Param<int> g_yield_polls(
    "GPURUN_PROGRESS_YIELD_POLLS", 2,
    "Idle polls between two yields of the core when the wait policy yields (ranks outnumber "
    "cores); 1: yield after every poll that found nothing.",
    param::Level::kAdvanced);
param::Param<HelperMode> g_helper(
    "GPURUN_PROGRESS_HELPER", HelperMode::kAuto,
    "A helper thread that progresses large nonblocking and persistent collectives while the "
    "caller is outside MPI: on, off, or auto (on when the rank may run on more than one CPU "
    "and this host has more CPUs than ranks, so that the helper does not take the rank's own).");
param::Param<param::Size> g_helper_size(
    "GPURUN_PROGRESS_HELPER_SIZE", param::Size{64 * 1024},
    "Nonblocking and persistent collectives on host memory of at least this size (the size "
    "that algorithm selection sees) are progressed by a helper thread while the caller is "
    "outside MPI (GPURUN_PROGRESS_HELPER).");
}  // namespace

const param::Param<WaitPolicy>& wait() { return g_wait; }
const param::Param<std::optional<param::Duration>>& spin_time() { return g_spin_time; }
const param::Param<param::Duration>& sleep_max() { return g_sleep_max; }
const param::Param<int>& yield_polls() { return g_yield_polls; }
const param::Param<HelperMode>& helper() { return g_helper; }
const param::Param<param::Size>& helper_size() { return g_helper_size; }
}  // namespace params

}  // namespace gpurun::progress
