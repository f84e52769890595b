/* Graph topologies (MPI_Graph_create and its queries) and the neighbourhood collectives on
 * them and on distributed graphs built by MPI_Dist_graph_create (edges given by any rank).
 *
 * The graph: node i's neighbours are i + 1 and i - 1 (mod n), and node 0 has a self-loop, so
 * that with n = 1 or 2 a node lists a neighbour more than once. The queries are checked
 * against the arrays given; the collectives against a reference in which the k-th block
 * that rank r receives from rank s is the block of s's k-th edge to r. With n = size - 1
 * (size >= 3) the last rank gets MPI_COMM_NULL. Bad arguments are checked under
 * MPI_ERRORS_RETURN: class, and a message naming the call and the argument. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

/* A graph as adjacency lists: node i's neighbours are adj[first[i] .. first[i + 1]). */
typedef struct {
  int n, first[16], adj[64];
} Graph;

static Graph ring_graph(int n) {
  Graph g = {.n = n};
  int at = 0;
  for (int i = 0; i < n; ++i) {
    g.first[i] = at;
    g.adj[at++] = (i + 1) % n;
    g.adj[at++] = (i + n - 1) % n;
    if (i == 0) g.adj[at++] = 0;
  }
  g.first[n] = at;
  return g;
}

/* The position in s's list of the edge that carries r's k-th block from s (the c-th edge
 * s -> r for the c-th occurrence of s among r's neighbours), or -1. */
static int sender_block(const Graph *in, const Graph *out, int r, int k) {
  int s = in->adj[in->first[r] + k], c = 0;
  for (int i = in->first[r]; i < in->first[r] + k; ++i) c += in->adj[i] == s;
  for (int j = out->first[s]; j < out->first[s + 1]; ++j)
    if (out->adj[j] == r && c-- == 0) return j - out->first[s];
  return -1;
}

/* Neighbor_alltoall (blocking, nonblocking, persistent), alltoallv with per-edge counts and
 * Neighbor_allgather on `comm`, whose sources are in->adj and destinations out->adj. */
static void collectives(MPI_Comm comm, const Graph *in, const Graph *out, const char *what) {
  const int me = rank, indeg = in->first[me + 1] - in->first[me];
  const int outdeg = out->first[me + 1] - out->first[me];
  int send[64], recv[64], counts[64], displs[64], rcounts[64], rdispls[64];
  for (int form = 0; form < 3; ++form) {
    for (int j = 0; j < outdeg; ++j) send[2 * j] = 1000 * me + j, send[2 * j + 1] = -j - form;
    for (int i = 0; i < 2 * indeg; ++i) recv[i] = -99;
    MPI_Request req;
    if (form == 0) MPI_Neighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm);
    if (form == 1) MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &req);
    if (form == 2) {
      MPI_Neighbor_alltoall_init(send, 2, MPI_INT, recv, 2, MPI_INT, comm, MPI_INFO_NULL, &req);
      MPI_Start(&req);
    }
    if (form != 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (form == 2) MPI_Request_free(&req);
    for (int k = 0; k < indeg; ++k) {
      int s = in->adj[in->first[me] + k], j = sender_block(in, out, me, k);
      MTEST_CHECK(recv[2 * k] == 1000 * s + j && recv[2 * k + 1] == -j - form,
                  "%s form %d rank %d block %d from %d: (%d, %d), expected (%d, %d)", what, form,
                  me, k, s, recv[2 * k], recv[2 * k + 1], 1000 * s + j, -j - form);
    }
  }
  /* v: the edge at position j of a rank carries j % 3 ints (0 included). */
  int sat = 0, rat = 0;
  for (int j = 0; j < outdeg; ++j) {
    counts[j] = j % 3, displs[j] = sat;
    for (int x = 0; x < counts[j]; ++x) send[sat++] = 7000 + 100 * me + 10 * j + x;
  }
  for (int k = 0; k < indeg; ++k) {
    rcounts[k] = sender_block(in, out, me, k) % 3, rdispls[k] = rat + 1; /* a gap between */
    rat += rcounts[k] + 1;
  }
  for (int i = 0; i < rat + 1; ++i) recv[i] = -5;
  MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
  for (int k = 0; k < indeg; ++k) {
    int s = in->adj[in->first[me] + k], j = sender_block(in, out, me, k);
    MTEST_CHECK(recv[rdispls[k] - 1] == -5, "%s v gap before block %d written", what, k);
    for (int x = 0; x < rcounts[k]; ++x)
      MTEST_CHECK(recv[rdispls[k] + x] == 7000 + 100 * s + 10 * j + x,
                  "%s v rank %d block %d elem %d: %d", what, me, k, x, recv[rdispls[k] + x]);
  }
  int mine = 31 * me + 5;
  MPI_Neighbor_allgather(&mine, 1, MPI_INT, recv, 1, MPI_INT, comm);
  for (int k = 0; k < indeg; ++k)
    MTEST_CHECK(recv[k] == 31 * in->adj[in->first[me] + k] + 5, "%s allgather block %d: %d", what,
                k, recv[k]);
}

