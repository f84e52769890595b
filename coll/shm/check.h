// Counts that differ between ranks: what each shared-memory collective publishes and checks.
//
// Before its first post of collective `seq`, a rank publishes one byte count in its count line
// (layout.h: entry seq % kCountEntries). The ranks it reads from are its sources: everyone
// (barrier aside, allgather, alltoall and the reductions: every rank publishes the same kind
// of count, so if any two differ, every rank sees one that differs from its own),
// the root (bcast, scatter: the root publishes, the others check) or nobody (the root of a
// bcast or scatter, the non-roots of a gather, which publish for the root to check; so do the
// non-roots of a reduce that only post their operand, a flag line or one direct chunk, and
// wait for no one's data: Reduction::plan). The v forms (alltoallv, scatterv, gatherv,
// allgatherv) publish nothing here: the head line of each block carries its count to its
// reader (buffer.h HeadedChunks), which compares it with its receive count for that source.
// A reader compares a source's count with what it expects whenever it would wait for that
// source, and once more when it has moved all its data (the data of a source with another
// count may have been there already, or its end may have let this rank through); on a
// mismatch it stops, reports the error (MPI_ERR_TRUNCATE when a source has more than this
// rank expects, MPI_ERR_ARG otherwise) and posts its end, so that nobody waits for it.
// A rank whose own send and receive counts differ publishes kBadCount and fails at once.
// A count carries its collective with it (signed_count): ranks that run different collectives
// in one call (bcast on one, reduce on another) see counts that differ too, whatever their
// bytes.
// A source whose step counter has passed the collective with no count published ran it with
// another algorithm (its count chose one: coll/select_guard.h) or not at all: a mismatch too
// (kSkippedCount).
// Entries are reused four collectives later, once every member has finished the collective
// that used the entry (Arena::publish_count), so a reader always finds the entry of its
// collective.
#pragma once

#include <cstdint>
#include <limits>

#include "coll/algorithm.h"

namespace gpurun::coll::shm {

inline constexpr std::uint64_t kBadCount = std::numeric_limits<std::uint64_t>::max();
// What a reader takes as the count of a source whose step counter passed the collective
// without publishing one: the source ran the call with another algorithm (ShmOp::source_count).
inline constexpr std::uint64_t kSkippedCount = kBadCount - 1;

struct CountCheck {
  enum class Sources : std::uint8_t { kNone, kAll, kRoot };
  bool publish = false;      // this rank publishes `bytes`
  std::uint64_t bytes = 0;   // what it publishes
  std::uint64_t expect = 0;  // what it expects of each source
  Sources sources = Sources::kNone;
  int root = 0;
  bool own_mismatch = false;  // this rank's send and receive counts differ
};

// What rank `rank` of `size` publishes and checks in the collective of `args` (counts signed
// with the collective).
CountCheck count_check(const Args& args, int rank, int size);

// A byte count with its collective in the low bits; kBadCount and kSkippedCount stay as they are.
inline constexpr int kCollectiveBits = 5;
static_assert(static_cast<int>(Collective::kCount) <= (1 << kCollectiveBits));
constexpr std::uint64_t signed_count(Collective collective, std::uint64_t bytes) {
  if (bytes >= kSkippedCount) return bytes;
  return bytes << kCollectiveBits | static_cast<std::uint64_t>(collective);
}
constexpr std::uint64_t count_bytes(std::uint64_t signed_bytes) {
  return signed_bytes >> kCollectiveBits;
}
constexpr Collective count_collective(std::uint64_t signed_bytes) {
  return static_cast<Collective>(signed_bytes & ((1u << kCollectiveBits) - 1));
}

}  // namespace gpurun::coll::shm
