// reduce_scatter and reduce_scatter_block "ring".
//
// Idea: in round k = 0 .. p-2 every rank passes the partial result of block r - k - 1 to its
// right neighbour and receives block r - k - 2 from its left one, adding its own input for that
// block; after p - 1 rounds the block arriving is its own (r), fully reduced. Round 0 sends the
// input itself; the partial results travel through two scratch blocks used in turn, and the
// last one is received straight into the receive buffer (not in place).
// Requirements: a commutative op (each block is combined in its own rotated rank order).
// Cost: (p-1) alpha + n (p-1)/p (beta + gamma) for n the whole vector: bandwidth-optimal at any
// p, latency linear in p (recursive halving does log2 p rounds). Scratch: 2 n/p.
#include <algorithm>

#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

bool usable(const Args& a) { return host_or_device(a) && a.op != nullptr && a.op->commutative(); }

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  std::vector<std::int64_t> counts(p), displs(p + 1, 0);
  std::int64_t largest = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = a.collective == Collective::kReduceScatterBlock ? a.count : a.recvcounts[i];
    displs[i + 1] = displs[i] + counts[i];
    largest = std::max(largest, counts[i]);
  }
  Buf input = send_buf(a, displs[p]);
  Buf mine{a.recvbuf, counts[r], a.type};
  auto block = [&](int i) { return ((i % p) + p) % p; };
  auto in = [&](int i) { return input.slice(displs[block(i)], counts[block(i)]); };
  if (p == 1) {
    if (!a.in_place) b.copy(in(0), mine);
    return ok_status();
  }
  Buf tmp[2] = {b.scratch(largest, *a.type), b.scratch(largest, *a.type)};
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  Buf sending = in(r - 1);
  for (int k = 0; k < p - 1; ++k) {
    const int j = block(r - k - 2);
    const bool last = k == p - 2;  // j == r
    Buf into = last && !a.in_place ? mine : tmp[k % 2].slice(0, counts[j]);
    b.send(right, sending);
    b.recv(left, into);
    b.reduce(in(j), into);
    if (last && a.in_place) b.copy(into, mine);
    b.next_round();
    sending = into;
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(reduce_scatter_ring, .name = "ring",
                          .collective = ::gpurun::coll::Collective::kReduceScatter,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "ring, commutative ops; (p-1) alpha + n(p-1)/p (beta + gamma)")
GPURUN_REGISTER_ALGORITHM(reduce_scatter_block_ring, .name = "ring",
                          .collective = ::gpurun::coll::Collective::kReduceScatterBlock,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "ring, commutative ops; (p-1) alpha + n(p-1)/p (beta + gamma)")
