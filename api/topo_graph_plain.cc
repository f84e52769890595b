// Graph topologies (the MPI-1 form, MPI_Topo_test's MPI_GRAPH): MPI_Graph_create,
// MPI_Graphdims_get, MPI_Graph_get, MPI_Graph_neighbors_count, MPI_Graph_neighbors and
// MPI_Graph_map.
//
// Every rank gives the whole graph: node i's neighbours are edges[index[i - 1] .. index[i])
// (from 0 for node 0). MPI_Graph_create keeps the ranks of the old communicator (reorder is
// ignored, as the standard allows): its first nnodes ranks are the nodes, the others get
// MPI_COMM_NULL. Self-loops and repeated edges are allowed; the graph need not be symmetric.
// The neighbourhood collectives use a node's neighbours, in this order, as both its sources
// and its destinations (api/topo.h).
//
// Errors: nnodes outside 0..size, a negative or decreasing index: MPI_ERR_ARG; an edge naming
// no node: MPI_ERR_TOPOLOGY; a node number outside the graph in the queries: MPI_ERR_RANK.
#include <algorithm>
#include <memory>
#include <vector>

#include "api/checks.h"
#include "api/comm_build.h"
#include "api/topo.h"
#include "runtime/core/group.h"

namespace gpurun::api {
namespace {

constexpr Topology::Kind kGraph = Topology::Kind::kGraph;

// The graph arguments of MPI_Graph_create and MPI_Graph_map, for a communicator of `size`.
int check_graph(const Call& call, MPI_Comm comm, int size, int nnodes, const int index[],
                const int edges[]) {
  if (nnodes < 0 || nnodes > size) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument nnodes %d is outside 0..%d (the size of the communicator)", nnodes,
                 size);
  }
  if (nnodes > 0 && index == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument index is a null pointer");
  for (int i = 0; i < nnodes; ++i) {
    const int before = i == 0 ? 0 : index[i - 1];
    if (index[i] < before) {
      return raise(call, comm, MPI_ERR_ARG,
                   "argument index[%d] = %d is below %d (index holds cumulative degrees, so it "
                   "never decreases)",
                   i, index[i], before);
    }
  }
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  if (nedges > 0 && edges == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument edges is a null pointer");
  for (int k = 0; k < nedges; ++k) {
    if (edges[k] < 0 || edges[k] >= nnodes) {
      return raise(call, comm, MPI_ERR_TOPOLOGY,
                   "argument edges[%d] = %d is not a node of the graph (0..%d)", k, edges[k],
                   nnodes - 1);
    }
  }
  return MPI_SUCCESS;
}

int graph_create(const Call& call, MPI_Comm comm, int nnodes, const int index[], const int edges[],
                 MPI_Comm* comm_graph) {
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, comm_graph);
  GPURUN_TOPO_TRY(check_graph(call, comm, entry->comm->size(), nnodes, index, edges));
  auto topo = std::make_shared<Topology>();
  topo->kind = kGraph;
  topo->index.assign(index, index + nnodes);
  topo->edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
  CommSpec spec;
  spec.errhandler = entry->errhandler;
  spec.session = entry->session;
  if (entry->comm->rank() < nnodes) {
    std::vector<int> members(static_cast<std::size_t>(nnodes));
    for (int r = 0; r < nnodes; ++r) members[r] = r;
    Result<core::GroupPtr> g = core::include(entry->comm->group(), members);
    if (!g.ok()) return raise_status(call, comm, g.status());
    spec.group = std::move(g).value();
    spec.topology = std::move(topo);
  }
  return create_over(call, comm, *entry, std::move(spec), comm_graph);
}

// The graph of `comm` (MPI_ERR_TOPOLOGY unless it has one).
int graph_of(const Call& call, MPI_Comm comm, const Topology** topo) {
  GPURUN_CHECK_COMM(entry, comm);
  return require_topology(call, comm, *entry, &kGraph, topo);
}

int check_node(const Call& call, MPI_Comm comm, const Topology& topo, int rank) {
  if (rank >= 0 && rank < topo.graph_nodes()) return MPI_SUCCESS;
  return raise(call, comm, MPI_ERR_RANK, "argument rank %d is not a node of the graph (0..%d)",
               rank, topo.graph_nodes() - 1);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                                 int /*reorder*/, MPI_Comm* comm_graph) {
  GPURUN_API_ENTER("MPI_Graph_create");
  return graph_create(call, comm_old, nnodes, indx, edges, comm_graph);
}
GPURUN_MPI_ALIAS(MPI_Graph_create)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[],
                              int* newrank) {
  GPURUN_API_ENTER("MPI_Graph_map");
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, newrank);
  GPURUN_TOPO_TRY(check_graph(call, comm, entry->comm->size(), nnodes, indx, edges));
  *newrank = entry->comm->rank() < nnodes ? entry->comm->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Graph_map)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  GPURUN_API_ENTER("MPI_Graphdims_get");
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(graph_of(call, comm, &topo));
  GPURUN_CHECK_NOT_NULL(comm, nnodes);
  GPURUN_CHECK_NOT_NULL(comm, nedges);
  *nnodes = topo->graph_nodes();
  *nedges = static_cast<int>(topo->edges.size());
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) {
  GPURUN_API_ENTER("MPI_Graph_get");
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(graph_of(call, comm, &topo));
  const int nnodes = topo->graph_nodes(), nedges = static_cast<int>(topo->edges.size());
  if (maxindex < nnodes) {
    return raise(call, comm, MPI_ERR_ARG, "argument maxindex %d is less than the %d nodes",
                 maxindex, nnodes);
  }
  if (maxedges < nedges) {
    return raise(call, comm, MPI_ERR_ARG, "argument maxedges %d is less than the %d edges",
                 maxedges, nedges);
  }
  if (nnodes > 0) GPURUN_CHECK_NOT_NULL(comm, indx);
  if (nedges > 0) GPURUN_CHECK_NOT_NULL(comm, edges);
  std::copy(topo->index.begin(), topo->index.end(), indx);
  std::copy(topo->edges.begin(), topo->edges.end(), edges);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  GPURUN_API_ENTER("MPI_Graph_neighbors_count");
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(graph_of(call, comm, &topo));
  GPURUN_TOPO_TRY(check_node(call, comm, *topo, rank));
  GPURUN_CHECK_NOT_NULL(comm, nneighbors);
  *nneighbors = topo->graph_degree(rank);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  GPURUN_API_ENTER("MPI_Graph_neighbors");
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(graph_of(call, comm, &topo));
  GPURUN_TOPO_TRY(check_node(call, comm, *topo, rank));
  const int degree = topo->graph_degree(rank);
  if (maxneighbors < degree) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument maxneighbors %d is less than the %d neighbours of node %d", maxneighbors,
                 degree, rank);
  }
  if (degree > 0) GPURUN_CHECK_NOT_NULL(comm, neighbors);
  auto first = topo->edges.begin() + topo->graph_first(rank);
  std::copy(first, first + degree, neighbors);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Graph_neighbors)
