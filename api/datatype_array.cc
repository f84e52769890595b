// Array datatypes: MPI_Type_create_subarray, MPI_Type_create_darray and their _c forms.
#include <cstdio>

#include "api/datatype_args.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::api {
namespace {

using core::Combiner;

int check_order(const Call& call, int order, core::Order* out) {
  if (order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN) {
    *out = order == MPI_ORDER_C ? core::Order::kC : core::Order::kFortran;
    return MPI_SUCCESS;
  }
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "argument order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
}

int check_subarray(const Call& call, const core::SubarrayArgs& a) {
  for (std::size_t d = 0; d < a.sizes.size(); ++d) {
    auto size = static_cast<long long>(a.sizes[d]), sub = static_cast<long long>(a.subsizes[d]),
         start = static_cast<long long>(a.starts[d]);
    if (size <= 0)
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument array_of_sizes[%zu] %lld must be positive", d, size);
    if (sub <= 0 || sub > size)
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument array_of_subsizes[%zu] %lld must be in 1..%lld", d, sub, size);
    if (start < 0 || start > size - sub)
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument array_of_starts[%zu] %lld must be in 0..%lld", d, start, size - sub);
  }
  return MPI_SUCCESS;
}

template <class Count>
int subarray(const Call& call, int ndims, const Count* sizes, const Count* subsizes,
             const Count* starts, int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (ndims <= 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_DIMS, "argument ndims %d must be positive", ndims);
  if (int rc = check_array(call, sizes, ndims, "array_of_sizes")) return rc;
  if (int rc = check_array(call, subsizes, ndims, "array_of_subsizes")) return rc;
  if (int rc = check_array(call, starts, ndims, "array_of_starts")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  core::Order core_order = core::Order::kC;
  if (int rc = check_order(call, order, &core_order)) return rc;
  std::vector<std::int64_t> n = widen(sizes, ndims), sub = widen(subsizes, ndims),
                            first = widen(starts, ndims);
  core::SubarrayArgs args{n, sub, first, core_order};
  if (int rc = check_subarray(call, args)) return rc;
  CallArgs env{Combiner::kSubarray, {ndims}, {}, {}, {old}};
  std::vector<std::int64_t>& arrays = kLargeCount<Count> ? env.counts : env.ints;
  for (const std::vector<std::int64_t>* v : {&n, &sub, &first})
    arrays.insert(arrays.end(), v->begin(), v->end());
  env.ints.push_back(order);
  return new_type(call, core::make_subarray(args, *old), std::move(env), newtype);
}

struct DarrayCall {
  int size;
  int rank;
  int ndims;
  const int* distribs;
  const int* dargs;
  const int* psizes;
  int order;
};

// Translates and checks the distribution of dimension d.
int check_dimension(const Call& call, const DarrayCall& c, std::int64_t gsize, int d,
                    core::Distribution* out) {
  int distrib = c.distribs[d], darg = c.dargs[d], p = c.psizes[d];
  if (gsize <= 0 || p <= 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument array_of_gsizes[%d] %lld and array_of_psizes[%d] %d must be positive", d,
                 static_cast<long long>(gsize), d, p);
  if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument array_of_dargs[%d] %d must be positive or MPI_DISTRIBUTE_DFLT_DARG", d,
                 darg);
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
      *out = core::Distribution::kNone;
      if (p == 1) return MPI_SUCCESS;
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument array_of_psizes[%d] %d must be 1 for MPI_DISTRIBUTE_NONE", d, p);
    case MPI_DISTRIBUTE_CYCLIC:
      *out = core::Distribution::kCyclic;
      return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK:
      *out = core::Distribution::kBlock;
      if (darg == MPI_DISTRIBUTE_DFLT_DARG || static_cast<std::int64_t>(darg) * p >= gsize)
        return MPI_SUCCESS;
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument array_of_dargs[%d] %d times array_of_psizes[%d] %d does not cover "
                   "array_of_gsizes[%d] %lld",
                   d, darg, d, p, d, static_cast<long long>(gsize));
  }
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "argument array_of_distribs[%d] %d is not an MPI_DISTRIBUTE_ constant", d, distrib);
}

int check_grid(const Call& call, const DarrayCall& c) {
  if (c.size <= 0 || c.rank < 0 || c.rank >= c.size)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument rank %d must be in 0..size-1 (size %d)", c.rank, c.size);
  std::int64_t processes = 1;
  for (int d = 0; d < c.ndims; ++d) processes *= c.psizes[d];
  if (processes == c.size) return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "the product of array_of_psizes (%lld) is not argument size %d",
               static_cast<long long>(processes), c.size);
}

template <class Count>
int darray(const Call& call, const DarrayCall& c, const Count* gsizes, MPI_Datatype oldtype,
           MPI_Datatype* newtype) {
  const core::Datatype* old;
  if (int rc = lookup_type(call, MPI_COMM_NULL, oldtype, "oldtype", &old)) return rc;
  if (c.ndims <= 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_DIMS, "argument ndims %d must be positive", c.ndims);
  if (int rc = check_array(call, gsizes, c.ndims, "array_of_gsizes")) return rc;
  if (int rc = check_array(call, c.distribs, c.ndims, "array_of_distribs")) return rc;
  if (int rc = check_array(call, c.dargs, c.ndims, "array_of_dargs")) return rc;
  if (int rc = check_array(call, c.psizes, c.ndims, "array_of_psizes")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  core::Order order = core::Order::kC;
  if (int rc = check_order(call, c.order, &order)) return rc;
  std::vector<std::int64_t> g = widen(gsizes, c.ndims), dargs(c.ndims),
                            psizes = widen(c.psizes, c.ndims);
  std::vector<core::Distribution> distribs(c.ndims);
  for (int d = 0; d < c.ndims; ++d) {
    if (int rc = check_dimension(call, c, g[d], d, &distribs[d])) return rc;
    dargs[d] = c.dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? core::kDefaultDarg : c.dargs[d];
  }
  if (int rc = check_grid(call, c)) return rc;
  core::DarrayArgs args{c.size, c.rank, g, distribs, dargs, psizes, order};
  CallArgs env{Combiner::kDarray, {c.size, c.rank, c.ndims}, {}, {}, {old}};
  if (kLargeCount<Count>) {
    env.counts = g;
  } else {
    env.ints.insert(env.ints.end(), g.begin(), g.end());
  }
  for (const int* v : {c.distribs, c.dargs, c.psizes})
    env.ints.insert(env.ints.end(), v, v + c.ndims);
  env.ints.push_back(c.order);
  return new_type(call, core::make_darray(args, *old), std::move(env), newtype);
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[], const int array_of_starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_subarray");
  return gpurun::api::subarray(call, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                               order, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_subarray)

extern "C" int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                           const MPI_Count array_of_subsizes[],
                                           const MPI_Count array_of_starts[], int order,
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_subarray_c");
  return gpurun::api::subarray(call, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                               order, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_subarray_c)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_darray");
  return gpurun::api::darray(
      call, {size, rank, ndims, array_of_distribs, array_of_dargs, array_of_psizes, order},
      array_of_gsizes, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_darray)

extern "C" int PMPI_Type_create_darray_c(int size, int rank, int ndims,
                                         const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_darray_c");
  return gpurun::api::darray(
      call, {size, rank, ndims, array_of_distribs, array_of_dargs, array_of_psizes, order},
      array_of_gsizes, oldtype, newtype);
}
GPURUN_MPI_ALIAS(MPI_Type_create_darray_c)
