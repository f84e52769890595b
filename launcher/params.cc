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

// BatchMode: a host that asks for a password fails at once rather than waiting on a prompt
// nobody sees; ConnectTimeout: an unreachable host fails within a few seconds.
param::Param<std::string> g_agent(
    "GPURUN_LAUNCHER_AGENT", "ssh -x -o BatchMode=yes -o ConnectTimeout=5",
    "Command that starts gpurun's daemon on a remote host when --launch-agent is not given "
    "({host} is replaced by the host, else the host is appended).");
param::Param<std::string> g_remote_gpurun(
    "GPURUN_LAUNCHER_REMOTE_GPURUN", "",
    "Path of gpurun on the remote hosts (empty: the same path as this gpurun's).",
    param::Level::kAdvanced);
param::Param<std::string> g_address(
    "GPURUN_LAUNCHER_ADDRESS", "",
    "IPv4 addresses or interfaces on which gpurun listens for its daemons, comma-separated "
    "(empty: the ones facing the hosts).",
    param::Level::kAdvanced);
// 15 s: ssh to a host of a busy cluster takes a second or two; a host that takes longer is
// probably not coming, and the user is told so while the job is still young.
param::Param<param::Duration> g_start_timeout(
    "GPURUN_LAUNCHER_START_TIMEOUT", param::Duration(15s),
    "How long the daemons of all hosts may take to connect and get ready before the job is "
    "abandoned.");
// 5 s: keep-alive probes every second; a host gone for 5 s is gone (a busy host still answers
// them from its kernel).
param::Param<param::Duration> g_host_timeout(
    "GPURUN_LAUNCHER_HOST_TIMEOUT", param::Duration(5s),
    "How long a host may stay silent (no TCP keep-alive answer) before it counts as dead and "
    "the job ends.");

}  // namespace

const param::Param<std::string>& agent() { return g_agent; }
const param::Param<std::string>& remote_gpurun() { return g_remote_gpurun; }
const param::Param<std::string>& address() { return g_address; }
const param::Param<param::Duration>& start_timeout() { return g_start_timeout; }
const param::Param<param::Duration>& host_timeout() { return g_host_timeout; }
const param::Param<param::Duration>& kill_grace() { return g_kill_grace; }
const param::Param<std::string>& pmix_gds() { return g_pmix_gds; }
const param::Param<param::Size>& line_max() { return g_line_max; }
const param::Param<bool>& profile() { return g_profile; }

}  // namespace gpurun::launcher::params
