// Cartesian topologies: MPI_Dims_create, MPI_Cart_create, MPI_Cart_get, MPI_Cartdim_get,
// MPI_Cart_rank, MPI_Cart_coords, MPI_Cart_shift, MPI_Cart_sub, MPI_Cart_map, and
// MPI_Topo_test for every kind of topology.
//
// MPI_Cart_create keeps the ranks of the old communicator (reorder is ignored, as the standard
// allows): its first prod(dims) ranks form the grid, row-major; the others get MPI_COMM_NULL.
#include <memory>
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/comm_build.h"
#include "api/topo.h"
#include "runtime/core/group.h"

namespace gpurun::api {
namespace {

constexpr Topology::Kind kCart = Topology::Kind::kCart;

// The grid arguments of MPI_Cart_create and MPI_Cart_map: ndims >= 0, dims and periods given,
// every extent positive, and no more grid ranks than `size`.
int check_grid(const Call& call, MPI_Comm comm, int size, int ndims, const int dims[],
               const int periods[]) {
  if (ndims < 0) return raise(call, comm, MPI_ERR_DIMS, "argument ndims %d is negative", ndims);
  if (ndims > 0 && dims == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument dims is a null pointer");
  if (ndims > 0 && periods == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument periods is a null pointer");
  std::int64_t cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      return raise(call, comm, MPI_ERR_DIMS, "argument dims[%d] = %d is not positive", i, dims[i]);
    cells *= dims[i];
    if (cells > size) {
      return raise(call, comm, MPI_ERR_ARG,
                   "argument dims asks for a grid of more ranks than the communicator has (%d)",
                   size);
    }
  }
  return MPI_SUCCESS;
}

TopologyPtr make_cart(int ndims, const int dims[], const int periods[]) {
  auto t = std::make_shared<Topology>();
  t->kind = kCart;
  t->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) t->periods.push_back(periods[i] != 0);
  return t;
}

// Creates a communicator over all of `parent` in which this process joins `members` (ranks of
// the parent, in order; empty: it gets MPI_COMM_NULL), with topology `topo`.
int create_cart_comm(const Call& call, MPI_Comm comm, CommEntry& parent,
                     const std::vector<int>& members, TopologyPtr topo, MPI_Comm* newcomm) {
  CommSpec spec;
  spec.errhandler = parent.errhandler;
  spec.session = parent.session;
  if (!members.empty()) {
    Result<core::GroupPtr> g = core::include(parent.comm->group(), members);
    if (!g.ok()) return raise_status(call, comm, g.status());
    spec.group = std::move(g).value();
    spec.topology = std::move(topo);
  }
  return create_over(call, comm, parent, std::move(spec), newcomm);
}

int cart_create(const Call& call, MPI_Comm comm, int ndims, const int dims[], const int periods[],
                MPI_Comm* comm_cart) {
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, comm_cart);
  GPURUN_TOPO_TRY(check_grid(call, comm, entry->comm->size(), ndims, dims, periods));
  TopologyPtr topo = make_cart(ndims, dims, periods);
  std::vector<int> members;
  if (entry->comm->rank() < topo->cart_size())
    for (int r = 0; r < topo->cart_size(); ++r) members.push_back(r);
  return create_cart_comm(call, comm, *entry, members, std::move(topo), comm_cart);
}

// MPI_Cart_sub: the ranks that share this rank's coordinates in the dimensions dropped, in
// rank order (which is row-major over the dimensions kept).
int cart_sub(const Call& call, MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &kCart, &topo));
  if (topo->ndims() > 0) GPURUN_CHECK_NOT_NULL(comm, remain_dims);
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  auto sub = std::make_shared<Topology>();
  for (int d = 0; d < topo->ndims(); ++d) {
    if (remain_dims[d] == 0) continue;
    sub->dims.push_back(topo->dims[d]);
    sub->periods.push_back(topo->periods[d]);
  }
  std::vector<int> mine = topo->coords_of(entry->comm->rank());
  std::vector<int> members;
  for (int r = 0; r < topo->cart_size(); ++r) {
    std::vector<int> c = topo->coords_of(r);
    bool same = true;
    for (int d = 0; d < topo->ndims(); ++d) same = same && (remain_dims[d] != 0 || c[d] == mine[d]);
    if (same) members.push_back(r);
  }
  return create_cart_comm(call, comm, *entry, members, std::move(sub), newcomm);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                                int /*reorder*/, MPI_Comm* comm_cart) {
  GPURUN_API_ENTER("MPI_Cart_create");
  return cart_create(call, comm_old, ndims, dims, periods, comm_cart);
}
GPURUN_MPI_ALIAS(MPI_Cart_create)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Cart_sub");
  return cart_sub(call, comm, remain_dims, newcomm);
}
GPURUN_MPI_ALIAS(MPI_Cart_sub)

extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                             int* newrank) {
  GPURUN_API_ENTER("MPI_Cart_map");
  GPURUN_CHECK_INTRA_ONLY(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, newrank);
  GPURUN_TOPO_TRY(check_grid(call, comm, entry->comm->size(), ndims, dims, periods));
  int cells = 1;
  for (int i = 0; i < ndims; ++i) cells *= dims[i];
  *newrank = entry->comm->rank() < cells ? entry->comm->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Cart_map)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  GPURUN_API_ENTER("MPI_Cartdim_get");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  const Topology::Kind cart = Topology::Kind::kCart;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &cart, &topo));
  GPURUN_CHECK_NOT_NULL(comm, ndims);
  *ndims = topo->ndims();
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  GPURUN_API_ENTER("MPI_Cart_get");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  const Topology::Kind cart = Topology::Kind::kCart;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &cart, &topo));
  if (maxdims < topo->ndims()) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument maxdims %d is less than the number of dimensions (%d)", maxdims,
                 topo->ndims());
  }
  if (topo->ndims() > 0) {
    GPURUN_CHECK_NOT_NULL(comm, dims);
    GPURUN_CHECK_NOT_NULL(comm, periods);
    GPURUN_CHECK_NOT_NULL(comm, coords);
  }
  std::vector<int> mine = topo->coords_of(entry->comm->rank());
  for (int d = 0; d < topo->ndims(); ++d) {
    dims[d] = topo->dims[d];
    periods[d] = topo->periods[d] ? 1 : 0;
    coords[d] = mine[d];
  }
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  GPURUN_API_ENTER("MPI_Cart_rank");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  const Topology::Kind cart = Topology::Kind::kCart;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &cart, &topo));
  if (topo->ndims() > 0) GPURUN_CHECK_NOT_NULL(comm, coords);
  GPURUN_CHECK_NOT_NULL(comm, rank);
  std::vector<int> at(topo->ndims());
  for (int d = 0; d < topo->ndims(); ++d) {
    int c = coords[d], extent = topo->dims[d];
    if (topo->periods[d]) {
      c %= extent;
      if (c < 0) c += extent;
    } else if (c < 0 || c >= extent) {
      return raise(call, comm, MPI_ERR_ARG,
                   "argument coords[%d] = %d is outside 0..%d of a non-periodic dimension", d,
                   coords[d], extent - 1);
    }
    at[d] = c;
  }
  *rank = topo->rank_of(at);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  GPURUN_API_ENTER("MPI_Cart_coords");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  const Topology::Kind cart = Topology::Kind::kCart;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &cart, &topo));
  if (rank < 0 || rank >= topo->cart_size()) {
    return raise(call, comm, MPI_ERR_RANK, "argument rank %d is not a rank of the grid (size %d)",
                 rank, topo->cart_size());
  }
  if (maxdims < topo->ndims()) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument maxdims %d is less than the number of dimensions (%d)", maxdims,
                 topo->ndims());
  }
  if (topo->ndims() > 0) GPURUN_CHECK_NOT_NULL(comm, coords);
  std::vector<int> c = topo->coords_of(rank);
  for (int d = 0; d < topo->ndims(); ++d) coords[d] = c[d];
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source,
                               int* rank_dest) {
  GPURUN_API_ENTER("MPI_Cart_shift");
  GPURUN_CHECK_COMM(entry, comm);
  const Topology* topo = nullptr;
  const Topology::Kind cart = Topology::Kind::kCart;
  GPURUN_TOPO_TRY(require_topology(call, comm, *entry, &cart, &topo));
  if (direction < 0 || direction >= topo->ndims()) {
    return raise(call, comm, MPI_ERR_ARG, "argument direction %d is outside 0..%d", direction,
                 topo->ndims() - 1);
  }
  GPURUN_CHECK_NOT_NULL(comm, rank_source);
  GPURUN_CHECK_NOT_NULL(comm, rank_dest);
  topo->shift(entry->comm->rank(), direction, disp, rank_source, rank_dest);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Cart_shift)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int* status) {
  GPURUN_API_ENTER("MPI_Topo_test");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, status);
  const Topology* topo = entry->topology.get();
  if (topo == nullptr) {
    *status = MPI_UNDEFINED;
  } else {
    switch (topo->kind) {
      case Topology::Kind::kCart:
        *status = MPI_CART;
        break;
      case Topology::Kind::kGraph:
        *status = MPI_GRAPH;
        break;
      default:
        *status = MPI_DIST_GRAPH;
    }
  }
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Topo_test)
