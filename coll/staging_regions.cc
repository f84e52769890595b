// The regions of a call's buffers that host staging copies (coll/staging.h), per collective.
#include <algorithm>
#include <limits>

#include "coll/schedule.h"
#include "coll/staging.h"

namespace gpurun::coll {
namespace {

// Accumulates the union of byte ranges [lo, lo + size).
struct Extent {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();

  void add(std::int64_t offset, std::int64_t count, const core::Datatype* type) {
    if (type == nullptr || count <= 0 || type->size() == 0) return;
    Span s = span_of(count, *type);
    lo = std::min(lo, offset + s.lo);
    hi = std::max(hi, offset + s.lo + s.size);
  }
  std::optional<Region> region(bool input, bool output) const {
    if (hi <= lo) return std::nullopt;
    return Region{lo, hi - lo, input, output};
  }
};

Extent blocks(std::int64_t n, std::int64_t count, const core::Datatype* type) {
  Extent e;
  e.add(0, n * count, type);
  return e;
}

// Blocks at displacements in elements of `type` (v forms) or bytes (w forms: one type each).
Extent varying(int n, const std::int64_t* counts, const std::int64_t* displs,
               const core::Datatype* type, const core::Datatype* const* types) {
  Extent e;
  if (counts == nullptr || displs == nullptr) return e;
  for (int i = 0; i < n; ++i) {
    const core::Datatype* t = types != nullptr ? types[i] : type;
    if (t == nullptr) continue;
    std::int64_t offset = types != nullptr ? displs[i] : displs[i] * t->extent();
    e.add(offset, counts[i], t);
  }
  return e;
}

std::int64_t sum(const std::int64_t* counts, int n) {
  std::int64_t total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += counts[i];
  return total;
}

struct Extents {
  Extent send, recv;
};

// The send and receive extents of a call (any buffer may then turn out absent).
Extents extents_of(const Args& a) {
  int p = a.comm->size();
  int in = a.indegree, out = a.outdegree;
  switch (a.collective) {
    case Collective::kBarrier:
      return {};
    case Collective::kBcast:
    case Collective::kReduce:
    case Collective::kAllreduce:
    case Collective::kScan:
    case Collective::kExscan:
      return {blocks(1, a.count, a.type), blocks(1, a.count, a.type)};
    case Collective::kReduceScatterBlock:
      return {blocks(p, a.count, a.type), blocks(a.in_place ? p : 1, a.count, a.type)};
    case Collective::kReduceScatter: {
      std::int64_t mine = a.recvcounts != nullptr ? a.recvcounts[a.comm->rank()] : 0;
      std::int64_t all = sum(a.recvcounts, p);
      return {blocks(1, all, a.type), blocks(1, a.in_place ? all : mine, a.type)};
    }
    case Collective::kGather:
    case Collective::kAllgather:
      return {blocks(1, a.count, a.type), blocks(p, a.recvcount, a.recvtype)};
    case Collective::kGatherv:
    case Collective::kAllgatherv:
      return {blocks(1, a.count, a.type), varying(p, a.recvcounts, a.rdispls, a.recvtype, nullptr)};
    case Collective::kScatter:
      return {blocks(p, a.count, a.type), blocks(1, a.recvcount, a.recvtype)};
    case Collective::kScatterv:
      return {varying(p, a.sendcounts, a.sdispls, a.type, nullptr),
              blocks(1, a.recvcount, a.recvtype)};
    case Collective::kAlltoall:
      return {blocks(p, a.count, a.type), blocks(p, a.recvcount, a.recvtype)};
    case Collective::kAlltoallv:
      return {varying(p, a.sendcounts, a.sdispls, a.type, nullptr),
              varying(p, a.recvcounts, a.rdispls, a.recvtype, nullptr)};
    case Collective::kAlltoallw:
      return {varying(p, a.sendcounts, a.sdispls, nullptr, a.sendtypes),
              varying(p, a.recvcounts, a.rdispls, nullptr, a.recvtypes)};
    case Collective::kNeighborAllgather:
      return {blocks(1, a.count, a.type), blocks(in, a.recvcount, a.recvtype)};
    case Collective::kNeighborAllgatherv:
      return {blocks(1, a.count, a.type),
              varying(in, a.recvcounts, a.rdispls, a.recvtype, nullptr)};
    case Collective::kNeighborAlltoall:
      return {blocks(out, a.count, a.type), blocks(in, a.recvcount, a.recvtype)};
    case Collective::kNeighborAlltoallv:
      return {varying(out, a.sendcounts, a.sdispls, a.type, nullptr),
              varying(in, a.recvcounts, a.rdispls, a.recvtype, nullptr)};
    case Collective::kNeighborAlltoallw:
      return {varying(out, a.sendcounts, a.sdispls, nullptr, a.sendtypes),
              varying(in, a.recvcounts, a.rdispls, nullptr, a.recvtypes)};
    case Collective::kCount:
      break;
  }
  return {};
}

// Whether the call writes every byte of its receive region (so it need not be copied in):
// contiguous blocks that tile it, not in place.
bool overwrites_recv(const Args& a) {
  if (a.in_place || a.recvbuf == a.sendbuf) return false;
  switch (a.collective) {
    case Collective::kReduce:
    case Collective::kAllreduce:
    case Collective::kScan:
    case Collective::kReduceScatterBlock:
    case Collective::kReduceScatter:
      return a.type != nullptr && a.type->contiguous();
    case Collective::kGather:
    case Collective::kAllgather:
    case Collective::kScatter:
    case Collective::kAlltoall:
      return a.recvtype != nullptr && a.recvtype->contiguous();
    default:  // bcast: recvbuf is the input; exscan: rank 0's recvbuf stays; v/w: gaps
      return false;
  }
}

}  // namespace

StagingRegions staging_regions(const Args& a) {
  Extents e = extents_of(a);
  StagingRegions r;
  if (a.recvbuf != nullptr) r.recv = e.recv.region(!overwrites_recv(a), true);
  if (a.sendbuf == nullptr || a.collective == Collective::kBcast) return r;
  if (a.sendbuf == a.recvbuf) {  // in place: one buffer, read and written
    if (r.recv) {
      Extent both = e.recv;
      both.lo = std::min(both.lo, e.send.lo);
      both.hi = std::max(both.hi, e.send.hi);
      r.recv = both.region(true, true);
    }
    return r;
  }
  r.send = e.send.region(true, false);
  return r;
}

}  // namespace gpurun::coll
