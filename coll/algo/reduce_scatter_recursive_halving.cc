// reduce_scatter and reduce_scatter_block "recursive_halving".
//
// Idea: recursive halving (coll/algo/halving.h). The blocks of the ranks are grouped by
// doubling rank (a folded pair's two blocks form one group); each step halves the range of
// groups a rank is responsible for, sending the other half to its partner and combining the
// half it keeps, so the data a rank sends halves every step. At the end a doubling rank holds
// its group reduced: it keeps its own block and, for a folded pair, sends the even rank its.
// Requirements: a commutative op (partial results are combined in no fixed rank order).
// Cost: for n the whole vector and p a power of two, log2 p alpha + n (p-1)/p (beta + gamma);
// otherwise add alpha + n (beta + gamma) for the fold and alpha + n/p beta for the hand-back.
// Latency log2 p instead of the ring's p - 1. Scratch: n for the partial results, plus n/2
// (the first half received into place needs none).
#include "coll/algo/common.h"
#include "coll/algo/halving.h"

namespace gpurun::coll::algo {
namespace {

// Where this rank's partial result lives and how the next operand goes into it.
struct Accumulator {
  ScheduleBuilder& b;
  Buf input, acc, tmp;
  bool fresh = true;  // nothing combined yet: the partial result is the input

  Buf current(std::int64_t first, std::int64_t n) const {
    return (fresh ? input : acc).slice(first, n);
  }
  // Receives elements [first, first + n) of `peer`'s partial result and combines them.
  void combine_from(int peer, std::int64_t first, std::int64_t n) {
    Buf into = acc.slice(first, n);
    if (fresh && acc.base != input.base) {  // straight into place, then add the input
      b.recv(peer, into);
      b.reduce(input.slice(first, n), into);
    } else {
      if (tmp.type == nullptr) tmp = b.scratch(n, *acc.type);  // ranges only shrink
      b.recv(peer, tmp.slice(0, n));
      b.reduce(tmp.slice(0, n), into);
    }
    fresh = false;
  }
};

}  // namespace

int reduce_scatter_halving(ScheduleBuilder& b, const Buf& input, const Buf& acc,
                           const std::vector<std::int64_t>& bounds) {
  const int p = b.size(), r = b.rank();
  const int p2 = floor_pow2(p), rem = p - p2;
  const std::int64_t total = input.count;
  Accumulator x{b, input, acc, Buf{}};
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      b.send(r + 1, input);
      b.next_round();
      return -1;
    }
    x.combine_from(r - 1, 0, total);
    b.next_round();
  }
  const int d = doubling_rank(r, rem);
  int lo = 0;  // first group of this rank's range, which holds 2 * mask groups
  for (int mask = p2 / 2; mask >= 1; mask /= 2) {
    const int keep = (d & mask) != 0 ? lo + mask : lo;
    const int give = (d & mask) != 0 ? lo : lo + mask;
    const int peer = real_rank(d ^ mask, rem);
    b.send(peer, x.current(bounds[give], bounds[give + mask] - bounds[give]));
    x.combine_from(peer, bounds[keep], bounds[keep + mask] - bounds[keep]);
    b.next_round();
    lo = keep;
  }
  if (x.fresh && acc.base != input.base) {  // one rank: nothing came
    b.copy(input.slice(bounds[d], bounds[d + 1] - bounds[d]),
           acc.slice(bounds[d], bounds[d + 1] - bounds[d]));
    b.next_round();
  }
  return d;
}

namespace {

bool usable(const Args& a) { return host_or_device(a) && a.op != nullptr && a.op->commutative(); }

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  const int p2 = floor_pow2(p), rem = p - p2;
  std::vector<std::int64_t> counts(p), displs(p + 1, 0);
  for (int i = 0; i < p; ++i) {
    counts[i] = a.collective == Collective::kReduceScatterBlock ? a.count : a.recvcounts[i];
    displs[i + 1] = displs[i] + counts[i];
  }
  std::vector<std::int64_t> bounds(p2 + 1, displs[p]);
  for (int d = 0; d < p2; ++d) bounds[d] = displs[d < rem ? 2 * d : d + rem];
  Buf input = send_buf(a, displs[p]);
  Buf acc = b.scratch(displs[p], *a.type);
  Buf mine{a.recvbuf, counts[r], a.type};
  const int d = reduce_scatter_halving(b, input, acc, bounds);
  if (d < 0) {
    b.recv(r + 1, mine);  // the odd rank of the pair holds this rank's block
  } else {
    if (d < rem) b.send(r - 1, acc.slice(displs[r - 1], counts[r - 1]));
    b.copy(acc.slice(displs[r], counts[r]), mine);
  }
  b.next_round();
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(reduce_scatter_recursive_halving, .name = "recursive_halving",
                          .collective = ::gpurun::coll::Collective::kReduceScatter,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "recursive halving, commutative ops; "
                              "log2 p alpha + n(p-1)/p (beta + gamma) (+ a fold for p != 2^k)")
GPURUN_REGISTER_ALGORITHM(reduce_scatter_block_recursive_halving, .name = "recursive_halving",
                          .collective = ::gpurun::coll::Collective::kReduceScatterBlock,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "recursive halving, commutative ops; "
                              "log2 p alpha + n(p-1)/p (beta + gamma) (+ a fold for p != 2^k)")
