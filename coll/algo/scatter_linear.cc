// scatter and scatterv "linear": the root sends each rank its block directly.
//
// Idea: one round; the root posts p - 1 sends at once, each rank one receive.
// Requirements: none (any p, any datatypes, any block sizes).
// Cost: (p - 1) alpha + (p - 1) n beta at the root, for n the block size: fine for small p and
// for large blocks (bandwidth-bound either way); a binomial tree does better for many small
// blocks.
#include "coll/algo/common.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {

void scatter_linear(ScheduleBuilder& b, int root, const Blocks& from, const Buf* into) {
  const int p = b.size(), r = b.rank();
  if (r == root) {
    for (int i = 0; i < p; ++i)
      if (i != root) b.send(i, from[i]);
    if (into != nullptr) b.copy(from[root], *into);
  } else {
    b.recv(root, *into);
  }
  b.next_round();
}

namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Blocks from{const_cast<void*>(a.sendbuf), a.type, a.count, a.sendcounts, a.sdispls};
  Buf into{a.recvbuf, a.recvcount, a.recvtype};
  bool keep = b.rank() == a.root && a.in_place;
  scatter_linear(b, a.root, from, keep ? nullptr : &into);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(scatter_linear, .name = "linear",
                          .collective = ::gpurun::coll::Collective::kScatter,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "root sends to each rank; (p-1)(alpha + n beta) at the root")
GPURUN_REGISTER_ALGORITHM(scatterv_linear, .name = "linear",
                          .collective = ::gpurun::coll::Collective::kScatterv,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "root sends to each rank; (p-1) alpha + sum(n_i) beta")
