// The "external32" data representation (MPI_Pack_external): every basic element big-endian,
// long double as IEEE binary128, and the sizes the standard fixes, which differ from the
// native ones for C long and unsigned long (4 bytes, not 8) and wchar_t (2, not 4). The
// conversion works on packed streams (as pack() writes and unpack() reads them), one run of
// elements of one basic type at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/datatype.h"

namespace gpurun::core {

// Writes the external32 form (type.external32_size() x count bytes) of the native packed
// stream `native` of `count` elements of `type`. `native` and `external` may be the same buffer
// when the type's external32 size equals its size.
void to_external32(const Datatype& type, std::int64_t count, const std::byte* native,
                   std::byte* external);
// The reverse: reads the external32 stream, writes the native packed stream. Integers narrowed
// in external32 are sign-extended (long) or zero-extended (unsigned long, wchar_t).
void from_external32(const Datatype& type, std::int64_t count, const std::byte* external,
                     std::byte* native);

}  // namespace gpurun::core
