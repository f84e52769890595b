// Process topologies (MPI_Cart_*, MPI_Graph_*, MPI_Dist_graph_*): what a communicator created
// by MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create or MPI_Dist_graph_create(_adjacent) knows
// of its layout. A CommEntry holds its topology through a shared pointer to an immutable
// Topology: MPI_Comm_dup shares it, and it goes with the last communicator that uses it.
//
// Cartesian ranks are row-major (the last dimension varies fastest), as the standard requires;
// MPI_Cart_create keeps the ranks of the old communicator (reorder is allowed to be ignored).
// A graph (MPI_Graph_create) keeps the whole graph as given (index and edges, the same on every
// rank); a rank's neighbours are its edges in that order, used as both sources and
// destinations by the neighbourhood collectives. A distributed graph keeps this rank's in- and
// out-edges in the order the neighbourhood collectives use: the caller's order for
// MPI_Dist_graph_create_adjacent; for MPI_Dist_graph_create, the order of the edges over all
// ranks (contributing rank, then position in its arrays), so that two ranks joined by several
// edges list them alike.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "api/call.h"
#include "api/state.h"

namespace gpurun::api {

struct Topology {
  enum class Kind : std::uint8_t { kCart, kGraph, kDistGraph };
  Kind kind = Kind::kCart;
  // Cartesian: extent and periodicity of each dimension (ndims may be 0).
  std::vector<int> dims;
  std::vector<bool> periods;
  // Distributed graph: this rank's in-neighbours (sources) and out-neighbours (destinations),
  // with weights when `weighted`.
  std::vector<int> sources, sourceweights;
  std::vector<int> destinations, destweights;
  bool weighted = false;
  // Graph: node i's neighbours are edges[index[i - 1] .. index[i]) (from 0 for node 0).
  std::vector<int> index, edges;

  int ndims() const { return static_cast<int>(dims.size()); }
  // Number of ranks of the Cartesian grid.
  int cart_size() const;
  // Coordinates of grid rank `rank` / grid rank at `coords` (each already in range).
  std::vector<int> coords_of(int rank) const;
  int rank_of(const std::vector<int>& coords) const;
  // MPI_Cart_shift of `rank`: the ranks `disp` steps below and above along `dim`
  // (MPI_PROC_NULL off a non-periodic edge).
  void shift(int rank, int dim, int disp, int* source, int* dest) const;
  // Graph: the number of nodes, and node `rank`'s first edge and number of edges.
  int graph_nodes() const { return static_cast<int>(index.size()); }
  int graph_first(int rank) const { return rank == 0 ? 0 : index[rank - 1]; }
  int graph_degree(int rank) const { return index[rank] - graph_first(rank); }
  // The neighbourhood of `rank` as the neighbourhood collectives see it: in-neighbours and
  // out-neighbours in block order (Cartesian: for each dimension, the negative then the
  // positive direction; MPI_PROC_NULL where there is none; graph: its edges, both ways).
  void neighbors(int rank, std::vector<int>* in, std::vector<int>* out) const;
};

using TopologyPtr = std::shared_ptr<const Topology>;

// "Cartesian", "graph", "distributed graph".
const char* kind_name(Topology::Kind kind);

// The topology of `entry`, or fails with MPI_ERR_TOPOLOGY unless it has the wanted kind
// (`kind` null: any kind). Returns MPI_SUCCESS or the error code; sets *topo.
int require_topology(const Call& call, MPI_Comm comm, const CommEntry& entry,
                     const Topology::Kind* kind, const Topology** topo);

}  // namespace gpurun::api

// Returns from the calling function when `expr` (an MPI error code) is not MPI_SUCCESS.
#define GPURUN_TOPO_TRY(expr)                                                      \
  do {                                                                             \
    if (int gpurun_topo_rc_ = (expr); gpurun_topo_rc_ != MPI_SUCCESS) [[unlikely]] \
      return gpurun_topo_rc_;                                                      \
  } while (0)
