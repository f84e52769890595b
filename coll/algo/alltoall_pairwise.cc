// alltoall, alltoallv and alltoallw "pairwise": pairwise exchange.
//
// Idea: a rank copies its own block, then in round k = 1 .. p-1 sends its block for rank + k
// and receives the block of rank - k (mod p), so each round is a permutation: every rank sends
// and receives exactly one message. With MPI_IN_PLACE the data to send is first copied aside.
// Requirements: none (any p, any datatypes, any block sizes).
// Cost: (p - 1)(alpha + n beta) for blocks of n. Bandwidth-optimal; Bruck's algorithm does
// log2 p rounds for small blocks.
#include <algorithm>

#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

// One side (send or receive) of an alltoall of any form: block i is counts[i] elements of
// types[i] at byte displs[i] (w form), counts[i] of `type` at element displs[i] (v form), or
// `count` of `type` at element i * count.
struct Side {
  void* base = nullptr;
  std::int64_t count = 0;
  const core::Datatype* type = nullptr;
  const std::int64_t* counts = nullptr;
  const std::int64_t* displs = nullptr;
  const core::Datatype* const* types = nullptr;

  Buf operator[](int i) const {
    auto* at = static_cast<std::byte*>(base);
    if (types != nullptr) return Buf{at + displs[i], counts[i], types[i]};
    if (counts != nullptr) return Buf{at + displs[i] * type->extent(), counts[i], type};
    return Buf{at + i * count * type->extent(), count, type};
  }
};

// A scratch copy of `side`'s blocks with the same layout (MPI_IN_PLACE).
Side copy_aside(ScheduleBuilder& b, const Side& side) {
  bool any = false;
  std::int64_t lo = 0, hi = 0;
  for (int i = 0; i < b.size(); ++i) {
    Buf block = side[i];
    if (i == b.rank() || block.bytes() == 0) continue;
    Span s = span_of(block.count, *block.type);
    std::int64_t at = static_cast<std::byte*>(block.base) - static_cast<std::byte*>(side.base);
    lo = any ? std::min(lo, at + s.lo) : at + s.lo;
    hi = any ? std::max(hi, at + s.lo + s.size) : at + s.lo + s.size;
    any = true;
  }
  Side aside = side;
  if (!any) return aside;  // nothing goes to another rank
  aside.base = b.scratch_bytes(static_cast<std::size_t>(hi - lo)) - lo;
  for (int i = 0; i < b.size(); ++i)
    if (i != b.rank() && side[i].bytes() != 0) b.copy(side[i], aside[i]);
  return aside;
}

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  bool w = a.collective == Collective::kAlltoallw;
  Side send{const_cast<void*>(a.sendbuf), a.count, a.type, a.sendcounts, a.sdispls,
            w ? a.sendtypes : nullptr};
  Side recv{a.recvbuf, a.recvcount, a.recvtype, a.recvcounts, a.rdispls, w ? a.recvtypes : nullptr};
  if (a.in_place) {
    send = copy_aside(b, recv);
  } else {
    b.copy(send[r], recv[r]);
  }
  b.next_round();
  for (int k = 1; k < p; ++k) {
    b.send((r + k) % p, send[(r + k) % p]);
    b.recv((r - k + p) % p, recv[(r - k + p) % p]);
    b.next_round();
  }
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

#define GPURUN_PAIRWISE(id, collective_id, text)                                       \
  GPURUN_REGISTER_ALGORITHM(                                                           \
      id, .name = "pairwise", .collective = ::gpurun::coll::Collective::collective_id, \
      .usable = ::gpurun::coll::algo::host_or_device,                                  \
      .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,         \
      .device_steps = true, .summary = (text))
GPURUN_PAIRWISE(alltoall_pairwise, kAlltoall, "pairwise exchange; (p-1)(alpha + n beta)")
GPURUN_PAIRWISE(alltoallv_pairwise, kAlltoallv, "pairwise exchange; (p-1) alpha + sum(n_i) beta")
GPURUN_PAIRWISE(alltoallw_pairwise, kAlltoallw, "pairwise exchange; (p-1) alpha + sum(n_i) beta")
