// Distributed graph topologies: MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create,
// MPI_Dist_graph_neighbors_count, MPI_Dist_graph_neighbors. Ranks are kept (reorder is
// ignored); info hints are checked and otherwise unused.
//
// MPI_Dist_graph_create gives each rank any edges of the graph; every rank learns its own in-
// and out-edges through two allgathers (the edge counts, then every rank's edges padded to the
// largest count): p * max_edges * 12 bytes on each rank, which suits the graphs of halo
// exchanges. The edges keep their order over all ranks (api/topo.h).
#include <algorithm>
#include <memory>
#include <vector>

#include "api/checks.h"
#include "api/comm_build.h"
#include "api/info.h"
#include "api/requests.h"
#include "api/topo.h"
#include "coll/basic.h"

namespace gpurun::api {
namespace {

constexpr Topology::Kind kGraph = Topology::Kind::kDistGraph;

int check_ranks(const Call& call, MPI_Comm comm, int size, const int* ranks, int n,
                const char* what) {
  if (n > 0 && ranks == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument %s is a null pointer", what);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) {
      return raise(call, comm, MPI_ERR_RANK,
                   "argument %s[%d] = %d is not a rank of the communicator (size %d)", what, i,
                   ranks[i], size);
    }
  }
  return MPI_SUCCESS;
}

// A weights argument for `n` edges: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (n == 0 only), or n
// non-negative weights.
int check_weights(const Call& call, MPI_Comm comm, const int* weights, int n, const char* what) {
  if (weights == MPI_UNWEIGHTED) return MPI_SUCCESS;
  if (weights == MPI_WEIGHTS_EMPTY) {
    if (n == 0) return MPI_SUCCESS;
    return raise(call, comm, MPI_ERR_ARG, "argument %s is MPI_WEIGHTS_EMPTY for %d edges", what, n);
  }
  if (n > 0 && weights == nullptr) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument %s is a null pointer (MPI_UNWEIGHTED for no weights)", what);
  }
  for (int i = 0; i < n; ++i) {
    if (weights[i] < 0)
      return raise(call, comm, MPI_ERR_ARG, "argument %s[%d] = %d is negative", what, i,
                   weights[i]);
  }
  return MPI_SUCCESS;
}

int check_common(const Call& call, MPI_Comm comm, MPI_Info info, MPI_Comm* comm_dist_graph) {
  if (info != MPI_INFO_NULL && find_info(info) == nullptr) {
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  }
  GPURUN_CHECK_NOT_NULL(comm, comm_dist_graph);
  return MPI_SUCCESS;
}

// `team`: whole_team(parent), whose tag the call's exchange of edges took if it had one (one
// tag per call, as for MPI_Comm_split).
int create_graph_comm(const Call& call, MPI_Comm comm, CommEntry& parent, TopologyPtr topo,
                      MPI_Comm* newcomm, coll::Team team) {
  CommSpec spec;
  spec.errhandler = parent.errhandler;
  spec.session = parent.session;
  spec.group = parent.comm->shared_group();
  spec.topology = std::move(topo);
  return create_over_team(call, comm, parent, std::move(spec), newcomm, std::move(team));
}

std::vector<int> weights_or_ones(const int* weights, int n) {
  if (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY || weights == nullptr)
    return std::vector<int>(static_cast<std::size_t>(n), 1);
  return std::vector<int>(weights, weights + n);
}

