// File views (MPI_File_set_view): which bytes of a file a process sees, and reading and
// writing through them.
//
// A view is a displacement, an elementary type and a filetype: the filetype is tiled from the
// displacement on, one copy every extent bytes, and the bytes its type map covers, in order,
// form the data stream the process reads and writes; positions in the stream are counted in
// packed bytes here (the API layer converts etype units). The walk that finds those bytes is the
// datatype engine's own (core::layout::for_each_block), with addresses taken as file offsets.
//
// Reads and writes go block by block: a write puts exactly the view's bytes (the holes between
// them stay as other processes write them; no read-modify-write); a read of blocks that cover
// at least half of their span, or a span of at most kSieveBytes, reads the span at once and
// picks the blocks out (data sieving). In atomic mode the span is locked for the access.
#pragma once

#include <cstddef>
#include <cstdint>
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

// The span the sieve may read at once whatever the density.
inline constexpr std::int64_t kSieveBytes = 4 << 20;

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

}  // namespace gpurun::io
