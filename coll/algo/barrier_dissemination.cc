// barrier "dissemination" (Hensgen, Finkel and Manber).
//
// Idea: in round k every rank signals rank + 2^k and waits for rank - 2^k (mod p). After
// ceil(log2 p) rounds every rank has heard, directly or not, from every other one.
// Requirements: none (any p, no extra step for non-powers of two).
// Cost: ceil(log2 p) alpha; zero-byte messages.
#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

Status plan(ScheduleBuilder& b) {
  const int p = b.size(), r = b.rank();
  for (int k = 0; (1 << k) < p; ++k) {
    b.send((r + (1 << k)) % p, packed(nullptr, 0));
    b.recv((r - (1 << k) + p) % p, packed(nullptr, 0));
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(barrier_dissemination, .name = "dissemination",
                          .collective = ::gpurun::coll::Collective::kBarrier,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true, .summary = "dissemination; ceil(log2 p) alpha")
