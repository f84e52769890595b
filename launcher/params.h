// Knobs of the launcher (GPURUN_LAUNCHER_*), listed by `gpurun --info params`.
#pragma once

#include <string>

#include "runtime/base/param.h"

namespace gpurun::launcher::params {

// GPURUN_LAUNCHER_KILL_GRACE: SIGTERM to SIGKILL delay when the job is ended.
const param::Param<param::Duration>& kill_grace();
// GPURUN_LAUNCHER_PMIX_GDS: PMIx data-store component(s) for the job.
const param::Param<std::string>& pmix_gds();
// GPURUN_LAUNCHER_LINE_MAX: longest partial output line held back before it is forwarded.
const param::Param<param::Size>& line_max();
// GPURUN_LAUNCHER_PROFILE: print where startup and shutdown time goes.
const param::Param<bool>& profile();

// Jobs across hosts.
// GPURUN_LAUNCHER_AGENT: the launch agent when --launch-agent is not given.
const param::Param<std::string>& agent();
// GPURUN_LAUNCHER_REMOTE_GPURUN: gpurun's path on the remote hosts ("" : this gpurun's path).
const param::Param<std::string>& remote_gpurun();
// GPURUN_LAUNCHER_ADDRESS: where gpurun listens for its daemons ("": chosen per the hosts).
const param::Param<std::string>& address();
// GPURUN_LAUNCHER_START_TIMEOUT: how long every host's daemon may take to be ready.
const param::Param<param::Duration>& start_timeout();
// GPURUN_LAUNCHER_HOST_TIMEOUT: how long a silent host may go unnoticed.
const param::Param<param::Duration>& host_timeout();

}  // namespace gpurun::launcher::params
