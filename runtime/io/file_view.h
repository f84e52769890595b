// File views (MPI_File_set_view): which bytes of a file a process sees, and reading and
// writing through them.
//
// A view is a displacement, an elementary type and a filetype: the filetype is tiled from the
// displacement on, one copy every extent bytes, and the bytes its type map covers, in order,
// form the data stream the process reads and writes; positions in the stream are counted in
// packed bytes here (the API layer converts etype units). The walk that finds those bytes is the
// datatype engine's own (core::layout::for_each_block), with addresses taken as file offsets.
//
// Reads and writes cut their blocks into spans (at most kSieveBytes for a read, kSieveWriteBytes
// for a write) and move each span block by block, or at once where its blocks are close
// (sieve_span_per_run; data sieving): a read reads the span and picks the blocks out; a write
// reads it, puts the blocks in and writes it back, holding an exclusive lock on the span
// meanwhile. Every other write holds a shared lock on its span (an exclusive one where the file
// cannot be read), so no write of another process falls between a sieve's read and its write:
// the holes between the blocks keep what others write there. Small write spans let writers of
// interleaved blocks take turns span by span instead of file by file. In atomic mode every
// access locks its whole span exclusively (reads shared). Without locks (a file system that
// refuses them) writes do not sieve.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/core/datatype.h"
#include "runtime/io/posix_file.h"

namespace gpurun::io {

struct FileView {
  std::int64_t disp = 0;
  core::DatatypeRef etype;     // set by the API layer (MPI_BYTE by default)
  core::DatatypeRef filetype;  // its size is a positive multiple of the etype's
};

// A run of bytes in the file.
struct Extent {
  std::int64_t offset;
  std::int64_t bytes;
};

// The largest span a read moves at once.
inline constexpr std::int64_t kSieveBytes = 4 << 20;
// The largest span a sieving write reads and writes back under one lock (io_write at 4 ranks:
// 2x faster than 4 MiB at 8-byte blocks, about as fast as 128 KiB).
inline constexpr std::int64_t kSieveWriteBytes = 512 << 10;
// A span is moved at once when its runs are at most GPURUN_IO_SIEVE_SPAN apart on average
// (span / runs; default 16 KiB, 0: never): beyond it the span costs more to move than the
// runs' own system calls.
std::int64_t sieve_span_per_run();

// The file's runs that stream bytes [skip, skip + length) occupy, in stream order, adjacent
// runs merged.
std::vector<Extent> view_extents(const FileView& view, std::int64_t skip, std::int64_t length);
// The file offset of stream byte `skip` (MPI_File_get_byte_offset).
std::int64_t view_offset(const FileView& view, std::int64_t skip);
// The stream bytes that lie before file offset `offset` (for MPI_SEEK_END: where the stream
// meets the end of the file).
std::int64_t view_position(const FileView& view, std::int64_t offset);
// Whether the filetype's runs never go back in the file (the standard requires
// monotonically nondecreasing displacements), checked over one copy.
bool view_monotonic(const FileView& view);

// Reads `length` stream bytes from `skip` into `packed`; returns the bytes read, fewer when the
// file ends first (the stream stops at the first byte beyond the end).
Result<std::int64_t> read_view(const PosixFile& file, const FileView& view, std::int64_t skip,
                               std::byte* packed, std::int64_t length, bool atomic);
// Writes `length` stream bytes from `packed` at stream position `skip`.
Status write_view(const PosixFile& file, const FileView& view, std::int64_t skip,
                  const std::byte* packed, std::int64_t length, bool atomic);
// The same two through runs already found by view_extents (in file order), for a caller that
// needed them before moving the data.
Result<std::int64_t> read_extents(const PosixFile& file, std::span<const Extent> runs,
                                  std::byte* packed, bool atomic);
Status write_extents(const PosixFile& file, std::span<const Extent> runs,
                     const std::byte* packed, bool atomic);

}  // namespace gpurun::io
