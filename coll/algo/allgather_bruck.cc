// allgather "bruck" (Bruck, Ho, Kipnis, Upfal and Weathersby).
//
// Idea: every rank keeps the blocks it has, packed, starting with its own: after round k it
// holds the 2^(k+1) blocks of ranks me .. me + 2^(k+1) - 1. In round k it sends the first
// min(2^k, p - 2^k) of them to rank me - 2^k and appends as many from rank me + 2^k. A last
// local pass unpacks block i into the place of rank me + i.
// Requirements: none (any p, any datatypes; the blocks travel packed).
// Cost: ceil(log2 p) alpha + (p-1) n beta, plus one local pass over the p n received: the
// choice for small blocks, where the ring's p - 1 rounds cost more than the copies.
#include "coll/algo/common.h"
#include "coll/algo/phases.h"
#include "coll/basic.h"

namespace gpurun::coll::algo {
namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  Blocks all{a.recvbuf, a.recvtype, a.recvcount};
  const std::int64_t bytes = a.recvcount * a.recvtype->size();
  std::byte* packed_blocks = b.scratch_bytes(static_cast<std::size_t>(bytes * p));
  auto run = [&](int first, int n) { return packed(packed_blocks + first * bytes, n * bytes); };
  b.copy(a.in_place ? all[r] : send_buf(a, a.count), run(0, 1));
  b.next_round();
  for (int k = 0; k < plan::allgather_rounds(p); ++k) {
    plan::BruckRound x = plan::allgather_round(r, p, k);
    b.send(x.to, run(0, x.count));
    b.recv(x.from, run(x.offset, x.count));
    b.next_round();
  }
  for (int i = 0; i < p; ++i)
    if (i != 0 || !a.in_place) b.copy(run(i, 1), all[(r + i) % p]);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(allgather_bruck, .name = "bruck",
                          .collective = ::gpurun::coll::Collective::kAllgather,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "Bruck; ceil(log2 p) alpha + (p-1) n beta + a local pass")
