// bcast "binomial": a binomial tree from the root.
//
// Idea: relative to the root, a rank receives from the rank that clears its lowest set bit,
// then sends to the ranks that set each lower bit (the root: every bit below p). Each rank
// posts all its sends at once once the data is there.
// Requirements: none (any p, any datatype; sizes must match between ranks).
// Cost: ceil(log2 p) (alpha + n beta) on the longest path; the root sends ceil(log2 p) times.
// Good for small messages; large ones want a scatter + allgather or a pipelined chain.
#include "coll/algo/common.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {

void bcast_binomial(ScheduleBuilder& b, const Buf& data, int root) {
  const int p = b.size();
  const int vr = (b.rank() - root + p) % p;
  if (vr != 0) b.recv(((vr & (vr - 1)) + root) % p, data);
  b.next_round();
  int low = vr == 0 ? static_cast<int>(std::bit_ceil(static_cast<unsigned>(p))) : vr & -vr;
  for (int m = low / 2; m >= 1; m /= 2)
    if (vr + m < p) b.send((vr + m + root) % p, data);
  b.next_round();
}

namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  bcast_binomial(b, Buf{a.recvbuf, a.count, a.type}, a.root);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(bcast_binomial, .name = "binomial",
                          .collective = ::gpurun::coll::Collective::kBcast,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "binomial tree; ceil(log2 p)(alpha + n beta)")
