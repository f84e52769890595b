// bcast "chain": the message cut into segments that flow down a chain of ranks, pipelined.
//
// Idea: the ranks form a chain in rank order starting at the root (root, root + 1, ...). In
// round t the root sends segment t to the next rank; every other rank receives segment t from
// the previous one while it forwards segment t - 1 to the next, so after the pipeline fills
// every link carries a segment at once. Segments are GPURUN_COLL_BCAST_SEGMENT bytes of whole
// elements (at least one element; one segment for an empty message, so that every rank still
// exchanges a message and differing counts are caught).
// Requirements: none (any p, any datatype). Counts that differ between ranks are caught as
// truncation only when they give the same number of segments; larger differences leave the
// ranks with more segments waiting (an erroneous program, like for any pipelined algorithm).
// Cost: (s + p - 2)(alpha + n/s beta) for s segments: about n beta + (p-2) n/s beta for large
// n, nearly independent of p, against binomial's log2 p n beta. Each rank sends n once. The
// choice for large messages when scatter + allgather's 2 n (p-1)/p beta loses to the
// pipeline's n beta (several ranks, few cores).
#include <algorithm>

#include "coll/algo/common.h"
#include "coll/algo/params.h"

namespace gpurun::coll::algo {
namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size();
  if (p == 1) return ok_status();
  const int vr = (b.rank() - a.root + p) % p;
  const int prev = (b.rank() - 1 + p) % p, next = (b.rank() + 1) % p;
  const std::int64_t bytes = static_cast<std::int64_t>(params::bcast_segment().get().bytes);
  const std::int64_t size = a.type->size();
  const std::int64_t per =
      size == 0 ? std::max<std::int64_t>(a.count, 1) : std::max<std::int64_t>(1, bytes / size);
  const std::int64_t segments = std::max<std::int64_t>(1, (a.count + per - 1) / per);
  Buf data{a.recvbuf, a.count, a.type};
  auto segment = [&](std::int64_t s) {
    return data.slice(s * per, std::min(per, a.count - s * per));
  };
  // The root sends segment t in round t; any other rank receives segment t in round t and
  // forwards it in round t + 1 (the last rank only receives).
  const bool forwards = vr != p - 1;
  const std::int64_t rounds = vr == 0 ? segments : segments + (forwards ? 1 : 0);
  for (std::int64_t t = 0; t < rounds; ++t) {
    if (vr == 0) {
      b.send(next, segment(t));
    } else {
      if (t < segments) b.recv(prev, segment(t));
      if (forwards && t >= 1) b.send(next, segment(t - 1));
    }
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(bcast_chain, .name = "chain",
                          .collective = ::gpurun::coll::Collective::kBcast,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "pipelined chain, segments of GPURUN_COLL_BCAST_SEGMENT; "
                              "(s + p - 2)(alpha + n/s beta) for s segments")
