// Constructors of derived datatypes (MPI_Type_contiguous, vector, ..., subarray, darray).
//
// Each returns a new uncommitted type holding one reference (the caller's), without an envelope
// (the API layer records the call's arguments), or kInvalidArgument when the arguments are
// wrong or the type would be too large to describe (sizes and displacements beyond 2^63).
// The old types may be uncommitted; the new type holds a reference on each of them.
// Displacements and strides are in bytes unless the name says otherwise.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/base/status.h"
#include "runtime/core/datatype.h"

namespace gpurun::core {

Result<DatatypeRef> make_contiguous(std::int64_t count, const Datatype& old);
// `stride` counts extents of `old`.
Result<DatatypeRef> make_vector(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                                const Datatype& old);
Result<DatatypeRef> make_hvector(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                                 const Datatype& old);
// `displacements` count extents of `old`.
Result<DatatypeRef> make_indexed(std::span<const std::int64_t> blocklengths,
                                 std::span<const std::int64_t> displacements, const Datatype& old);
Result<DatatypeRef> make_hindexed(std::span<const std::int64_t> blocklengths,
                                  std::span<const std::int64_t> displacements, const Datatype& old);
Result<DatatypeRef> make_indexed_block(std::int64_t blocklength,
                                       std::span<const std::int64_t> displacements,
                                       const Datatype& old);
Result<DatatypeRef> make_hindexed_block(std::int64_t blocklength,
                                        std::span<const std::int64_t> displacements,
                                        const Datatype& old);
// The extent is padded to the alignment of the most aligned member unless a member carries
// explicit bounds (as a C compiler pads a struct).
Result<DatatypeRef> make_struct(std::span<const std::int64_t> blocklengths,
                                std::span<const std::int64_t> displacements,
                                std::span<const Datatype* const> types);
Result<DatatypeRef> make_resized(const Datatype& old, std::int64_t lb, std::int64_t extent);
Result<DatatypeRef> make_dup(const Datatype& old);
// The deprecated MPI_LB (upper = false) and MPI_UB markers: no data, an explicit bound at 0.
DatatypeRef make_bound_marker(bool upper, std::string name);

enum class Order : std::uint8_t { kC, kFortran };
enum class Distribution : std::uint8_t { kBlock, kCyclic, kNone };
// The darg that asks for the default distribution argument.
inline constexpr std::int64_t kDefaultDarg = -1;

struct SubarrayArgs {
  std::span<const std::int64_t> sizes;
  std::span<const std::int64_t> subsizes;
  std::span<const std::int64_t> starts;
  Order order = Order::kC;
};
// The arguments must be valid (checked by the caller): 0 <= start, start + subsize <= size.
Result<DatatypeRef> make_subarray(const SubarrayArgs& args, const Datatype& old);

struct DarrayArgs {
  std::int64_t size = 1;  // processes in the grid
  std::int64_t rank = 0;  // this process, in row-major grid order
  std::span<const std::int64_t> gsizes;
  std::span<const Distribution> distribs;
  std::span<const std::int64_t> dargs;  // kDefaultDarg for the default
  std::span<const std::int64_t> psizes;
  Order order = Order::kC;
};
// The arguments must be valid (checked by the caller): prod(psizes) == size, a block darg
// covers its dimension, a kNone dimension has psize 1.
Result<DatatypeRef> make_darray(const DarrayArgs& args, const Datatype& old);

}  // namespace gpurun::core
