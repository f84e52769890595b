// allreduce "recursive_doubling".
//
// Idea: with p a power of two, in round k every rank exchanges its whole partial result with
// rank XOR 2^k and combines; after log2 p rounds all hold the result. Otherwise, with
// p' = 2^floor(log2 p) and r = p - p', the first 2r ranks pair up first (the even one hands its
// data to the odd one and leaves), the p' remaining ranks double, and the odd ranks hand the
// result back to their even partners. Operands are combined in rank order (the lower ranks'
// partial result on the left), so non-commutative ops are right.
// Requirements: none (any p, any op, any datatype).
// Cost: (ceil(log2 p) + 2 [p not a power of two]) (alpha + n beta + n gamma). Latency-optimal
// for small n; moves n per round, so large n wants reduce-scatter + allgather.
#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

// Rank of the doubling among p' ranks (-1 for an even rank of a folded pair), and back.
int doubling_rank(int r, int rem) { return r < 2 * rem ? (r % 2 == 1 ? r / 2 : -1) : r - rem; }
int real_rank(int d, int rem) { return d < rem ? 2 * d + 1 : d + rem; }

// data = other op data with the lower rank's operand on the left; `tmp` holds `other`.
void combine(ScheduleBuilder& b, const Buf& tmp, const Buf& data, bool other_is_lower) {
  if (other_is_lower || b.args().op->commutative()) {
    b.reduce(tmp, data);
  } else {
    b.reduce(data, tmp);
    b.copy(tmp, data);
  }
}

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  Buf data = recv_buf(a, a.count, a.type);
  if (!a.in_place) b.copy(send_buf(a, a.count), data);
  b.next_round();
  if (p == 1) return ok_status();
  const int rem = p - floor_pow2(p);
  Buf tmp = b.scratch(a.count, *a.type);
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      b.send(r + 1, data);
    } else {
      b.recv(r - 1, tmp);
      combine(b, tmp, data, true);
    }
    b.next_round();
  }
  if (int d = doubling_rank(r, rem); d >= 0) {
    for (int mask = 1; mask < floor_pow2(p); mask <<= 1) {
      int peer = real_rank(d ^ mask, rem);
      b.send(peer, data);
      b.recv(peer, tmp);
      combine(b, tmp, data, peer < r);
      b.next_round();
    }
  }
  if (r < 2 * rem) {
    if (r % 2 == 1)
      b.send(r - 1, data);
    else
      b.recv(r + 1, data);
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(allreduce_recursive_doubling, .name = "recursive_doubling",
                          .collective = ::gpurun::coll::Collective::kAllreduce,
                          .usable = ::gpurun::coll::algo::always,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .summary =
                              "recursive doubling, non-powers of two folded; "
                              "(log2 p + 2)(alpha + n beta + n gamma)")
