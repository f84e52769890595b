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

}  // namespace gpurun::launcher::params
