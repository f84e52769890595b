// The shared segment of one communicator's shared-memory collectives, and the words in it.
//
//   [Header] [RankControl x size] [slot x size]
//
// Every part is written by one rank only: rank r writes its RankControl and its slot, and the
// others only read them, so no cache line has two writers (RankControl is 512 bytes, so that
// the adjacent-line prefetcher pairs lines of one writer). A RankControl holds:
// - four flag lines (by the collective's sequence number modulo kFlagLines): a 64-bit flag and
//   56 bytes of data in one cache line, so that a reader who sees the flag has the data with
//   it. Small collectives (barrier, 8-byte allreduce) move nothing else. A writer reuses a line
//   once its readers are done with the collective of four numbers before; with two, the root
//   of back-to-back bcasts or reduces read the others' counters at nearly every call (an
//   MPI_Bcast loop, -np 2, 8 B: 262-273 -> 185-189 ns a call; MPI_Reduce 257-293 -> 209-231;
//   osu_bcast 0.32 -> 0.28 us, while osu_barrier went 0.21 -> 0.23, 9-15 interleaved runs).
// - the step counter: how far the rank has come, as step_value(seq, step), which only grows.
//   Larger collectives number their steps (chunk k posted, chunk k consumed); a rank waits
//   for the steps of others, and a writer reuses a part of its slot once every reader's
//   counter shows it is done with what was there. At the end of collective `seq` a rank
//   posts step_value(seq, kEndStep): it has read everything it needed from collective seq.
//   A rank that leaves the communicator (MPI_Comm_free, MPI_Finalize) posts kLeftStep: it
//   reads nothing more, and runs no collective it has not run yet (Arena::leave).
// - the count line: the byte count of each of its last four collectives, which the others
//   compare with theirs (coll/shm/check.h), so that counts that differ between ranks give an
//   error instead of a hang.
// Sequence numbers never reset, so back-to-back collectives need no barrier between them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gpurun::coll::shm {

inline constexpr std::size_t kLineBytes = 64;
inline constexpr std::size_t kInlineBytes = 56;  // data bytes in a flag line
inline constexpr std::size_t kPageBytes = 4096;
inline constexpr std::uint64_t kMagic = 0x6770757275'6e6373ull;  // "gpuruncs"

// Steps within one collective: 24 bits (16 M chunks of a message); sequence numbers above.
inline constexpr int kStepBits = 24;
inline constexpr std::uint64_t kEndStep = (std::uint64_t{1} << kStepBits) - 1;
constexpr std::uint64_t step_value(std::uint64_t seq, std::uint64_t step) {
  return (seq << kStepBits) | step;
}

// A flag: the sequence number of the collective that wrote the line in its low kSeqBits, and
// above them the writer's byte count + 1 (0: none given), so that a reader checks the count
// (coll/shm/check.h) with no other line to load.
inline constexpr int kSeqBits = 40;
inline constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kSeqBits) - 1;
inline constexpr std::uint64_t kMaxLineCount = (std::uint64_t{1} << (64 - kSeqBits)) - 2;
// The step counter of a rank that left: past the end of every collective.
inline constexpr std::uint64_t kLeftStep = step_value(kSeqMask, kEndStep);

struct alignas(kLineBytes) FlagLine {
  std::atomic<std::uint64_t> flag;
  std::byte data[kInlineBytes];
};
static_assert(sizeof(FlagLine) == kLineBytes);

// The head of a v-form block's first piece in a slot (alltoallv, scatterv): the block's byte
// count, and the sequence number of the collective that wrote it, stored last, so that a
// reader who sees it has the count and the piece's data. A block of at most kHeadBytes
// travels in the head itself (HeadedChunks::skip): one line, one hop.
inline constexpr std::size_t kHeadBytes = 48;
struct alignas(kLineBytes) HeadLine {
  std::atomic<std::uint64_t> seq;
  std::uint64_t bytes;
  std::byte data[kHeadBytes];
};
static_assert(sizeof(HeadLine) == kLineBytes);

// What a rank publishes of collective `seq` before its first post there: the byte count the
// others check theirs against (coll/shm/check.h), in entry seq % kCountEntries.
struct CountEntry {
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint64_t> bytes;
};
inline constexpr std::uint64_t kCountEntries = 4;

inline constexpr std::uint64_t kFlagLines = 4;

// 256-byte aligned (where the segment puts it, after the Header), 512 bytes long.
struct alignas(256) RankControl {
  FlagLine line[kFlagLines];  // by the sequence number modulo kFlagLines
  alignas(kLineBytes) std::atomic<std::uint64_t> step;
  alignas(kLineBytes) CountEntry count[kCountEntries];
};
static_assert(sizeof(RankControl) == 512);

struct alignas(256) Header {
  std::uint64_t magic;
  std::uint32_t size;  // ranks
  std::uint32_t reserved;
  std::uint64_t slot_bytes;
  std::uint64_t total_bytes;
};
static_assert(sizeof(Header) % alignof(RankControl) == 0);  // each RankControl aligned

struct Layout {
  int size = 0;
  std::size_t slot_bytes = 0;  // a multiple of kPageBytes

  std::size_t control_offset() const { return sizeof(Header); }
  std::size_t slots_offset() const {
    std::size_t end = control_offset() + static_cast<std::size_t>(size) * sizeof(RankControl);
    return (end + kPageBytes - 1) / kPageBytes * kPageBytes;
  }
  std::size_t total_bytes() const {
    return slots_offset() + static_cast<std::size_t>(size) * slot_bytes;
  }
  static Header* header(void* base) { return static_cast<Header*>(base); }
  RankControl* control(void* base, int rank) const {
    return reinterpret_cast<RankControl*>(static_cast<std::byte*>(base) + control_offset()) + rank;
  }
  std::byte* slot(void* base, int rank) const {
    return static_cast<std::byte*>(base) + slots_offset() +
           static_cast<std::size_t>(rank) * slot_bytes;
  }
  // Writes the header of a zero-filled segment (the creator does, before anyone maps it).
  void init(void* base) const {
    Header* h = header(base);
    h->magic = kMagic;
    h->size = static_cast<std::uint32_t>(size);
    h->slot_bytes = slot_bytes;
    h->total_bytes = total_bytes();
  }
  // Whether `base`, of `bytes` mapped, holds a segment of this layout.
  bool matches(const void* base, std::size_t bytes) const {
    const auto* h = static_cast<const Header*>(base);
    return bytes >= total_bytes() && h->magic == kMagic &&
           h->size == static_cast<std::uint32_t>(size) && h->slot_bytes == slot_bytes &&
           h->total_bytes == total_bytes();
  }
};

}  // namespace gpurun::coll::shm
