// MPI_Dims_create: a balanced grid of nnodes ranks.
//
// The free dimensions (dims[i] == 0) get the factorisation of nnodes / prod(fixed dims) whose
// largest and smallest extents are closest, in non-increasing order; among equally balanced
// ones, the first in decreasing lexicographic order. The search walks non-increasing sequences
// of divisors (a few thousand at most for an int), pruning sequences already less balanced
// than the best one found.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "api/checks.h"
#include "api/topo.h"

namespace gpurun::api {
namespace {

std::vector<int> divisors_of(int n) {
  std::vector<int> out;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    out.push_back(static_cast<int>(d));
    if (d * d != n) out.push_back(static_cast<int>(n / d));
  }
  std::sort(out.begin(), out.end(), std::greater<>());
  return out;
}

struct Search {
  std::vector<int> divisors;  // of the product to split, largest first
  std::vector<int> current, best;
  int best_spread = -1;

  // Whether `d` raised to `slots` reaches `m` (d is the largest of the remaining extents).
  static bool reaches(int d, int slots, int m) {
    std::int64_t p = 1;
    for (int i = 0; i < slots && p < m; ++i) p *= d;
    return p >= m;
  }

  void run(int m, int slots, int cap) {
    if (slots == 0) {
      if (m != 1) return;
      int spread = current.front() - current.back();
      if (best_spread < 0 || spread < best_spread) {
        best = current;
        best_spread = spread;
      }
      return;
    }
    for (int d : divisors) {
      if (d > cap || m % d != 0) continue;
      if (!reaches(d, slots, m)) break;  // smaller divisors cannot reach either
      if (best_spread >= 0 && !current.empty() && current.front() - d >= best_spread) break;
      current.push_back(d);
      run(m / d, slots - 1, d);
      current.pop_back();
    }
  }
};

int dims_create(const Call& call, int nnodes, int ndims, int dims[]) {
  if (nnodes <= 0)
    return raise(call, MPI_COMM_WORLD, MPI_ERR_ARG, "argument nnodes %d is not positive", nnodes);
  if (ndims < 0)
    return raise(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "argument ndims %d is negative", ndims);
  if (ndims > 0 && dims == nullptr)
    return raise(call, MPI_COMM_WORLD, MPI_ERR_ARG, "argument dims is a null pointer");
  std::int64_t fixed = 1;
  int free = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) {
      return raise(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "argument dims[%d] = %d is negative", i,
                   dims[i]);
    }
    if (dims[i] == 0)
      ++free;
    else
      fixed *= dims[i];
    if (fixed > nnodes) break;
  }
  if (nnodes % fixed != 0) {
    return raise(call, MPI_COMM_WORLD, MPI_ERR_DIMS,
                 "argument dims: the product of its non-zero entries does not divide nnodes %d",
                 nnodes);
  }
  const int rest = static_cast<int>(nnodes / fixed);
  if (free == 0) {
    if (rest == 1) return MPI_SUCCESS;
    return raise(call, MPI_COMM_WORLD, MPI_ERR_DIMS,
                 "argument dims: its entries multiply to less than nnodes %d and none is free",
                 nnodes);
  }
  // An int has at most 30 factors above 1, so beyond 31 free dimensions the balanced grid only
  // adds extents of 1 at the end: the search (one level of recursion per dimension) stops at
  // 31, and the rest are 1.
  constexpr int kMostSearched = 31;
  const int searched = std::min(free, kMostSearched);
  Search s;
  s.divisors = divisors_of(rest);
  s.run(rest, searched, rest);
  for (int i = 0, k = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = k < searched ? s.best[k++] : 1;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  GPURUN_API_ENTER("MPI_Dims_create");
  return gpurun::api::dims_create(call, nnodes, ndims, dims);
}
GPURUN_MPI_ALIAS(MPI_Dims_create)
