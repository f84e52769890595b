/* Bad arguments to the topology calls and the neighbourhood collectives under
 * MPI_ERRORS_RETURN (every rank makes the same mistake, so nobody waits on anybody): each
 * gives its error class and a message naming the call and the argument. Communicators without
 * a topology (or with the other kind) give MPI_ERR_TOPOLOGY. Afterwards the topologies still
 * work. */
#include <string.h>

#include "mtest.h"

static int rank, size;

static void cart_errors(void) {
  MPI_Comm w = MPI_COMM_WORLD, cart = MPI_COMM_NULL;
  int dims[2] = {size, 1}, periods[2] = {0, 0}, coords[2], r, n, src, dst;
  int neg[2] = {-1, 1}, big[2] = {size + 1, 1};
  mtest_expect_error(MPI_Cart_create(w, -1, dims, periods, 0, &cart), MPI_ERR_DIMS, "ndims -1",
                     "ndims");
  mtest_expect_error(MPI_Cart_create(w, 2, neg, periods, 0, &cart), MPI_ERR_DIMS, "dims -1",
                     "dims[0]");
  mtest_expect_error(MPI_Cart_create(w, 2, big, periods, 0, &cart), MPI_ERR_ARG, "grid too big",
                     "dims");
  mtest_expect_error(MPI_Cart_create(w, 2, NULL, periods, 0, &cart), MPI_ERR_ARG, "dims null",
                     "dims");
  mtest_expect_error(MPI_Cart_create(w, 2, dims, periods, 0, NULL), MPI_ERR_ARG, "newcomm null",
                     "comm_cart");
  mtest_expect_error(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &cart), MPI_ERR_COMM,
                     "comm null", "MPI_Cart_create");
  mtest_expect_error(MPI_Cart_map(w, -2, dims, periods, &r), MPI_ERR_DIMS, "map ndims -2",
                     "MPI_Cart_map");
  /* World has no topology. */
  mtest_expect_error(MPI_Cart_rank(w, coords, &r), MPI_ERR_TOPOLOGY, "rank on world",
                     "MPI_Cart_rank");
  mtest_expect_error(MPI_Cart_coords(w, 0, 2, coords), MPI_ERR_TOPOLOGY, "coords on world",
                     "topology");
  mtest_expect_error(MPI_Cart_shift(w, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY, "shift on world", NULL);
  mtest_expect_error(MPI_Cart_get(w, 2, dims, periods, coords), MPI_ERR_TOPOLOGY, "get on world",
                     NULL);
  mtest_expect_error(MPI_Cartdim_get(w, &n), MPI_ERR_TOPOLOGY, "cartdim on world",
                     "MPI_Cartdim_get");
  mtest_expect_error(MPI_Cart_sub(w, periods, &cart), MPI_ERR_TOPOLOGY, "sub on world", NULL);
  mtest_expect_error(MPI_Cart_create(w, 2, dims, periods, 0, &cart), MPI_SUCCESS,
                     "good Cart_create", NULL);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  mtest_expect_error(MPI_Cart_coords(cart, size, 2, coords), MPI_ERR_RANK, "coords rank = size",
                     "rank");
  mtest_expect_error(MPI_Cart_coords(cart, -1, 2, coords), MPI_ERR_RANK, "coords rank -1", "rank");
  mtest_expect_error(MPI_Cart_coords(cart, 0, 1, coords), MPI_ERR_ARG, "maxdims 1", "maxdims");
  mtest_expect_error(MPI_Cart_get(cart, 1, dims, periods, coords), MPI_ERR_ARG, "get maxdims 1",
                     "maxdims");
  int out_of_range[2] = {size, 0};
  mtest_expect_error(MPI_Cart_rank(cart, out_of_range, &r), MPI_ERR_ARG, "coords[0] = size",
                     "coords[0]");
  mtest_expect_error(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG, "direction 2",
                     "direction");
  mtest_expect_error(MPI_Cart_shift(cart, -1, 1, &src, &dst), MPI_ERR_ARG, "direction -1",
                     "direction");
  mtest_expect_error(MPI_Cart_shift(cart, 0, 1, NULL, &dst), MPI_ERR_ARG, "source null",
                     "rank_source");
  mtest_expect_error(MPI_Topo_test(cart, NULL), MPI_ERR_ARG, "status null", "status");
  int ni, no, wt;
  mtest_expect_error(MPI_Dist_graph_neighbors_count(cart, &ni, &no, &wt), MPI_ERR_TOPOLOGY,
                     "graph count on cart", "Cartesian");
  MPI_Comm_free(&cart);
}

