// Knobs of the shared-memory collectives (GPURUN_COLL_SHM_*).
#pragma once

#include <optional>

#include "runtime/base/param.h"

namespace gpurun::coll::shm::params {

// GPURUN_COLL_SHM_SLOT_SIZE: each rank's data slot in a communicator's segment.
const param::Param<param::Size>& slot_size();
// GPURUN_COLL_SHM_FLAT_MAX: largest team in which a rank reads every member's flag itself.
const param::Param<int>& flat_max();
// GPURUN_COLL_SHM_TREE_RADIX: fan-in of the tree of flags in larger teams.
const param::Param<int>& tree_radix();
// GPURUN_COLL_SHM_DIRECT_MAX: largest reduction every rank computes whole; auto: by team size.
const param::Param<std::optional<param::Size>>& direct_max();
// GPURUN_COLL_SHM_CHUNK_SIZE: pipeline chunk of bcast and scatter; auto: by message size.
const param::Param<std::optional<param::Size>>& chunk_size();

}  // namespace gpurun::coll::shm::params
