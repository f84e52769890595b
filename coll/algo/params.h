// Knobs of the algorithms in coll/algo (GPURUN_COLL_<COLLECTIVE>_<NOUN>).
#pragma once

#include "runtime/base/param.h"

namespace gpurun::coll::algo::params {

// GPURUN_COLL_BCAST_SEGMENT: the segment that bcast "chain" pipelines down its chain.
const param::Param<param::Size>& bcast_segment();

}  // namespace gpurun::coll::algo::params
