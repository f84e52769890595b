// Knobs of runtime/base.
#pragma once

#include <string>

#include "runtime/base/param.h"

namespace gpurun::params {

param::Param<std::string>& param_file();   // GPURUN_PARAM_FILE
const param::Param<param::List>& log_level();   // GPURUN_LOG_LEVEL
const param::Param<param::List>& log_subsys();  // GPURUN_LOG_SUBSYS
const param::Param<bool>& backtrace();          // GPURUN_BACKTRACE

}  // namespace gpurun::params

namespace gpurun::param {
using params::param_file;
}
