// Two-phase collective access: what goes where.
//
// In a collective read or write whose members' file runs interleave (a cyclic distribution:
// each member's share is many small runs between the others'), moving each member's runs by
// itself costs one system call per run. Two-phase access moves the data in rounds instead. In
// each round a stretch of the file is cut into one window per aggregator (a member that does
// the file access); every member sends each aggregator the pieces of its runs that fall in that
// aggregator's window (first phase, communication), and the aggregator puts them together and
// writes each run they cover with one system call (second phase, file access). A read runs the
// other way: the aggregator reads what its window's pieces cover, then sends them out.
//
// The runs of a view are in file order (views are monotonic), so a member's pieces for one
// window are one slice of its data stream, and a round's windows follow each other: what a
// member sends in a round is consecutive slices of its stream, sent from where they lie.
//
// The API layer (api/file_collective.cc) does the communication; this file is its arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/io/file_view.h"

namespace gpurun::io {

// Windows start and end on multiples of this (file system blocks are not cut between two
// aggregators where the span allows).
inline constexpr std::int64_t kWindowAlign = 4096;

// A member's runs, handed out window by window in file order.
class RunCursor {
 public:
  explicit RunCursor(std::span<const Extent> runs) : runs_(runs) {}
  // The file offset of the first byte not yet taken; INT64_MAX when every run is taken.
  std::int64_t next() const;
  // Takes the parts of the runs that lie before file offset `end`, appends them to `pieces`
  // (split at `end` where a run crosses it) and returns their bytes.
  std::int64_t take(std::int64_t end, std::vector<Extent>& pieces);

 private:
  std::span<const Extent> runs_;
  std::size_t index_ = 0;
  std::int64_t used_ = 0;  // bytes of runs_[index_] already taken
};

// The length of each of the `aggregators` windows of a round that starts at file offset `base`
// when no member's data lies at or beyond `end`: the span [base, end) shared equally, each
// window at most `buffer` bytes and at least one byte, rounded up to kWindowAlign where
// `buffer` allows. Window w of the round covers [base + w * length, base + (w + 1) * length).
std::int64_t window_length(std::int64_t base, std::int64_t end, int aggregators,
                           std::int64_t buffer);

// The file runs that `pieces` cover, merged and in file order. `pieces` is the concatenation
// of lists (the lengths in `counts`), each in file order; pieces may overlap.
std::vector<Extent> coverage(std::span<const Extent> pieces, std::span<const std::int64_t> counts);

// Whether `runs` go forward in the file without overlapping (what two-phase access needs).
bool ascending(std::span<const Extent> runs);

// Whether two of the members' spans ({first byte, bytes}; bytes 0 for a member without data)
// overlap: their runs interleave, the case two-phase access is for.
bool interleaved(std::vector<Extent> spans);

// The member (rank in the file's group of `members`) that aggregator `index` of `aggregators`
// is: spread evenly over the group, the first being member 0.
int aggregator_member(int index, int aggregators, int members);

// The bytes of the data stream before the first one at or beyond file offset `size` (a read:
// the stream stops at the end of the file), for the stream whose runs are `runs`.
std::int64_t bytes_before_end(std::span<const Extent> runs, std::int64_t size);

}  // namespace gpurun::io
