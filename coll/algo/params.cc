#include "coll/algo/params.h"

namespace gpurun::coll::algo::params {
namespace {

// 256K: on the 2-core CI machine, with 4 ranks (more processes than cores), every segment
// hop waits for the receiving process to be scheduled, so fewer, larger segments win:
// osu_bcast -np 4, 128K-4M, medians of 3 runs: 16K segments 13-47x slower than 256K, 64K
// 1.6-7x slower; 512K and 1M segments no faster from 512K on, up to 8x slower (the
// measurements are in the commit that set this default).
param::Param<param::Size> g_bcast_segment(
    "GPURUN_COLL_BCAST_SEGMENT", param::Size{256 * 1024},
    "Bytes per segment that bcast \"chain\" passes down its chain of ranks (at least one "
    "element): smaller segments fill the pipeline sooner, larger ones cost fewer messages.",
    param::Level::kAdvanced);

}  // namespace

const param::Param<param::Size>& bcast_segment() { return g_bcast_segment; }

}  // namespace gpurun::coll::algo::params
