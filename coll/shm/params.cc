#include "coll/shm/params.h"

namespace gpurun::coll::shm {

std::span<const std::pair<std::string_view, BarrierShape>> param_enum_names(BarrierShape) {
  static constexpr std::pair<std::string_view, BarrierShape> kNames[] = {
      {"auto", BarrierShape::kAuto},
      {"flat", BarrierShape::kFlat},
      {"release", BarrierShape::kRelease}};
  return kNames;
}

namespace params {
namespace {
param::Param<param::Size> g_slot_size(
    "GPURUN_COLL_SHM_SLOT_SIZE", param::Size{1024 * 1024},
    "Bytes of each rank's data slot in a communicator's shared collective segment (rounded to "
    "whole pages); larger messages go through it in pipelined chunks.");
param::Param<int> g_flat_max(
    "GPURUN_COLL_SHM_FLAT_MAX", 8,
    "Largest communicator in which shared-memory barriers and small reductions read every "
    "member's flag directly; larger ones combine flags up a tree.",
    param::Level::kAdvanced);
param::Param<int> g_tree_radix(
    "GPURUN_COLL_SHM_TREE_RADIX", 4,
    "Fan-in of the tree of flags that shared-memory barriers and small reductions use above "
    "GPURUN_COLL_SHM_FLAT_MAX ranks.",
    param::Level::kAdvanced);
param::Param<std::optional<param::Size>> g_direct_max(
    "GPURUN_COLL_SHM_DIRECT_MAX", std::nullopt,
    "Largest shared-memory reduction that every rank computes whole from all slots; above it "
    "each rank reduces a share and the others copy it (a reduce of two ranks on their own "
    "cores streams to the root instead). auto: by communicator size.",
    param::Level::kAdvanced);
param::Param<std::optional<param::Size>> g_chunk_size(
    "GPURUN_COLL_SHM_CHUNK_SIZE", std::nullopt,
    "Pipeline chunk of shared-memory bcast and scatter; auto: a quarter of the message, "
    "at least 8K and at most 128K (where ranks do not share cores) or a quarter of the slot.",
    param::Level::kAdvanced);
param::Param<BarrierShape> g_barrier(
    "GPURUN_COLL_SHM_BARRIER", BarrierShape::kAuto,
    "Shared-memory barrier of up to GPURUN_COLL_SHM_FLAT_MAX ranks: flat (every rank reads "
    "every member's flag), release (rank 0 gathers the arrivals, then releases the others), "
    "or auto (release when ranks outnumber cores and the collective after the previous "
    "barrier was rooted at rank 0, or in a team of two when it was a bcast or scatter of up to "
    "56 bytes from rank 0; flat otherwise).",
    param::Level::kAdvanced);
}  // namespace

const param::Param<param::Size>& slot_size() { return g_slot_size; }
const param::Param<int>& flat_max() { return g_flat_max; }
const param::Param<int>& tree_radix() { return g_tree_radix; }
const param::Param<std::optional<param::Size>>& direct_max() { return g_direct_max; }
const param::Param<std::optional<param::Size>>& chunk_size() { return g_chunk_size; }
const param::Param<BarrierShape>& barrier() { return g_barrier; }

}  // namespace params
}  // namespace gpurun::coll::shm