static void graph_errors(void) {
  MPI_Comm w = MPI_COMM_WORLD, g = MPI_COMM_NULL;
  int bad[1] = {size}, ok[1] = {0}, negw[1] = {-3}, neg = -1, ni, no, wt;
  mtest_expect_error(MPI_Dist_graph_create_adjacent(w, -1, ok, MPI_UNWEIGHTED, 1, ok,
                                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                     MPI_ERR_ARG, "indegree -1", "indegree");
  mtest_expect_error(MPI_Dist_graph_create_adjacent(w, 1, bad, MPI_UNWEIGHTED, 1, ok,
                                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                     MPI_ERR_RANK, "source = size", "sources[0]");
  mtest_expect_error(MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_UNWEIGHTED, 1, bad,
                                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                     MPI_ERR_RANK, "destination = size", "destinations[0]");
  mtest_expect_error(
      MPI_Dist_graph_create_adjacent(w, 1, ok, negw, 1, ok, ok, MPI_INFO_NULL, 0, &g), MPI_ERR_ARG,
      "negative weight", "sourceweights[0]");
  mtest_expect_error(
      MPI_Dist_graph_create_adjacent(w, 1, ok, NULL, 1, ok, ok, MPI_INFO_NULL, 0, &g), MPI_ERR_ARG,
      "null weights", "sourceweights");
  mtest_expect_error(
      MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_WEIGHTS_EMPTY, 1, ok, ok, MPI_INFO_NULL, 0, &g),
      MPI_ERR_ARG, "empty weights for an edge", "MPI_WEIGHTS_EMPTY");
  mtest_expect_error(
      MPI_Dist_graph_create(w, 1, ok, &neg, ok, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g), MPI_ERR_ARG,
      "degree -1", "degrees[0]");
  mtest_expect_error(MPI_Dist_graph_create(w, 1, bad, ok, ok, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                     MPI_ERR_RANK, "general source = size", "sources[0]");
  mtest_expect_error(MPI_Dist_graph_create(w, -1, ok, ok, ok, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                     MPI_ERR_ARG, "n -1", "argument n");
  mtest_expect_error(MPI_Dist_graph_neighbors_count(w, &ni, &no, &wt), MPI_ERR_TOPOLOGY,
                     "count on world", "MPI_Dist_graph_neighbors_count");
  int src[2], dst[2];
  mtest_expect_error(MPI_Dist_graph_neighbors(w, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED),
                     MPI_ERR_TOPOLOGY, "neighbors on world", NULL);
  int one = 1;
  mtest_expect_error(
      MPI_Dist_graph_create_adjacent(w, 1, ok, &one, 1, ok, &one, MPI_INFO_NULL, 0, &g),
      MPI_SUCCESS, "good adjacent", NULL);
  MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
  mtest_expect_error(MPI_Dist_graph_neighbors(g, 0, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED),
                     MPI_ERR_ARG, "maxindegree 0", "maxindegree");
  mtest_expect_error(MPI_Cart_shift(g, 0, 1, &ni, &no), MPI_ERR_TOPOLOGY, "shift on graph",
                     "distributed graph");
  MPI_Comm_free(&g);
}

static void neighbor_errors(void) {
  MPI_Comm w = MPI_COMM_WORLD, g;
  int a[4] = {0}, b[4] = {0}, counts[1] = {1}, displs[1] = {0}, negc[1] = {-1};
  MPI_Request req;
  mtest_expect_error(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_TOPOLOGY,
                     "allgather on world", "MPI_Neighbor_allgather");
  mtest_expect_error(MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, w, &req),
                     MPI_ERR_TOPOLOGY, "ialltoall on world", "topology");
  int self = rank;
  MPI_Dist_graph_create_adjacent(w, 1, &self, MPI_UNWEIGHTED, 1, &self, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &g);
  MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
  mtest_expect_error(MPI_Neighbor_alltoall(a, -1, MPI_INT, b, 1, MPI_INT, g), MPI_ERR_COUNT,
                     "sendcount -1", "sendcount");
  mtest_expect_error(MPI_Neighbor_alltoall(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, g), MPI_ERR_TYPE,
                     "sendtype null", "sendtype");
  mtest_expect_error(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, g),
                     MPI_ERR_BUFFER, "in place", "MPI_IN_PLACE");
  mtest_expect_error(MPI_Neighbor_allgather(a, 1, MPI_INT, NULL, 1, MPI_INT, g), MPI_ERR_BUFFER,
                     "recvbuf null", "recvbuf");
  mtest_expect_error(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, negc, displs, MPI_INT, g),
                     MPI_ERR_COUNT, "recvcounts[0] -1", "recvcounts[0]");
  mtest_expect_error(
      MPI_Neighbor_alltoallv(a, NULL, displs, MPI_INT, b, counts, displs, MPI_INT, g), MPI_ERR_ARG,
      "sendcounts null", "sendcounts");
  mtest_expect_error(MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, g, NULL), MPI_ERR_ARG,
                     "request null", "request");
  /* A receive too small for what the neighbour sends: truncation, found by the receiver. */
  mtest_expect_error(MPI_Neighbor_alltoall(a, 2, MPI_INT, b, 1, MPI_INT, g), MPI_ERR_TRUNCATE,
                     "truncated", NULL);
  /* The graph still works. */
  a[0] = 40 + rank;
  b[0] = 0;
  mtest_expect_error(MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, g), MPI_SUCCESS,
                     "good alltoall", NULL);
  MTEST_CHECK(b[0] == 40 + rank, "self exchange got %d", b[0]);
  MPI_Comm_free(&g);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  cart_errors();
  graph_errors();
  neighbor_errors();
  return mtest_finalize();
}
