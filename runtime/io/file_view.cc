// File views: mapping the data stream onto the file, and reading and writing through it.
#include "runtime/io/file_view.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>

#include "runtime/base/param.h"
#include "runtime/core/datatype_layout.h"

namespace gpurun::io {
namespace {

// The most runs view_extents reserves room for at once (16 MiB of extents).
constexpr std::int64_t kMaxReservedRuns = 1 << 20;

param::Param<param::Size> g_sieve_span(
    "GPURUN_IO_SIEVE_SPAN", param::Size{16 << 10},
    "MPI-IO reads and writes of runs at most this many bytes apart on average (their span "
    "divided by their number) move the span at once (data sieving): a read reads it and picks "
    "the runs out, a write reads it, puts the runs in and writes it back under an exclusive "
    "lock; farther apart, one system call per run. 0: never (a file system whose locks are "
    "slow).");

// The stream bytes [skip, skip + length) as runs, handed to add(offset, bytes) in order.
template <class Add>
void walk(const FileView& view, std::int64_t skip, std::int64_t length, Add&& add) {
  const core::Datatype& ft = *view.filetype;
  if (length <= 0) return;
  if (ft.contiguous()) {
    add(view.disp + ft.true_lb() + skip, length);
    return;
  }
  std::int64_t size = ft.size();
  std::int64_t first = skip / size;
  std::int64_t tiles = (skip + length + size - 1) / size - first;
  auto origin = static_cast<std::uintptr_t>(view.disp + first * ft.extent());
  core::layout::for_each_block(
      *ft.layout(), tiles, ft.extent(), origin, skip - first * size, length,
      [&](std::uintptr_t at, std::int64_t bytes) { add(static_cast<std::int64_t>(at), bytes); });
}

// Reads each run by itself; stops at the end of the file.
Result<std::int64_t> read_runs(const PosixFile& file, std::span<const Extent> runs,
                               std::byte* packed) {
  std::int64_t done = 0;
  for (const Extent& e : runs) {
    GPURUN_ASSIGN_OR_RETURN(std::int64_t got, file.read_at(e.offset, packed + done, e.bytes));
    done += got;
    if (got < e.bytes) break;
  }
  return done;
}

// A buffer of at least `bytes` (at most kSieveBytes) for a sieved span, kept from one access to
// the next: a fresh one costs a page fault per page, more than the copies themselves. Not
// zeroed.
std::byte* sieve_buffer(std::int64_t bytes) {
  thread_local std::unique_ptr<std::byte[]> buffer;
  thread_local std::int64_t capacity = 0;
  if (capacity < bytes) {
    buffer.reset(new std::byte[static_cast<std::size_t>(bytes)]);
    capacity = bytes;
  }
  return buffer.get();
}

// Reads the span of the runs at once and picks them out.
Result<std::int64_t> read_sieved(const PosixFile& file, std::span<const Extent> runs,
                                 std::int64_t lo, std::int64_t hi, std::byte* packed) {
  std::byte* span = sieve_buffer(hi - lo);
  GPURUN_ASSIGN_OR_RETURN(std::int64_t got, file.read_at(lo, span, hi - lo));
  std::int64_t done = 0;
  for (const Extent& e : runs) {
    std::int64_t have = std::clamp<std::int64_t>(lo + got - e.offset, 0, e.bytes);
    std::memcpy(packed + done, span + (e.offset - lo), static_cast<std::size_t>(have));
    done += have;
    if (have < e.bytes) break;
  }
  return done;
}

// Reads the span of the runs, puts them in and writes it back (the caller holds an exclusive
// lock on the span); what lay beyond the end of the file becomes zeros.
Status write_sieved(const PosixFile& file, std::span<const Extent> runs, std::int64_t lo,
                    std::int64_t hi, const std::byte* packed) {
  std::byte* span = sieve_buffer(hi - lo);
  GPURUN_ASSIGN_OR_RETURN(std::int64_t got, file.read_at(lo, span, hi - lo));
  std::memset(span + got, 0, static_cast<std::size_t>(hi - lo - got));
  std::int64_t done = 0;
  for (const Extent& e : runs) {
    std::memcpy(span + (e.offset - lo), packed + done, static_cast<std::size_t>(e.bytes));
    done += e.bytes;
  }
  return file.write_at(lo, span, hi - lo);
}

// The first runs of `runs` whose span stays within `window` bytes (at least one run).
std::span<const Extent> next_chunk(std::span<const Extent> runs, std::int64_t window) {
  std::size_t n = 1;
  while (n < runs.size() && runs[n].offset + runs[n].bytes - runs[0].offset <= window) ++n;
  return runs.first(n);
}

// Whether the runs of `chunk` lie close enough to move their span at once.
bool close_runs(std::span<const Extent> chunk) {
  std::int64_t lo = chunk.front().offset, hi = chunk.back().offset + chunk.back().bytes;
  auto count = static_cast<std::int64_t>(chunk.size());
  return count > 1 && hi - lo <= sieve_span_per_run() * count;
}

// Reads one chunk of runs, sieved when they are close; returns the bytes read (fewer at the
// end of the file).
Result<std::int64_t> read_chunk(const PosixFile& file, std::span<const Extent> chunk,
                                std::byte* packed) {
  std::int64_t lo = chunk.front().offset, hi = chunk.back().offset + chunk.back().bytes;
  if (chunk.size() == 1) return file.read_at(lo, packed, hi - lo);
  if (close_runs(chunk)) return read_sieved(file, chunk, lo, hi, packed);
  return read_runs(file, chunk, packed);
}

// Writes one chunk of runs: sieved when they are close (close_runs: one system call per run
// would move little), else run by run. `atomic`: the caller holds the lock.
Status write_chunk(const PosixFile& file, std::span<const Extent> chunk, const std::byte* packed,
                   bool atomic) {
  std::int64_t lo = chunk.front().offset, hi = chunk.back().offset + chunk.back().bytes;
  bool sieve = file.readable() && close_runs(chunk);
  RangeLock lock(atomic ? nullptr : &file, lo, hi - lo, sieve || !file.readable());
  if (!lock.status().ok()) sieve = false;  // a file system without locks: no sieving
  if (sieve) return write_sieved(file, chunk, lo, hi, packed);
  for (const Extent& e : chunk) {
    GPURUN_TRY(file.write_at(e.offset, packed, e.bytes));
    packed += e.bytes;
  }
  return ok_status();
}

}  // namespace

std::int64_t sieve_span_per_run() { return static_cast<std::int64_t>(g_sieve_span.get().bytes); }

std::vector<Extent> view_extents(const FileView& view, std::int64_t skip, std::int64_t length) {
  std::vector<Extent> runs;
  const core::Datatype& ft = *view.filetype;
  if (!ft.contiguous() && ft.size() > 0 && length > 0) {
    // Room for every block at once: growing the vector costs copies and page faults.
    std::int64_t tiles = length / ft.size() + 2, blocks = ft.layout()->blocks;
    std::int64_t want = 0;
    if (!__builtin_mul_overflow(tiles, blocks, &want)) {
      runs.reserve(static_cast<std::size_t>(std::min<std::int64_t>(want, kMaxReservedRuns)));
    }
  }
  walk(view, skip, length, [&](std::int64_t offset, std::int64_t bytes) {
    if (!runs.empty() && runs.back().offset + runs.back().bytes == offset) {
      runs.back().bytes += bytes;
    } else {
      runs.push_back({offset, bytes});
    }
  });
  return runs;
}

std::int64_t view_offset(const FileView& view, std::int64_t skip) {
  std::int64_t offset = -1;
  walk(view, skip, 1, [&](std::int64_t at, std::int64_t) { offset = at; });
  return offset;
}

std::int64_t view_position(const FileView& view, std::int64_t offset) {
  const core::Datatype& ft = *view.filetype;
  if (offset <= view.disp) return 0;
  if (ft.contiguous()) return std::max<std::int64_t>(offset - view.disp - ft.true_lb(), 0);
  std::int64_t tile = ft.extent() > 0 ? (offset - view.disp) / ft.extent() : 0;
  std::int64_t before = tile * ft.size();
  walk(view, before, ft.size(), [&](std::int64_t at, std::int64_t bytes) {
    before += std::clamp<std::int64_t>(offset - at, 0, bytes);
  });
  return before;
}

bool view_monotonic(const FileView& view) {
  std::int64_t end = INT64_MIN;
  bool ok = true;
  walk(view, 0, view.filetype->size(), [&](std::int64_t offset, std::int64_t bytes) {
    ok = ok && offset >= end && offset >= 0;
    end = offset + bytes;
  });
  return ok;
}

Result<std::int64_t> read_extents(const PosixFile& file, std::span<const Extent> runs,
                                  std::byte* packed, bool atomic) {
  if (runs.empty()) return std::int64_t{0};
  std::int64_t lo = runs.front().offset, hi = runs.back().offset + runs.back().bytes;
  RangeLock lock(atomic ? &file : nullptr, lo, hi - lo, false);
  GPURUN_TRY(lock.status());
  std::int64_t done = 0;
  for (std::span<const Extent> rest = runs; !rest.empty();) {
    std::span<const Extent> chunk = next_chunk(rest, kSieveBytes);
    std::int64_t want = 0;
    for (const Extent& e : chunk) want += e.bytes;
    GPURUN_ASSIGN_OR_RETURN(std::int64_t got, read_chunk(file, chunk, packed + done));
    done += got;
    if (got < want) break;
    rest = rest.subspan(chunk.size());
  }
  return done;
}

Status write_extents(const PosixFile& file, std::span<const Extent> runs,
                     const std::byte* packed, bool atomic) {
  if (runs.empty()) return ok_status();
  std::int64_t lo = runs.front().offset, hi = runs.back().offset + runs.back().bytes;
  RangeLock whole(atomic ? &file : nullptr, lo, hi - lo, true);
  GPURUN_TRY(whole.status());
  for (std::span<const Extent> rest = runs; !rest.empty();) {
    std::span<const Extent> chunk = next_chunk(rest, kSieveWriteBytes);
    GPURUN_TRY(write_chunk(file, chunk, packed, atomic));
    for (const Extent& e : chunk) packed += e.bytes;
    rest = rest.subspan(chunk.size());
  }
  return ok_status();
}

Result<std::int64_t> read_view(const PosixFile& file, const FileView& view, std::int64_t skip,
                               std::byte* packed, std::int64_t length, bool atomic) {
  return read_extents(file, view_extents(view, skip, length), packed, atomic);
}

Status write_view(const PosixFile& file, const FileView& view, std::int64_t skip,
                  const std::byte* packed, std::int64_t length, bool atomic) {
  return write_extents(file, view_extents(view, skip, length), packed, atomic);
}

}  // namespace gpurun::io
