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

// What recvcounts gives for each source.
std::vector<std::uint64_t> received_bytes(const Args& a, int size) {
  std::vector<std::uint64_t> each(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r)
    each[static_cast<std::size_t>(r)] = bytes_of(a.recvcounts[r], a.recvtype);
  return each;
}

// Each rank publishes its own block's count; it expects of source r what recvcounts[r] gives.
CountCheck allgatherv_check(const Args& a, int rank, int size) {
  if (a.recvcounts == nullptr) return CountCheck{};
  std::uint64_t recv = bytes_of(a.recvcounts[rank], a.recvtype);
  CountCheck c = all_equal(a.in_place ? recv : block_count(bytes_of(a.count, a.type), recv));
  c.expect_each = received_bytes(a, size);
  return c;
}

// Gatherv: the root compares each rank's count with its receive count in the head of that
// rank's block (gather.cc); here only its own send and receive counts.
CountCheck gatherv_check(const Args& a, int rank) {
  if (rank != a.root || a.recvcounts == nullptr) return CountCheck{};
  std::uint64_t send = bytes_of(a.count, a.type);
  return CountCheck{.own_mismatch =
                        !a.in_place && send != bytes_of(a.recvcounts[rank], a.recvtype)};
}

}  // namespace

CountCheck count_check(const Args& a, int rank, int size) {
  if (size <= 1) return CountCheck{};
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
      return gatherv_check(a, rank);
    case Collective::kAllgather:
    case Collective::kAlltoall: {
      std::uint64_t recv = bytes_of(a.recvcount, a.recvtype);
      return all_equal(a.in_place ? recv : block_count(bytes_of(a.count, a.type), recv));
    }
    case Collective::kAllgatherv:
      return allgatherv_check(a, rank, size);
    case Collective::kReduce:
    case Collective::kAllreduce:
    case Collective::kReduceScatterBlock:
      return all_equal(bytes_of(a.count, a.type));
    case Collective::kReduceScatter:
      return all_equal(a.recvcounts != nullptr ? reduce_scatter_bytes(a, size) : 0);
    default:
      return CountCheck{};
  }
}

}  // namespace gpurun::coll::shm
