// reduce_scatter and reduce_scatter_block "reduce_scatterv": a binomial reduce of the whole
// vector to rank 0, then a linear scatterv of the blocks from rank 0.
//
// Idea: the simplest correct plan for any op: the reduce keeps operands in rank order (see
// reduce_binomial.cc), so non-commutative ops are right.
// Requirements: none (any p, any op, any datatype, any block sizes).
// Cost: ceil(log2 p)(alpha + n beta + n gamma) + (p - 1) alpha + n beta at rank 0, for n the
// whole vector. Scratch: n at rank 0, up to 2n at inner ranks of the tree. Recursive halving or
// a ring (n (p-1)/p beta) do better for large n.
#include <vector>

#include "coll/algo/common.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {
namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  std::vector<std::int64_t> counts(p), displs(p);
  std::int64_t total = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = a.collective == Collective::kReduceScatterBlock ? a.count : a.recvcounts[i];
    displs[i] = total;
    total += counts[i];
  }
  Buf whole = r == 0 ? b.scratch(total, *a.type) : Buf{};
  reduce_binomial(b, send_buf(a, total), whole, 0);
  Buf mine{a.recvbuf, counts[r], a.type};
  scatter_linear(b, 0, Blocks{whole.base, a.type, 0, counts.data(), displs.data()}, &mine);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(reduce_scatter_reduce_scatterv, .name = "reduce_scatterv",
                          .collective = ::gpurun::coll::Collective::kReduceScatter,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "binomial reduce to rank 0, then linear scatterv; "
                              "log2 p (alpha + n beta + n gamma) + p alpha + n beta")
GPURUN_REGISTER_ALGORITHM(reduce_scatter_block_reduce_scatterv, .name = "reduce_scatterv",
                          .collective = ::gpurun::coll::Collective::kReduceScatterBlock,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "binomial reduce to rank 0, then linear scatter; "
                              "log2 p (alpha + n beta + n gamma) + p alpha + n beta")
