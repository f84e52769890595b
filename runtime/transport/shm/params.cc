#include "runtime/transport/shm/params.h"

namespace gpurun::transport::shm {

std::span<const std::pair<std::string_view, SegmentKind>> param_enum_names(SegmentKind) {
  static constexpr std::pair<std::string_view, SegmentKind> kNames[] = {
      {"memfd", SegmentKind::kMemfd}, {"named", SegmentKind::kNamed}};
  return kNames;
}

std::span<const std::pair<std::string_view, CmaMode>> param_enum_names(CmaMode) {
  static constexpr std::pair<std::string_view, CmaMode> kNames[] = {
      {"auto", CmaMode::kAuto}, {"on", CmaMode::kOn}, {"off", CmaMode::kOff}};
  return kNames;
}

namespace params {
namespace {
param::Param<std::optional<param::Size>> g_ring_size(
    "GPURUN_SHM_RING_SIZE", std::nullopt,
    "Bytes of packet ring from each local rank to each other; auto: 256K up to 8 ranks per "
    "host, less beyond (16M for all the rings of a host); at most 64M.");
param::Param<param::Size> g_fragment_size(
    "GPURUN_SHM_FRAGMENT_SIZE", param::Size{32768},
    "Size of the shared-memory fragments that carry large messages in a copy pipeline.");
param::Param<std::optional<int>> g_fragments(
    "GPURUN_SHM_FRAGMENTS", std::nullopt,
    "Fragments in flight from each local rank to each other; auto: 8, less beyond 8 ranks per "
    "host.");
param::Param<CmaMode> g_cma(
    "GPURUN_SHM_CMA", CmaMode::kAuto,
    "Large messages by CMA, each side copying a share (process_vm_readv in the receiver, "
    "process_vm_writev in the sender; in an exchange, up to 256K, the receiver copies all): on, "
    "off, or auto (as gpurun's copy probe between two cores found, GPURUN_TOPO_COPY; under "
    "other launchers, used when a CMA copy measures within 4x of a memcpy in the rank).");
param::Param<SegmentKind> g_segment(
    "GPURUN_SHM_SEGMENT", SegmentKind::kMemfd,
    "How inboxes are shared: memfd (opened through /proc, never left behind) or named (POSIX "
    "shm, for ranks that cannot see each other's /proc).",
    param::Level::kAdvanced);
}  // namespace

const param::Param<std::optional<param::Size>>& ring_size() { return g_ring_size; }
const param::Param<param::Size>& fragment_size() { return g_fragment_size; }
const param::Param<std::optional<int>>& fragments() { return g_fragments; }
const param::Param<CmaMode>& cma() { return g_cma; }
const param::Param<SegmentKind>& segment() { return g_segment; }
}  // namespace params

}  // namespace gpurun::transport::shm
