// allgather and allgatherv "recursive_doubling".
//
// Idea: with p a power of two, after round k every rank holds the blocks of its aligned group
// of 2^(k+1) ranks; in round k it swaps the 2^k blocks of its half with rank r XOR 2^k,
// straight into place. Otherwise, with p' = floor_pow2(p) and rem = p - p', the first 2 rem
// ranks pair up: the even one hands its block to the odd one and waits; the p' remaining ranks
// double over groups of blocks (a pair's two blocks form one group, so groups stay adjacent);
// at the end each odd rank hands its partner everything. allgather's blocks of a range of
// ranks are adjacent in the receive buffer, so a range is one message; allgatherv sends its
// blocks one message each (they match in posting order).
// Requirements: none (any p, any datatypes).
// Cost: p = 2^k: log2 p alpha + (p-1) n beta for blocks of n, no local pass (unlike Bruck) and
// no scratch. Otherwise 2 alpha + (p - 1) n beta more, for the pairs: Bruck or the ring are
// better there, and the tuning table should keep this algorithm to powers of two.
#include <bit>

#include "coll/algo/common.h"
#include "coll/algo/halving.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {
namespace {

struct Plan {
  ScheduleBuilder& b;
  Blocks all;
  bool v;

  // Blocks of ranks [lo, hi) to or from `peer`: one message for allgather, one per block for
  // allgatherv; nothing for an empty range.
  void move(bool out, int peer, int lo, int hi) {
    if (lo >= hi) return;
    if (!v) {
      Buf whole{all.base, 0, all.type};
      Buf range = whole.slice(lo * all.count, (hi - lo) * all.count);
      out ? b.send(peer, range) : b.recv(peer, range);
      return;
    }
    for (int i = lo; i < hi; ++i) out ? b.send(peer, all[i]) : b.recv(peer, all[i]);
  }
};

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  const int p2 = floor_pow2(p), rem = p - p2;
  Plan x{b, Blocks{a.recvbuf, a.recvtype, a.recvcount, a.recvcounts, a.rdispls},
         a.collective == Collective::kAllgatherv};
  if (!a.in_place) b.copy(send_buf(a, a.count), x.all[r]);
  b.next_round();
  auto first = [&](int g) { return g < rem ? 2 * g : g + rem; };  // first rank of group g
  const bool paired = r < 2 * rem, even = paired && r % 2 == 0;
  if (paired) {
    x.move(even, even ? r + 1 : r - 1, even ? r : r - 1, even ? r + 1 : r);
    b.next_round();
  }
  if (!even) {
    const int d = doubling_rank(r, rem);
    for (int m = 1; m < p2; m <<= 1) {
      const int peer = real_rank(d ^ m, rem), mine = d & ~(m - 1), theirs = (d ^ m) & ~(m - 1);
      x.move(true, peer, first(mine), first(mine + m));
      x.move(false, peer, first(theirs), first(theirs + m));
      b.next_round();
    }
  }
  if (paired) {  // the odd rank hands its partner all but the partner's own block
    const int partner = even ? r + 1 : r - 1, own = even ? r : r - 1;
    x.move(!even, partner, 0, own);
    x.move(!even, partner, own + 1, p);
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(allgather_recursive_doubling, .name = "recursive_doubling",
                          .collective = ::gpurun::coll::Collective::kAllgather,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "recursive doubling (pairs folded for p != 2^k); "
                              "log2 p alpha + (p-1) n beta")
GPURUN_REGISTER_ALGORITHM(allgatherv_recursive_doubling, .name = "recursive_doubling",
                          .collective = ::gpurun::coll::Collective::kAllgatherv,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "recursive doubling (pairs folded for p != 2^k); "
                              "(p-1) alpha + sum(n_i) beta in log2 p rounds")