static void check_queries(MPI_Comm comm, const Graph *g, const int *index) {
  int status, nnodes, nedges, idx[16], edges[64], nb[64], count, newrank;
  MPI_Topo_test(comm, &status);
  MTEST_CHECK(status == MPI_GRAPH, "Topo_test %d, expected MPI_GRAPH", status);
  MPI_Graphdims_get(comm, &nnodes, &nedges);
  MTEST_CHECK(nnodes == g->n && nedges == g->first[g->n], "Graphdims (%d, %d)", nnodes, nedges);
  MPI_Graph_get(comm, 16, 64, idx, edges);
  for (int i = 0; i < g->n; ++i) MTEST_CHECK(idx[i] == index[i], "index[%d] %d", i, idx[i]);
  for (int k = 0; k < g->first[g->n]; ++k)
    MTEST_CHECK(edges[k] == g->adj[k], "edges[%d] %d", k, edges[k]);
  for (int node = 0; node < g->n; ++node) {
    int degree = g->first[node + 1] - g->first[node];
    MPI_Graph_neighbors_count(comm, node, &count);
    MTEST_CHECK(count == degree, "node %d count %d, expected %d", node, count, degree);
    MPI_Graph_neighbors(comm, node, degree, nb);
    for (int k = 0; k < degree; ++k)
      MTEST_CHECK(nb[k] == g->adj[g->first[node] + k], "node %d neighbour %d: %d", node, k, nb[k]);
  }
  MPI_Comm_rank(comm, &newrank);
  MTEST_CHECK(newrank == rank, "graph rank %d, expected %d (reorder is ignored)", newrank, rank);
}

static void graph(int n) {
  Graph g = ring_graph(n);
  int index[16], newrank;
  for (int i = 0; i < n; ++i) index[i] = g.first[i + 1];
  MPI_Comm comm, dup;
  MPI_Graph_map(MPI_COMM_WORLD, n, index, g.adj, &newrank);
  MTEST_CHECK(newrank == (rank < n ? rank : MPI_UNDEFINED), "Graph_map gave %d", newrank);
  MPI_Graph_create(MPI_COMM_WORLD, n, index, g.adj, 1, &comm);
  if (rank >= n) {
    MTEST_CHECK(comm == MPI_COMM_NULL, "rank %d beyond %d nodes got a communicator", rank, n);
    return;
  }
  MTEST_CHECK(comm != MPI_COMM_NULL, "rank %d of %d nodes got MPI_COMM_NULL", rank, n);
  if (comm == MPI_COMM_NULL) return;
  check_queries(comm, &g, index);
  MPI_Comm_dup(comm, &dup);
  MPI_Comm_free(&comm);
  check_queries(dup, &g, index);
  collectives(dup, &g, &g, "graph");
  MPI_Comm_free(&dup);
}

/* Each rank r gives the edges r -> r+1 and (r+2) -> r (mod size), and rank 0 also 1 -> 0
 * (twice when size == 2: a multigraph); every rank works out the in- and out-lists in the
 * order of the edges over all ranks, which MPI_Dist_graph_neighbors must give. */
static void dist_graph(void) {
  int srcs[8], degs[8], dsts[8], n = 0;
  int all_src[64], all_dst[64], m = 0;
  for (int r = 0; r < size; ++r) {
    int e[3][2] = {{r, (r + 1) % size}, {(r + 2) % size, r}, {1 % size, 0}};
    for (int k = 0; k < (r == 0 ? 3 : 2); ++k) {
      all_src[m] = e[k][0], all_dst[m++] = e[k][1];
      if (r == rank) srcs[n] = e[k][0], degs[n] = 1, dsts[n++] = e[k][1];
    }
  }
  Graph in = {.n = size}, out = {.n = size};
  int ai = 0, ao = 0;
  for (int r = 0; r < size; ++r) {
    in.first[r] = ai, out.first[r] = ao;
    for (int k = 0; k < m; ++k) {
      if (all_dst[k] == r) in.adj[ai++] = all_src[k];
      if (all_src[k] == r) out.adj[ao++] = all_dst[k];
    }
  }
  in.first[size] = ai, out.first[size] = ao;
  MPI_Comm comm;
  MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                        &comm);
  int status, indeg, outdeg, weighted, s[64], d[64];
  MPI_Topo_test(comm, &status);
  MTEST_CHECK(status == MPI_DIST_GRAPH, "dist Topo_test %d", status);
  MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
  int want_in = in.first[rank + 1] - in.first[rank],
      want_out = out.first[rank + 1] - out.first[rank];
  MTEST_CHECK(indeg == want_in && outdeg == want_out && !weighted, "dist counts (%d, %d, %d)",
              indeg, outdeg, weighted);
  if (indeg == want_in && outdeg == want_out) {
    MPI_Dist_graph_neighbors(comm, 64, s, MPI_UNWEIGHTED, 64, d, MPI_UNWEIGHTED);
    for (int k = 0; k < indeg; ++k)
      MTEST_CHECK(s[k] == in.adj[in.first[rank] + k], "dist source %d: %d", k, s[k]);
    for (int k = 0; k < outdeg; ++k)
      MTEST_CHECK(d[k] == out.adj[out.first[rank] + k], "dist destination %d: %d", k, d[k]);
    collectives(comm, &in, &out, "dist graph");
  }
  MPI_Comm_free(&comm);
}

