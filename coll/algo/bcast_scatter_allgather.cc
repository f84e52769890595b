// bcast "scatter_allgather" (van de Geijn): a binomial scatter of p blocks from the root, then
// an allgather of the blocks.
//
// Idea: the vector is cut into p blocks of whole elements, block j going to the rank j places
// after the root (relative rank j). The scatter follows the binomial tree of bcast "binomial",
// but a rank forwards only its subtree's blocks (a contiguous range), so the root sends
// n (p-1)/p instead of n log2 p. The allgather is recursive doubling when p is a power of two
// (relative ranks exchange their aligned ranges of blocks) and a ring otherwise; the root,
// which has every block, only sends in it, so counts that differ between ranks are reported by
// the ranks that receive, never by the root (as with a tree). Every message goes straight
// into its place in the buffer: no scratch, no copies.
// Requirements: none (any p, any datatype; blocks may be empty when count < p).
// Cost: scatter ceil(log2 p) alpha + n (p-1)/p beta; allgather log2 p alpha (p = 2^k) or
// (p-1) alpha, + n (p-1)/p beta. About 2 n beta against binomial's n log2 p beta at the
// root: the choice for large messages on more than a few ranks.
#include <algorithm>

#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

struct Plan {
  ScheduleBuilder& b;
  Buf data;
  int p, vr, root;

  int real(int v) const { return (((v % p) + p) % p + root) % p; }
  std::int64_t start(int j) const {  // first element of block j (j = p: the end)
    const std::int64_t base = data.count / p, extra = data.count % p;
    return j * base + std::min<std::int64_t>(j, extra);
  }
  Buf blocks(int first, int last) const {  // blocks [first, last), within 0 .. p
    first = std::clamp(first, 0, p);
    last = std::clamp(last, first, p);
    return data.slice(start(first), start(last) - start(first));
  }

  void scatter() {
    const int low = vr == 0 ? static_cast<int>(std::bit_ceil(static_cast<unsigned>(p))) : vr & -vr;
    if (vr != 0) b.recv(real(vr & (vr - 1)), blocks(vr, vr + low));
    b.next_round();
    for (int m = low / 2; m >= 1; m /= 2)
      if (vr + m < p) b.send(real(vr + m), blocks(vr + m, vr + 2 * m));
    b.next_round();
  }
  void allgather_doubling() {
    for (int m = 1; m < p; m <<= 1) {
      const int mine = vr & ~(m - 1), theirs = (vr ^ m) & ~(m - 1);
      if ((vr ^ m) != 0) b.send(real(vr ^ m), blocks(mine, mine + m));
      if (vr != 0) b.recv(real(vr ^ m), blocks(theirs, theirs + m));
      b.next_round();
    }
  }
  void allgather_ring() {
    for (int k = 0; k < p - 1; ++k) {
      const int out = ((vr - k) % p + p) % p, in = ((vr - k - 1) % p + p) % p;
      if (vr != p - 1) b.send(real(vr + 1), blocks(out, out + 1));
      if (vr != 0) b.recv(real(vr - 1), blocks(in, in + 1));
      b.next_round();
    }
  }
};

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size();
  if (p == 1) return ok_status();
  Plan x{b, Buf{a.recvbuf, a.count, a.type}, p, (b.rank() - a.root + p) % p, a.root};
  x.scatter();
  if (std::has_single_bit(static_cast<unsigned>(p))) {
    x.allgather_doubling();
  } else {
    x.allgather_ring();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(bcast_scatter_allgather, .name = "scatter_allgather",
                          .collective = ::gpurun::coll::Collective::kBcast,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "binomial scatter + recursive doubling (2^k ranks) or ring "
                              "allgather; (log2 p + p-1) alpha + 2n(p-1)/p beta")
