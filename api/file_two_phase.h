// Two-phase collective access over a file's communicator (the arithmetic is
// runtime/io/two_phase.h's): rounds in which every member sends each aggregator the pieces of
// its data that fall in the aggregator's window, and the aggregators write what the pieces
// cover (or read it and send the pieces back).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "api/file.h"
#include "runtime/io/file_view.h"

namespace gpurun::api {

struct TwoPhasePlan {
  int aggregators = 1;       // how many members do the file access (spread over the group)
  std::int64_t buffer = 0;   // the largest window of one aggregator in one round, bytes
  std::int64_t begin = 0;    // the first byte any member accesses (INT64_MAX: none)
  std::int64_t end = 0;      // one past the last
};

// Collective over f.comm: moves the packed stream `data` of this member, whose file runs are
// `runs` (in file order), to the file (write) or from it (read). Returns the bytes moved: all
// of them for a write, those before the end of the file for a read. An error on any member
// (a failed read or write of an aggregator) is every member's.
Result<std::int64_t> two_phase(const File& f, bool write, std::span<const io::Extent> runs,
                               std::byte* data, const TwoPhasePlan& plan);

}  // namespace gpurun::api
