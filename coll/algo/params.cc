#include "coll/algo/params.h"

namespace gpurun::coll::algo::params {
namespace {

// 64K: on one host a segment costs about 1 us of latency per hop; 64K takes some 5 us to copy
// at 10-15 GB/s, so the chain stays bandwidth-bound while a 1M message still makes 16
// segments of pipeline (osu_bcast -np 4 on the 2-core CI machine agreed, see coll/README.md).
param::Param<param::Size> g_bcast_segment(
    "GPURUN_COLL_BCAST_SEGMENT", param::Size{64 * 1024},
    "Bytes per segment that bcast \"chain\" passes down its chain of ranks (at least one "
    "element): smaller segments fill the pipeline sooner, larger ones cost fewer messages.",
    param::Level::kAdvanced);

}  // namespace

const param::Param<param::Size>& bcast_segment() { return g_bcast_segment; }

}  // namespace gpurun::coll::algo::params
