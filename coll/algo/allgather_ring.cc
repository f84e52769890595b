// allgather and allgatherv "ring".
//
// Idea: every rank puts its block in place, then in each of p - 1 rounds passes the block it
// got last to its right neighbour and receives the next one from its left neighbour, straight
// into its place in the receive buffer.
// Requirements: none (any p, any datatypes, any block sizes).
// Cost: (p - 1)(alpha + n beta) for blocks of n: bandwidth-optimal, latency linear in p
// (recursive doubling or Bruck do log2 p rounds for small blocks).
#include "coll/algo/common.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {
namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  Blocks all{a.recvbuf, a.recvtype, a.recvcount, a.recvcounts, a.rdispls};
  if (!a.in_place) b.copy(send_buf(a, a.count), all[r]);
  b.next_round();
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    // The first block leaves from the send buffer: the local copy then writes lines that no
    // other core holds (the right neighbour reads the send buffer, not our receive buffer).
    if (k == 0 && !a.in_place)
      b.send(right, send_buf(a, a.count));
    else
      b.send(right, all[(r - k + p) % p]);
    b.recv(left, all[(r - k - 1 + p) % p]);
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(allgather_ring, .name = "ring",
                          .collective = ::gpurun::coll::Collective::kAllgather,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true, .summary = "ring; (p-1)(alpha + n beta)")
GPURUN_REGISTER_ALGORITHM(allgatherv_ring, .name = "ring",
                          .collective = ::gpurun::coll::Collective::kAllgatherv,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true, .summary = "ring; (p-1) alpha + sum(n_i) beta")
