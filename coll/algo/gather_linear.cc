// gather and gatherv "linear": each rank sends its block to the root directly.
//
// Idea: one round; the root posts p - 1 receives at once, straight into its receive buffer.
// Requirements: none (any p, any datatypes, any block sizes).
// Cost: (p - 1) alpha + (p - 1) n beta at the root, for n the block size; a binomial tree does
// better for many small blocks.
#include "coll/algo/common.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {

void gather_linear(ScheduleBuilder& b, int root, const Buf* from, const Blocks& into) {
  const int p = b.size(), r = b.rank();
  if (r == root) {
    for (int i = 0; i < p; ++i)
      if (i != root) b.recv(i, into[i]);
    if (from != nullptr) b.copy(*from, into[root]);
  } else {
    b.send(root, *from);
  }
  b.next_round();
}

namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Blocks into{a.recvbuf, a.recvtype, a.recvcount, a.recvcounts, a.rdispls};
  Buf from = send_buf(a, a.count);
  bool keep = b.rank() == a.root && a.in_place;
  gather_linear(b, a.root, keep ? nullptr : &from, into);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(
    gather_linear, .name = "linear", .collective = ::gpurun::coll::Collective::kGather,
    .usable = ::gpurun::coll::algo::host_or_device,
    .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>, .device_steps = true,
    .summary = "each rank sends to the root; (p-1)(alpha + n beta) at the root")
GPURUN_REGISTER_ALGORITHM(gatherv_linear, .name = "linear",
                          .collective = ::gpurun::coll::Collective::kGatherv,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "each rank sends to the root; (p-1) alpha + sum(n_i) beta")
