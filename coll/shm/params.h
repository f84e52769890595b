// Knobs of the shared-memory collectives (GPURUN_COLL_SHM_*).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "runtime/base/param.h"

namespace gpurun::coll::shm {

// How the shared-memory barrier of a team up to GPURUN_COLL_SHM_FLAT_MAX ranks waits
// (coll/shm/barrier.cc): every rank reads every flag (flat), or rank 0 gathers the arrivals
// and releases the others (release); auto: release when the progress engine yields the core
// (ranks outnumber cores) and the collective after the previous barrier was rooted at rank 0,
// flat otherwise.
enum class BarrierShape : std::uint8_t { kAuto, kFlat, kRelease };
std::span<const std::pair<std::string_view, BarrierShape>> param_enum_names(BarrierShape);

namespace params {

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
// GPURUN_COLL_SHM_BARRIER: the barrier's shape in flat teams.
const param::Param<BarrierShape>& barrier();

}  // namespace params
}  // namespace gpurun::coll::shm