static void errors(void) {
  MPI_Comm w = MPI_COMM_WORLD, g = MPI_COMM_NULL;
  int index[2] = {1, 2}, edges[2] = {0, 0}, bad_index[2] = {2, 1}, bad_edges[2] = {0, size};
  int n = size >= 2 ? 2 : 1, r, dims[1], periods[1], coords[1], a, b, c, nb[4];
  if (n == 1) index[0] = 2; /* one node with a self-loop twice */
  mtest_expect_error(MPI_Graph_create(w, -1, index, edges, 0, &g), MPI_ERR_ARG, "nnodes -1",
                     "nnodes");
  mtest_expect_error(MPI_Graph_create(w, size + 1, index, edges, 0, &g), MPI_ERR_ARG,
                     "nnodes > size", "MPI_Graph_create");
  if (size >= 2)
    mtest_expect_error(MPI_Graph_create(w, 2, bad_index, edges, 0, &g), MPI_ERR_ARG,
                       "index decreasing", "index[1]");
  mtest_expect_error(MPI_Graph_create(w, n, index, bad_edges, 0, &g), MPI_ERR_TOPOLOGY,
                     "edge out of range", "edges[");
  mtest_expect_error(MPI_Graph_create(w, n, NULL, edges, 0, &g), MPI_ERR_ARG, "index null",
                     "index");
  mtest_expect_error(MPI_Graph_create(w, n, index, edges, 0, NULL), MPI_ERR_ARG, "comm_graph null",
                     "comm_graph");
  mtest_expect_error(MPI_Graph_create(MPI_COMM_NULL, n, index, edges, 0, &g), MPI_ERR_COMM,
                     "comm null", "MPI_Graph_create");
  mtest_expect_error(MPI_Graph_map(w, n, index, bad_edges, &r), MPI_ERR_TOPOLOGY, "map bad edge",
                     "MPI_Graph_map");
  mtest_expect_error(MPI_Graphdims_get(w, &a, &b), MPI_ERR_TOPOLOGY, "graphdims on world",
                     "topology");
  mtest_expect_error(MPI_Graph_neighbors_count(w, 0, &a), MPI_ERR_TOPOLOGY, "count on world", NULL);
  mtest_expect_error(MPI_Graph_create(w, n, index, edges, 0, &g), MPI_SUCCESS, "good Graph_create",
                     NULL);
  if (g == MPI_COMM_NULL) return;
  MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
  mtest_expect_error(MPI_Graph_neighbors_count(g, n, &a), MPI_ERR_RANK, "count of node n", "rank");
  mtest_expect_error(MPI_Graph_neighbors_count(g, -1, &a), MPI_ERR_RANK, "count of node -1", NULL);
  mtest_expect_error(MPI_Graph_neighbors(g, 0, 0, nb), MPI_ERR_ARG, "maxneighbors 0",
                     "maxneighbors");
  mtest_expect_error(MPI_Graph_neighbors(g, n, 4, nb), MPI_ERR_RANK, "neighbours of node n", NULL);
  mtest_expect_error(MPI_Graph_get(g, 0, 4, index, edges), MPI_ERR_ARG, "maxindex 0", "maxindex");
  mtest_expect_error(MPI_Graph_get(g, 2, 1, index, edges), MPI_ERR_ARG, "maxedges 1", "maxedges");
  mtest_expect_error(MPI_Cart_get(g, 1, dims, periods, coords), MPI_ERR_TOPOLOGY,
                     "Cart_get on a graph", "graph");
  mtest_expect_error(MPI_Dist_graph_neighbors_count(g, &a, &b, &c), MPI_ERR_TOPOLOGY,
                     "Dist_graph_neighbors_count on a graph", "MPI_Dist_graph_neighbors_count");
  mtest_expect_error(MPI_Graphdims_get(g, NULL, &b), MPI_ERR_ARG, "nnodes null", "nnodes");
  MPI_Comm_free(&g);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  graph(size);
  if (size >= 3) graph(size - 1);
  dist_graph();
  errors();
  return mtest_finalize();
}