int create_adjacent(const Call& call, MPI_Comm comm, int indegree, const int sources[],
                    const int sourceweights[], int outdegree, const int destinations[],
                    const int destweights[], MPI_Info info, MPI_Comm* newcomm) {
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  const int size = entry->comm->size();
  if (indegree < 0)
    return raise(call, comm, MPI_ERR_ARG, "argument indegree %d is negative", indegree);
  if (outdegree < 0)
    return raise(call, comm, MPI_ERR_ARG, "argument outdegree %d is negative", outdegree);
  GPURUN_TOPO_TRY(check_ranks(call, comm, size, sources, indegree, "sources"));
  GPURUN_TOPO_TRY(check_weights(call, comm, sourceweights, indegree, "sourceweights"));
  GPURUN_TOPO_TRY(check_ranks(call, comm, size, destinations, outdegree, "destinations"));
  GPURUN_TOPO_TRY(check_weights(call, comm, destweights, outdegree, "destweights"));
  GPURUN_TOPO_TRY(check_common(call, comm, info, newcomm));
  auto topo = std::make_shared<Topology>();
  topo->kind = kGraph;
  topo->sources.assign(sources, sources + indegree);
  topo->destinations.assign(destinations, destinations + outdegree);
  topo->sourceweights = weights_or_ones(sourceweights, indegree);
  topo->destweights = weights_or_ones(destweights, outdegree);
  topo->weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
  return create_graph_comm(call, comm, *entry, std::move(topo), newcomm, whole_team(*entry));
}

struct Edge {
  int source, dest, weight;
};

// Every rank's edges, in rank order, on every rank, by two collectives at team's tag. Sets
// *any_weighted when some rank gave weights.
Result<std::vector<Edge>> gather_edges(CommEntry& entry, const coll::Team& team,
                                       const std::vector<Edge>& mine, bool weighted,
                                       bool* any_weighted) {
  const int p = entry.comm->size();
  std::int64_t head[2] = {static_cast<std::int64_t>(mine.size()), weighted ? 1 : 0};
  std::vector<std::int64_t> heads(2 * static_cast<std::size_t>(p));
  auto g1 = coll::allgather(the_pml(), team, head, sizeof head, heads.data());
  GPURUN_TRY(wait_collective(*g1));
  std::int64_t most = 0;
  *any_weighted = false;
  for (int r = 0; r < p; ++r) {
    most = std::max(most, heads[2 * r]);
    *any_weighted = *any_weighted || heads[2 * r + 1] != 0;
  }
  std::vector<Edge> padded(mine);
  padded.resize(static_cast<std::size_t>(most));
  std::vector<Edge> all(static_cast<std::size_t>(most * p));
  auto g2 =
      coll::allgather(the_pml(), team, padded.data(), sizeof(Edge) * padded.size(), all.data());
  GPURUN_TRY(wait_collective(*g2));
  std::vector<Edge> out;
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < heads[2 * r]; ++i) out.push_back(all[r * most + i]);
  return out;
}

int create_general(const Call& call, MPI_Comm comm, int n, const int sources[], const int degrees[],
                   const int destinations[], const int weights[], MPI_Info info,
                   MPI_Comm* newcomm) {
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  const int size = entry->comm->size();
  if (n < 0) return raise(call, comm, MPI_ERR_ARG, "argument n %d is negative", n);
  GPURUN_TOPO_TRY(check_ranks(call, comm, size, sources, n, "sources"));
  if (n > 0) GPURUN_CHECK_NOT_NULL(comm, degrees);
  std::int64_t edges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0)
      return raise(call, comm, MPI_ERR_ARG, "argument degrees[%d] = %d is negative", i, degrees[i]);
    edges += degrees[i];
  }
  if (edges > INT_MAX) return raise(call, comm, MPI_ERR_ARG, "argument degrees sums above INT_MAX");
  const int m = static_cast<int>(edges);
  GPURUN_TOPO_TRY(check_ranks(call, comm, size, destinations, m, "destinations"));
  GPURUN_TOPO_TRY(check_weights(call, comm, weights, m, "weights"));
  GPURUN_TOPO_TRY(check_common(call, comm, info, newcomm));
  std::vector<int> w = weights_or_ones(weights, m);
  std::vector<Edge> mine;
  for (int i = 0, at = 0; i < n; ++i)
    for (int k = 0; k < degrees[i]; ++k, ++at)
      mine.push_back(Edge{sources[i], destinations[at], w[at]});
  bool weighted = false;
  coll::Team team = whole_team(*entry);
  team.call_kind = static_cast<int>(coll::BasicKind::kAllgather);
  team.call_bytes = 2 * sizeof(std::int64_t);
  Result<std::vector<Edge>> all =
      gather_edges(*entry, team, mine, weights != MPI_UNWEIGHTED, &weighted);
  if (!all.ok()) return raise_status(call, comm, all.status());
  auto topo = std::make_shared<Topology>();
  topo->kind = kGraph;
  topo->weighted = weighted;
  const int me = entry->comm->rank();
  for (const Edge& e : *all) {
    if (e.source == me) {
      topo->destinations.push_back(e.dest);
      topo->destweights.push_back(e.weight);
    }
    if (e.dest == me) {
      topo->sources.push_back(e.source);
      topo->sourceweights.push_back(e.weight);
    }
  }
  return create_graph_comm(call, comm, *entry, std::move(topo), newcomm, std::move(team));
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree,
                                               const int destinations[], const int destweights[],
                                               MPI_Info info, int /*reorder*/,
                                               MPI_Comm* comm_dist_graph) {
  GPURUN_API_ENTER("MPI_Dist_graph_create_adjacent");
  return create_adjacent(call, comm_old, indegree, sources, sourceweights, outdegree, destinations,
                         destweights, info, comm_dist_graph);
}
GPURUN_MPI_ALIAS(MPI_Dist_graph_create_adjacent)

