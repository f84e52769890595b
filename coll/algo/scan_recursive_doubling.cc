// scan and exscan "recursive_doubling".
//
// Idea: every rank keeps `partial`, the combination of a growing, aligned block of ranks that
// contains it. In round k it swaps `partial` with rank XOR 2^k: from a lower partner it gets
// the combination of the ranks just below its block, which it folds into its result (and into
// `partial`); from a higher partner only into `partial`. Operands stay in rank order, so
// non-commutative ops are right. exscan starts its result from the first lower block instead
// of its own data (rank 0's result is undefined and left alone).
// Requirements: none (any p, any op, any datatype).
// Cost: ceil(log2 p)(alpha + n beta + 2 n gamma). Scratch: 2n.
#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  const bool exclusive = a.collective == Collective::kExscan;
  const bool commutative = a.op->commutative();
  Buf result = recv_buf(a, a.count, a.type);
  Buf partial = b.scratch(a.count, *a.type);
  Buf tmp = b.scratch(a.count, *a.type);
  b.copy(send_buf(a, a.count), partial);  // first: with MPI_IN_PLACE the input is `result`
  if (!exclusive && !a.in_place) b.copy(send_buf(a, a.count), result);
  b.next_round();
  bool have_result = !exclusive;
  for (int mask = 1; mask < p; mask <<= 1) {
    int peer = r ^ mask;
    if (peer >= p) continue;
    b.send(peer, partial);
    b.recv(peer, tmp);
    if (peer < r) {  // tmp: the ranks just below my block
      if (have_result)
        b.reduce(tmp, result);
      else
        b.copy(tmp, result);
      have_result = true;
      b.reduce(tmp, partial);
    } else if (commutative) {
      b.reduce(tmp, partial);
    } else {
      b.reduce(partial, tmp);
      b.copy(tmp, partial);
    }
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(scan_recursive_doubling, .name = "recursive_doubling",
                          .collective = ::gpurun::coll::Collective::kScan,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "recursive doubling; ceil(log2 p)(alpha + n beta + 2n gamma)")
GPURUN_REGISTER_ALGORITHM(exscan_recursive_doubling, .name = "recursive_doubling",
                          .collective = ::gpurun::coll::Collective::kExscan,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "recursive doubling; ceil(log2 p)(alpha + n beta + 2n gamma)")
