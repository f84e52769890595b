// reduce "reduce_scatter_gather" (Rabenseifner): a recursive-halving reduce-scatter, then a
// gather of the reduced blocks at the root.
//
// Idea: the vector is cut into p' = floor_pow2(p) blocks of whole elements. The ranks halve
// (coll/algo/halving.h; with p not a power of two the first 2 (p - p') ranks fold in pairs
// first), after which doubling rank d holds block d fully reduced; each sends it straight into
// its place in the root's receive buffer. The root, when it takes part in the halving, uses
// its receive buffer for its partial results, so its own block needs no copy.
// Requirements: a commutative op (partial results are combined in no fixed rank order).
// Cost: log2 p' alpha + n (p'-1)/p' (beta + gamma) for the halving (+ alpha + n (beta + gamma)
// for the fold), then (p'-1) alpha + n (p'-1)/p' beta into the root. Against binomial's
// log2 p (alpha + n beta + n gamma): each rank reduces less than n instead of up to n log2 p,
// so it wins for large vectors. Scratch: n (partial results) + n/2 at ranks other than the
// root; n/2 at the root (n in place with a fold).
#include <algorithm>

#include "coll/algo/common.h"
#include "coll/algo/halving.h"

namespace gpurun::coll::algo {
namespace {

bool usable(const Args& a) { return host_or_device(a) && a.op != nullptr && a.op->commutative(); }

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  const int p2 = floor_pow2(p), rem = p - p2;
  const std::int64_t n = a.count, base = n / p2, extra = n % p2;
  std::vector<std::int64_t> bounds(p2 + 1);
  for (int d = 0; d <= p2; ++d) bounds[d] = d * base + std::min<std::int64_t>(d, extra);
  auto block = [&](const Buf& whole, int d) {
    return whole.slice(bounds[d], bounds[d + 1] - bounds[d]);
  };
  Buf input = send_buf(a, n);
  const bool root = r == a.root;
  Buf out = root ? Buf{a.recvbuf, n, a.type} : Buf{};
  // The root's partial results go where its result will be (in place: over its input).
  Buf acc = root ? out : b.scratch(n, *a.type);
  const int d = reduce_scatter_halving(b, input, acc, bounds);
  if (root) {
    for (int e = 0; e < p2; ++e)
      if (e != d) b.recv(real_rank(e, rem), block(out, e));
  } else if (d >= 0) {
    b.send(a.root, block(acc, d));
  }
  b.next_round();
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(reduce_reduce_scatter_gather, .name = "reduce_scatter_gather",
                          .collective = ::gpurun::coll::Collective::kReduce,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "recursive-halving reduce-scatter + gather to the root, commutative "
                              "ops; 2 log2 p alpha + 2n(p-1)/p beta + n(p-1)/p gamma")