extern "C" int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                      const int degrees[], const int destinations[],
                                      const int weights[], MPI_Info info, int /*reorder*/,
                                      MPI_Comm* comm_dist_graph) {
  GPURUN_API_ENTER("MPI_Dist_graph_create");
  return create_general(call, comm_old, n, sources, degrees, destinations, weights, info,
                        comm_dist_graph);
}
GPURUN_MPI_ALIAS(MPI_Dist_graph_create)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree,
                                               int* weighted) {
  GPURUN_API_ENTER("MPI_Dist_graph_neighbors_count");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &kGraph, &topo));
  GPURUN_CHECK_NOT_NULL(comm, indegree);
  GPURUN_CHECK_NOT_NULL(comm, outdegree);
  GPURUN_CHECK_NOT_NULL(comm, weighted);
  *indegree = static_cast<int>(topo->sources.size());
  *outdegree = static_cast<int>(topo->destinations.size());
  *weighted = topo->weighted ? 1 : 0;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Dist_graph_neighbors_count)

namespace {

// Copies one side's neighbours (and weights, unless the array is MPI_UNWEIGHTED).
int copy_side(const Call& call, MPI_Comm comm, const std::vector<int>& ranks,
              const std::vector<int>& weights, bool weighted, int max, int* out_ranks,
              int* out_weights, const char* max_name, const char* ranks_name) {
  const int n = static_cast<int>(ranks.size());
  if (max < n) {
    return raise(call, comm, MPI_ERR_ARG, "argument %s %d is less than the %d neighbours", max_name,
                 max, n);
  }
  if (n > 0 && out_ranks == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument %s is a null pointer", ranks_name);
  std::copy(ranks.begin(), ranks.end(), out_ranks);
  if (weighted && out_weights != MPI_UNWEIGHTED && out_weights != MPI_WEIGHTS_EMPTY &&
      out_weights != nullptr)
    std::copy(weights.begin(), weights.end(), out_weights);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                         int sourceweights[], int maxoutdegree, int destinations[],
                                         int destweights[]) {
  GPURUN_API_ENTER("MPI_Dist_graph_neighbors");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &kGraph, &topo));
  GPURUN_TOPO_TRY(copy_side(call, comm, topo->sources, topo->sourceweights, topo->weighted,
                            maxindegree, sources, sourceweights, "maxindegree", "sources"));
  return copy_side(call, comm, topo->destinations, topo->destweights, topo->weighted, maxoutdegree,
                   destinations, destweights, "maxoutdegree", "destinations");
}
GPURUN_MPI_ALIAS(MPI_Dist_graph_neighbors)
