// Knobs of the collectives.
#pragma once

#include <string>

#include "coll/algorithm.h"
#include "runtime/base/param.h"

namespace gpurun::coll::params {

// GPURUN_COLL_<COLLECTIVE>_ALGO: the algorithm forced for one collective ("auto": the table's).
const param::Param<std::string>& forced_algorithm(Collective collective);
// GPURUN_COLL_TUNING_FILE: a JSON selection table that replaces the built-in one.
const param::Param<std::string>& tuning_file();
// GPURUN_COLL_MISMATCH_WAIT: how long a guarded collective stays incomplete before its rank
// compares its call with the other members' (coll/select_guard.h).
const param::Param<param::Duration>& mismatch_wait();

}  // namespace gpurun::coll::params
