#include "launcher/params.h"

#include <chrono>

namespace gpurun::launcher::params {
namespace {

using namespace std::chrono_literals;

// 300 ms: ranks killed by SIGTERM are gone in microseconds; a handler that flushes files gets
// a moment, and the whole job still ends within the one second the users are promised.
param::Param<param::Duration> g_kill_grace(
    "GPURUN_LAUNCHER_KILL_GRACE", param::Duration(300ms),
    "Time the ranks get between SIGTERM and SIGKILL when a job is ended (keep it below 1s).");
// hash: the lightest PMIx data store; the shared-memory ones (ds21, ds12) cost more to set up
// than a one-host job of a few ranks gains from them.
param::Param<std::string> g_pmix_gds(
    "GPURUN_LAUNCHER_PMIX_GDS", "hash",
    "PMIx data-store components given to the server and the ranks (PMIX_MCA_gds).",
    param::Level::kAdvanced);
param::Param<param::Size> g_line_max(
    "GPURUN_LAUNCHER_LINE_MAX", param::Size{64ull * 1024},
    "Longest partial output line held back waiting for its newline before it is forwarded.",
    param::Level::kAdvanced);
param::Param<bool> g_profile(
    "GPURUN_LAUNCHER_PROFILE", false,
    "Print to stderr how long each startup and shutdown phase of gpurun takes.",
    param::Level::kAdvanced);

}  // namespace

const param::Param<param::Duration>& kill_grace() { return g_kill_grace; }
const param::Param<std::string>& pmix_gds() { return g_pmix_gds; }
const param::Param<param::Size>& line_max() { return g_line_max; }
const param::Param<bool>& profile() { return g_profile; }

}  // namespace gpurun::launcher::params
