// Knobs of the pml (GPURUN_PML_*).
#pragma once

#include <optional>

#include "runtime/base/param.h"

namespace gpurun::pml::params {

// GPURUN_PML_EAGER_LIMIT: largest message sent eagerly; auto: per transport.
const param::Param<std::optional<param::Size>>& eager_limit();
const param::Param<std::optional<param::Size>>& stream_eager_limit();

}  // namespace gpurun::pml::params
