// Single copy by CMA inside the shared-memory collectives: instead of copying its blocks into
// its slot for the others to copy out, a rank publishes where its blocks lie (a Source, in its
// flag line), and every reader copies its block straight from the writer's buffer into its
// own with process_vm_readv (runtime/transport/shm/cma.h): one copy of each byte where the
// slots take two, and no round per slot's worth of data. The writer waits until its readers
// have posted that they are done before it returns, since its buffer is the caller's again.
//
// The algorithms that offer this run it where the setup found that every member may read
// every other's memory by CMA (Arena::cma, agreed by all), and through the slots otherwise.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "coll/shm/buffer.h"
#include "coll/shm/layout.h"
#include "runtime/base/status.h"

namespace gpurun::coll::shm {

// Where a writer's blocks lie in its process: block i at base + i * stride, packed.
struct Source {
  std::uint64_t base = 0;
  std::uint64_t stride = 0;
};

// Marks a flag line that holds what a single-copy algorithm published for collective `seq`,
// so that a reader never takes a member's line written by another algorithm (the ranks' counts
// chose different ones: an erroneous call) for an address.
inline std::uint64_t line_check(std::uint64_t seq) { return 0x676d612d'63686b00ull ^ seq; }

// The step a reader posts once it has read every block it takes in collective `seq`.
inline constexpr std::uint64_t kReadStep = 1;

// The blocks as the writer publishes them: where they lie when each is contiguous and they
// follow each other at one stride (a single block: any), else packed into `copy` (also with
// `must_copy`: MPI_IN_PLACE, where the writer's buffer takes the others' blocks meanwhile).
Source source_of(const std::vector<Buffer>& blocks, bool must_copy, std::vector<std::byte>& copy);

inline void put_source(FlagLine& line, std::uint64_t seq, const Source& s) {
  std::uint64_t check = line_check(seq);
  static_assert(sizeof(Source) + sizeof check <= kInlineBytes);
  std::memcpy(line.data, &s, sizeof s);
  std::memcpy(line.data + sizeof s, &check, sizeof check);
}
// False when the line holds no source published for collective `seq`.
inline bool get_source(const FlagLine& line, std::uint64_t seq, Source& s) {
  std::uint64_t check = 0;
  std::memcpy(&s, line.data, sizeof s);
  std::memcpy(&check, line.data + sizeof s, sizeof check);
  return check == line_check(seq);
}
// Where a rank is in a single-copy exchange (ShmOp::exchange_by_cma for allgather and
// alltoall, ShmOp::read_entries for their v forms).
struct CmaExchange {
  bool posted = false;  // its line is up
  bool read = false;    // it has read the others' blocks
  int cursor = 0;       // the others read so far
  int waited = 0;       // the members seen done with this rank's buffer so far
};

// An entry line in a writer's slot: one block for one reader (alltoallv) or all (allgatherv),
// with its count and where it lies, and the collective's number stored last (its check beside
// it, so that a stale block's data is never taken for an entry): a block of up to kEntryData
// bytes travels in the entry itself (one hop), one of up to a few KiB in the writer's slot (a
// hop per line is cheaper than a system call there), a larger one stays where it lies and the
// reader copies it by CMA.
inline constexpr std::size_t kEntryData = 32;
struct alignas(kLineBytes) EntryLine {
  std::atomic<std::uint64_t> seq;  // stored last
  std::uint64_t check;             // line_check(seq)
  std::uint64_t bytes;
  std::uint64_t where;  // kInEntry, kInSlot | offset in the slot, or an address
  std::byte data[kEntryData];
};
static_assert(sizeof(EntryLine) == kLineBytes);
inline constexpr std::uint64_t kInSlot = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kInEntry = kInSlot | 1;  // no line-aligned offset is odd
// A writer's entry for a block it wrote by CMA into the place its reader gave (gatherv), or
// failed to.
inline constexpr std::uint64_t kLanded = kInSlot | 3;
inline constexpr std::uint64_t kNotLanded = kInSlot | 5;

// The largest block that travels in a slot of `slot_bytes`, `blocks` of them after `blocks`
// entry lines: 4K, or 32K where ranks take turns on cores (`shared_cores`), whose readers copy
// by CMA one after the other (osu_alltoallv, medians of 5 interleaved runs, us: -np 2 8K 1.4 by
// CMA vs 1.9 in the slot; -np 4 on 2 cores 8K 6.3 in the slot vs 9.8 by CMA, 32K 15.0 vs
// 16.1-16.5, 64K 27.2 by CMA vs 31.5).
std::uint64_t in_slot_max(std::size_t slot_bytes, int blocks, bool shared_cores);

// Fills entry `e` of collective `seq` with `block` (`bytes` of it): in the entry, or in `slot`
// at `at` (which moves past it) up to `small` bytes, else at `address` (where the writer has
// it, packed). Publishes the entry. True when the reader copies it from `address`.
bool put_entry(EntryLine& e, std::uint64_t seq, const Buffer& block, std::uint64_t bytes,
               std::byte* slot, std::uint64_t& at, std::uint64_t small, const std::byte* address);
// Where a block of more than `small` bytes is published for CMA: where it lies when it is
// contiguous (and not `must_copy`), else packed into `copy`; null for a smaller block.
const std::byte* entry_address(const Buffer& block, std::uint64_t small, bool must_copy,
                               std::vector<std::byte>& copy);
// Fills entries[r] of collective `seq` for every block of `blocks` but `self`'s, as put_entry
// does, small blocks in `slot` after the entries, larger ones where they lie when contiguous
// (and not `must_copy`), else packed into `copy`; addressed[r] is 1 where reader r copies by
// CMA.
void put_entries(EntryLine* entries, std::uint64_t seq, const std::vector<Buffer>& blocks, int self,
                 std::byte* slot, std::uint64_t small, bool must_copy, std::vector<std::byte>& copy,
                 std::vector<std::uint8_t>& addressed);
inline bool entry_ready(const EntryLine& e, std::uint64_t seq) {
  return e.seq.load(std::memory_order_acquire) == seq && e.check == line_check(seq);
}
// Copies `got` bytes of the block that `e` describes into `into`: from the entry, from the
// writer's `slot` (of `slot_bytes`), or by CMA from the writer's process `pid`.
Status take_entry(const EntryLine& e, const std::byte* slot, std::size_t slot_bytes, int pid,
                  const Buffer& into, std::uint64_t got, std::vector<std::byte>& scratch);

// The failure of a reader that found no source in member `rank`'s line.
Status no_source(const char* collective, int rank);

// Copies the first `bytes` bytes of the stream of `from` to `remote` in process `pid` (through
// `scratch` when `from` is not contiguous).
Status write_block(int pid, std::uint64_t remote, const Buffer& from, std::uint64_t bytes,
                   std::vector<std::byte>& scratch);

// Copies `bytes` bytes at `remote` in process `pid` into the stream of `into` (through
// `scratch` when `into` is not contiguous).
Status read_block(int pid, std::uint64_t remote, const Buffer& into, std::uint64_t bytes,
                  std::vector<std::byte>& scratch);

}  // namespace gpurun::coll::shm
