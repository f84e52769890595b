// The Topology of a communicator (api/topo.h): Cartesian arithmetic and neighbourhoods.
#include "api/topo.h"

namespace gpurun::api {

int Topology::cart_size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> Topology::coords_of(int rank) const {
  std::vector<int> coords(dims.size());
  for (int i = ndims() - 1; i >= 0; --i) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
  return coords;
}

int Topology::rank_of(const std::vector<int>& coords) const {
  int rank = 0;
  for (int i = 0; i < ndims(); ++i) rank = rank * dims[i] + coords[i];
  return rank;
}

void Topology::shift(int rank, int dim, int disp, int* source, int* dest) const {
  std::vector<int> coords = coords_of(rank);
  const int here = coords[dim], extent = dims[dim];
  auto step = [&](std::int64_t to) {
    if (periods[dim]) {
      to %= extent;
      if (to < 0) to += extent;
    } else if (to < 0 || to >= extent) {
      return MPI_PROC_NULL;
    }
    coords[dim] = static_cast<int>(to);
    return rank_of(coords);
  };
  *dest = step(std::int64_t{here} + disp);
  *source = step(std::int64_t{here} - disp);
}

void Topology::neighbors(int rank, std::vector<int>* in, std::vector<int>* out) const {
  if (kind == Kind::kGraph) {
    auto first = edges.begin() + graph_first(rank);
    in->assign(first, first + graph_degree(rank));
    *out = *in;
    return;
  }
  if (kind == Kind::kDistGraph) {
    *in = sources;
    *out = destinations;
    return;
  }
  in->clear();
  for (int d = 0; d < ndims(); ++d) {
    int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
    shift(rank, d, 1, &below, &above);
    in->push_back(below);
    in->push_back(above);
  }
  *out = *in;
}

const char* kind_name(Topology::Kind kind) {
  switch (kind) {
    case Topology::Kind::kCart:
      return "Cartesian";
    case Topology::Kind::kGraph:
      return "graph";
    default:
      return "distributed graph";
  }
}

int require_topology(const Call& call, MPI_Comm comm, const CommEntry& entry,
                     const Topology::Kind* kind, const Topology** topo) {
  const Topology* t = entry.topology.get();
  if (t == nullptr)
    return raise(call, comm, MPI_ERR_TOPOLOGY, "argument comm has no process topology");
  if (kind != nullptr && t->kind != *kind) {
    return raise(call, comm, MPI_ERR_TOPOLOGY, "argument comm has a %s topology, not a %s one",
                 kind_name(t->kind), kind_name(*kind));
  }
  *topo = t;
  return MPI_SUCCESS;
}

}  // namespace gpurun::api
