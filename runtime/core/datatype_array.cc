// Subarray and distributed-array types, built from the other constructors one dimension at a
// time, fastest-varying dimension first. After each dimension the type is resized to that
// dimension's whole extent (lb 0), so that the next dimension can place copies of it at
// index x extent. The result spans the whole global array: lb 0, extent prod(sizes) x extent(old).
#include <vector>

#include "runtime/core/datatype_build.h"

namespace gpurun::core {
namespace {

// Dimension indexes from the fastest-varying to the slowest.
std::vector<std::size_t> fastest_first(std::size_t ndims, Order order) {
  std::vector<std::size_t> dims(ndims);
  for (std::size_t i = 0; i < ndims; ++i) dims[i] = order == Order::kC ? ndims - 1 - i : i;
  return dims;
}

// `count` copies of `t` from index `first` of a dimension whose indexes are `t`'s extent apart.
Result<DatatypeRef> run_of(std::int64_t first, std::int64_t count, const Datatype& t) {
  GPURUN_ASSIGN_OR_RETURN(DatatypeRef run, make_contiguous(count, t));
  const std::int64_t disp = first * t.extent();
  return make_hindexed_block(1, std::span<const std::int64_t>(&disp, 1), *run);
}

// The indexes of a dimension of `g` elements that process `coord` of `p` gets in a cyclic
// distribution of blocks of `b`: full blocks every p * b, and maybe one shorter block at the end.
Result<DatatypeRef> cyclic(std::int64_t g, std::int64_t p, std::int64_t coord, std::int64_t b,
                           const Datatype& t) {
  const std::int64_t first = coord * b;
  if (first >= g) return make_contiguous(0, t);
  const std::int64_t period = p * b;
  const std::int64_t full = g - first >= b ? (g - first - b) / period + 1 : 0;
  const std::int64_t last_start = first + full * period;
  const std::int64_t last = last_start < g ? g - last_start : 0;
  GPURUN_ASSIGN_OR_RETURN(DatatypeRef blocks, make_hvector(full, b, period * t.extent(), t));
  GPURUN_ASSIGN_OR_RETURN(DatatypeRef tail, make_contiguous(last, t));
  const std::int64_t lengths[] = {1, 1};
  const std::int64_t disps[] = {first * t.extent(), last_start * t.extent()};
  const Datatype* types[] = {blocks.get(), tail.get()};
  return make_struct(lengths, disps, types);
}

// This process's part of one dimension of a distributed array.
Result<DatatypeRef> darray_dim(const DarrayArgs& a, std::size_t d, std::int64_t coord,
                               const Datatype& t) {
  const std::int64_t g = a.gsizes[d];
  const std::int64_t p = a.psizes[d];
  switch (a.distribs[d]) {
    case Distribution::kNone:
      return run_of(0, g, t);
    case Distribution::kBlock: {
      const std::int64_t b = a.dargs[d] == kDefaultDarg ? (g + p - 1) / p : a.dargs[d];
      const std::int64_t first = coord * b;
      return run_of(first, std::max<std::int64_t>(0, std::min(b, g - first)), t);
    }
    case Distribution::kCyclic:
      return cyclic(g, p, coord, a.dargs[d] == kDefaultDarg ? 1 : a.dargs[d], t);
  }
  return Status(ErrorCode::kInvalidArgument, "unknown distribution");
}

}  // namespace

Result<DatatypeRef> make_subarray(const SubarrayArgs& a, const Datatype& old) {
  const std::size_t ndims = a.sizes.size();
  if (ndims == 0 || a.subsizes.size() != ndims || a.starts.size() != ndims)
    return Status(ErrorCode::kInvalidArgument, "sizes, subsizes and starts differ in length");
  DatatypeRef t(&old);
  for (std::size_t d : fastest_first(ndims, a.order)) {
    GPURUN_ASSIGN_OR_RETURN(DatatypeRef run, run_of(a.starts[d], a.subsizes[d], *t));
    std::int64_t extent = 0;
    if (__builtin_mul_overflow(a.sizes[d], t->extent(), &extent))
      return Status(ErrorCode::kInvalidArgument, "the array's extent does not fit in 64 bits");
    GPURUN_ASSIGN_OR_RETURN(t, make_resized(*run, 0, extent));
  }
  return t;
}

Result<DatatypeRef> make_darray(const DarrayArgs& a, const Datatype& old) {
  const std::size_t ndims = a.gsizes.size();
  if (ndims == 0 || a.distribs.size() != ndims || a.dargs.size() != ndims ||
      a.psizes.size() != ndims)
    return Status(ErrorCode::kInvalidArgument, "the darray arguments differ in length");
  // The process grid is row-major whatever the array's order (as MPI_Cart_create's).
  std::vector<std::int64_t> coords(ndims);
  for (std::size_t i = ndims, r = static_cast<std::size_t>(a.rank); i-- > 0;) {
    coords[i] = static_cast<std::int64_t>(r % static_cast<std::size_t>(a.psizes[i]));
    r /= static_cast<std::size_t>(a.psizes[i]);
  }
  DatatypeRef t(&old);
  for (std::size_t d : fastest_first(ndims, a.order)) {
    GPURUN_ASSIGN_OR_RETURN(DatatypeRef part, darray_dim(a, d, coords[d], *t));
    std::int64_t extent = 0;
    if (__builtin_mul_overflow(a.gsizes[d], t->extent(), &extent))
      return Status(ErrorCode::kInvalidArgument, "the array's extent does not fit in 64 bits");
    GPURUN_ASSIGN_OR_RETURN(t, make_resized(*part, 0, extent));
  }
  return t;
}

}  // namespace gpurun::core
