// Knobs of the transport layer as a whole; each transport has its own (shm/params.h, ...).
#pragma once

#include "runtime/base/param.h"

namespace gpurun::transport::params {

const param::Param<param::List>& transports();  // GPURUN_TRANSPORTS

}  // namespace gpurun::transport::params
