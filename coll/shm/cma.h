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
// Where a rank is in the single-copy exchange of allgather and alltoall
// (ShmOp::exchange_by_cma).
struct CmaExchange {
  bool posted = false;  // its line is up
  bool read = false;    // it has read the others' blocks
  int cursor = 0;       // the others read so far
};

// The failure of a reader that found no source in member `rank`'s line.
Status no_source(const char* collective, int rank);

// Copies `bytes` bytes at `remote` in process `pid` into the stream of `into` (through
// `scratch` when `into` is not contiguous).
Status read_block(int pid, std::uint64_t remote, const Buffer& into, std::uint64_t bytes,
                  std::vector<std::byte>& scratch);

}  // namespace gpurun::coll::shm
