#include "coll/shm/check.h"

namespace gpurun::coll::shm {
namespace {

std::uint64_t bytes_of(std::int64_t count, const core::Datatype* type) {
  if (type == nullptr || count <= 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type->size());
}

// Everyone publishes `bytes` and checks everyone's.
CountCheck all_equal(std::uint64_t bytes) {
  return CountCheck{.publish = true,
                    .bytes = bytes,
                    .expect = bytes,
                    .sources = CountCheck::Sources::kAll,
                    .own_mismatch = bytes == kBadCount};
}

// One count for a send block and its receive block: kBadCount where they differ.
std::uint64_t block_count(std::uint64_t send, std::uint64_t recv) {
  return send == recv ? send : kBadCount;
}

CountCheck rooted_from_root(const Args& a, int rank, std::uint64_t root_bytes,
                            std::uint64_t recv_bytes) {
  if (rank == a.root)
    return CountCheck{
        .publish = true, .bytes = root_bytes, .own_mismatch = root_bytes == kBadCount};
  return CountCheck{.expect = recv_bytes, .sources = CountCheck::Sources::kRoot, .root = a.root};
}

std::uint64_t reduce_scatter_bytes(const Args& a, int size) {
  std::uint64_t total = 0;
  for (int r = 0; r < size; ++r) total += bytes_of(a.recvcounts[r], a.type);
  return total;
}

// The v and w forms: the head line of each block carries its count to its readers (buffer.h
// HeadedChunks); here only this rank's own block, from its send to its receive buffer: per-rank
// send counts (and types) in alltoallv, alltoallw and scatterv, per-rank receive counts in all
// but scatterv.
CountCheck own_block_check(const Args& a, int rank) {
  bool per_rank_send = a.collective == Collective::kAlltoallv ||
                       a.collective == Collective::kAlltoallw ||
                       a.collective == Collective::kScatterv;
  bool per_rank_recv = a.collective != Collective::kScatterv;
  if (a.in_place || (per_rank_send && a.sendcounts == nullptr) ||
      (per_rank_recv && a.recvcounts == nullptr))
    return CountCheck{};
  std::uint64_t send = bytes_of(per_rank_send ? a.sendcounts[rank] : a.count,
                                a.sendtypes != nullptr ? a.sendtypes[rank] : a.type);
  std::uint64_t recv = bytes_of(per_rank_recv ? a.recvcounts[rank] : a.recvcount,
                                a.recvtypes != nullptr ? a.recvtypes[rank] : a.recvtype);
  return CountCheck{.own_mismatch = send != recv};
}

CountCheck unsigned_check(const Args& a, int rank, int size) {
  switch (a.collective) {
    case Collective::kBcast: {
      std::uint64_t bytes = bytes_of(a.count, a.type);
      return rooted_from_root(a, rank, bytes, bytes);
    }
    case Collective::kScatter: {
      std::uint64_t recv = bytes_of(a.recvcount, a.recvtype);
      if (rank != a.root) return rooted_from_root(a, rank, 0, recv);
      std::uint64_t send = bytes_of(a.count, a.type);
      return rooted_from_root(a, rank, a.in_place ? send : block_count(send, recv), recv);
    }
    case Collective::kGather: {
      std::uint64_t send = bytes_of(a.count, a.type);
      if (rank != a.root) return CountCheck{.publish = true, .bytes = send};
      std::uint64_t recv = bytes_of(a.recvcount, a.recvtype);
      return CountCheck{.expect = recv,
                        .sources = CountCheck::Sources::kAll,
                        .own_mismatch = !a.in_place && send != recv};
    }
    case Collective::kGatherv:
    case Collective::kScatterv:
      return rank == a.root ? own_block_check(a, rank) : CountCheck{};
    case Collective::kAllgather:
    case Collective::kAlltoall: {
      std::uint64_t recv = bytes_of(a.recvcount, a.recvtype);
      return all_equal(a.in_place ? recv : block_count(bytes_of(a.count, a.type), recv));
    }
    case Collective::kAllgatherv:
    case Collective::kAlltoallv:
    case Collective::kAlltoallw:
      return own_block_check(a, rank);
    case Collective::kReduce:
    case Collective::kAllreduce:
    case Collective::kScan:
    case Collective::kExscan:
    case Collective::kReduceScatterBlock:
      return all_equal(bytes_of(a.count, a.type));
    case Collective::kReduceScatter: {
      CountCheck check = all_equal(a.recvcounts != nullptr ? reduce_scatter_bytes(a, size) : 0);
      // A rank that receives nothing reads nobody's operands: it publishes its count for the
      // others to check and leaves without waiting for theirs.
      if (a.recvcounts != nullptr && a.recvcounts[rank] == 0)
        check.sources = CountCheck::Sources::kNone;
      return check;
    }
    default:
      return CountCheck{};
  }
}

}  // namespace

CountCheck count_check(const Args& a, int rank, int size) {
  CountCheck check = unsigned_check(a, rank, size);
  // Alone, a rank has nobody to publish to or check, but its own blocks still must agree.
  if (size <= 1) return CountCheck{.own_mismatch = check.own_mismatch};
  check.bytes = signed_count(a.collective, check.bytes);
  check.expect = signed_count(a.collective, check.expect);
  return check;
}

}  // namespace gpurun::coll::shm
