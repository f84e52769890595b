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
// for small n; moves n per round, so large n wants reduce-scatter + allgather. With a
// commutative op (not in place) the first exchange sends the input itself and receives into
// the result, so the input is never copied first.
#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

// Rank of the doubling among p' ranks (-1 for an even rank of a folded pair), and back.
int doubling_rank(int r, int rem) { return r < 2 * rem ? (r % 2 == 1 ? r / 2 : -1) : r - rem; }
int real_rank(int d, int rem) { return d < rem ? 2 * d + 1 : d + rem; }

// The rank's partial result: at first (a commutative op, not in place) still the send buffer,
// which the first exchange reads directly, receiving the partner's data where the result goes;
// after that, `data`, combined with what arrives in `tmp`.
struct Partial {
  ScheduleBuilder& b;
  Buf data, tmp;  // tmp: made on first use
  Buf mine;       // where the partial result is now
  bool commutative;

  // Receives `peer`'s partial result and combines it, lower rank on the left.
  void combine_from(int peer) {
    if (mine.base != data.base) {  // data = mine op peer's (commutative)
      b.recv(peer, data);
      b.reduce(mine, data);
      mine = data;
      return;
    }
    if (tmp.type == nullptr) tmp = b.scratch(data.count, *data.type);
    b.recv(peer, tmp);
    if (peer < b.rank() || commutative) {
      b.reduce(tmp, data);
    } else {
      b.reduce(data, tmp);
      b.copy(tmp, data);
    }
  }
};

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  Buf data = recv_buf(a, a.count, a.type);
  bool direct = !a.in_place && a.op->commutative() && p > 1;
  Partial x{b, data, Buf{}, direct ? send_buf(a, a.count) : data, a.op->commutative()};
  if (!direct && !a.in_place) b.copy(send_buf(a, a.count), data);
  b.next_round();
  if (p == 1) return ok_status();
  const int rem = p - floor_pow2(p);
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      b.send(r + 1, x.mine);
    } else {
      x.combine_from(r - 1);
    }
    b.next_round();
  }
  if (int d = doubling_rank(r, rem); d >= 0) {
    for (int mask = 1; mask < floor_pow2(p); mask <<= 1) {
      int peer = real_rank(d ^ mask, rem);
      b.send(peer, x.mine);
      x.combine_from(peer);
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
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "recursive doubling, non-powers of two folded; "
                              "(log2 p + 2)(alpha + n beta + n gamma)")
