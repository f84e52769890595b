// allreduce "ring": a ring reduce-scatter, then a ring allgather.
//
// Idea: the vector is cut into p blocks. In each of p - 1 rounds every rank passes one block
// to its right neighbour and folds the block arriving from its left into its own copy; after
// them rank r holds block r + 1 fully reduced. In p - 1 more rounds the finished blocks go
// round the ring, straight into place. Each rank sends and receives 2 n (p-1)/p bytes and
// reduces n (p-1)/p, whatever p: bandwidth-optimal, so the choice for large vectors.
// Requirements: a commutative op (each block is combined in its own rotated rank order).
// Cost: 2 (p-1) alpha + 2 n (p-1)/p beta + n (p-1)/p gamma. No copy of the input and no
// scratch, except in place (one block).
#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

bool usable(const Args& a) { return host_or_device(a) && a.op != nullptr && a.op->commutative(); }

// Block i of `whole` (count elements): the first count % p blocks hold one element more.
Buf block_of(const Buf& whole, int i, int p) {
  i = ((i % p) + p) % p;
  const std::int64_t base = whole.count / p, extra = whole.count % p;
  return whole.slice(i * base + std::min<std::int64_t>(i, extra), base + (i < extra ? 1 : 0));
}

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  Buf data = recv_buf(a, a.count, a.type), input = send_buf(a, a.count);
  if (p == 1) {
    if (!a.in_place) b.copy(input, data);
    return ok_status();
  }
  // Not in place, each block of `data` is first written by the receive of the partner's share
  // and then takes this rank's input from `input`: no copy of the input, no scratch. In
  // place, the input is in `data` and partners' shares land in a scratch block first.
  Buf tmp = a.in_place ? b.scratch(block_of(data, 0, p).count, *a.type) : Buf{};
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    Buf in = block_of(data, r - k - 1, p);
    b.send(right, k == 0 && !a.in_place ? block_of(input, r, p) : block_of(data, r - k, p));
    if (a.in_place) {
      b.recv(left, tmp.slice(0, in.count));
      b.reduce(tmp.slice(0, in.count), in);
    } else {
      b.recv(left, in);
      b.reduce(block_of(input, r - k - 1, p), in);
    }
    b.next_round();
  }
  for (int k = 0; k < p - 1; ++k) {
    b.send(right, block_of(data, r + 1 - k, p));
    b.recv(left, block_of(data, r - k, p));
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(allreduce_ring, .name = "ring",
                          .collective = ::gpurun::coll::Collective::kAllreduce,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "ring reduce-scatter + ring allgather, commutative ops; "
                              "2(p-1) alpha + 2n(p-1)/p beta + n(p-1)/p gamma")
