/* Neighbourhood collectives on Cartesian communicators (1D/2D/3D, periodic and not, so that
 * MPI_PROC_NULL neighbours and, on 1 or 2 ranks, the same rank in both directions occur) and on
 * distributed graphs (one-way edges r -> r+1, r -> r+3, a multigraph on 1 or 2 ranks; a star):
 * MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v,w) blocking, nonblocking (several at
 * once) and persistent (started twice), and two _c forms. Values name the sender and the block
 * it sent, so every receive block is checked against the block its neighbour sent towards this
 * rank; blocks of MPI_PROC_NULL neighbours stay untouched. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define MAXN 16
#define UNTOUCHED (-7)

static int rank, size;

/* This rank's neighbourhood: in[i] sends to us the block match[i] of its own send blocks. */
struct hood {
  MPI_Comm comm;
  const char *name;
  int indeg, outdeg;
  int in[MAXN], out[MAXN], match[MAXN];
};

static int value(int sender, int block, int k) { return sender * 1000 + block * 10 + k; }
static int vcount(int sender, int block) { return (sender + block) % 3 + 1; }

static void check_block(const struct hood *h, const char *call, int i, const int *got, int n,
                        int block_of_sender) {
  for (int k = 0; k < n; ++k) {
    int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], block_of_sender, k);
    MTEST_CHECK(got[k] == want, "%s %s rank %d block %d[%d] = %d, expected %d", h->name, call, rank,
                i, k, got[k], want);
  }
}

static void fill(int *buf, int n, int v) {
  for (int i = 0; i < n; ++i) buf[i] = v;
}

/* alltoall: 3 ints per block. Blocking, then nonblocking, then persistent twice, then _c. */
static void alltoall(const struct hood *h) {
  int send[MAXN * 3], recv[MAXN * 3];
  MPI_Request req = MPI_REQUEST_NULL; /* the persistent one lives through forms 2 and 3 */
  for (int form = 0; form < 5; ++form) {
    for (int j = 0; j < h->outdeg; ++j)
      for (int k = 0; k < 3; ++k) send[3 * j + k] = value(rank, j, k + form);
    fill(recv, MAXN * 3, UNTOUCHED);
    if (form == 0) MPI_Neighbor_alltoall(send, 3, MPI_INT, recv, 3, MPI_INT, h->comm);
    if (form == 1) {
      MPI_Ineighbor_alltoall(send, 3, MPI_INT, recv, 3, MPI_INT, h->comm, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (form == 2)
      MPI_Neighbor_alltoall_init(send, 3, MPI_INT, recv, 3, MPI_INT, h->comm, MPI_INFO_NULL, &req);
    if (form == 2 || form == 3) {
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (form == 3) MPI_Request_free(&req);
    if (form == 4) MPI_Neighbor_alltoall_c(send, 3, MPI_INT, recv, 3, MPI_INT, h->comm);
    for (int i = 0; i < h->indeg; ++i)
      for (int k = 0; k < 3; ++k) {
        int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], h->match[i], k + form);
        MTEST_CHECK(recv[3 * i + k] == want, "%s alltoall form %d rank %d block %d = %d, want %d",
                    h->name, form, rank, i, recv[3 * i + k], want);
      }
  }
}

/* allgather: every neighbour gets the same 2 ints; allgatherv: vcount(sender, 0) ints at
 * spread-out displacements. */
static void allgather(const struct hood *h) {
  int send[4], recv[MAXN * 4], counts[MAXN], displs[MAXN];
  for (int k = 0; k < 4; ++k) send[k] = value(rank, 0, k);
  fill(recv, MAXN * 4, UNTOUCHED);
  MPI_Neighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, h->comm);
  for (int i = 0; i < h->indeg; ++i) check_block(h, "allgather", i, recv + 2 * i, 2, 0);
  for (int i = 0; i < h->indeg; ++i) {
    counts[i] = h->in[i] == MPI_PROC_NULL ? 0 : vcount(h->in[i], 0);
    displs[i] = 4 * (h->indeg - 1 - i); /* reversed order, gaps between */
  }
  fill(recv, MAXN * 4, UNTOUCHED);
  MPI_Request req;
  MPI_Ineighbor_allgatherv(send, vcount(rank, 0), MPI_INT, recv, counts, displs, MPI_INT, h->comm,
                           &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int i = 0; i < h->indeg; ++i) {
    check_block(h, "allgatherv", i, recv + displs[i], counts[i], 0);
    if (counts[i] < 4)
      MTEST_CHECK(recv[displs[i] + counts[i]] == UNTOUCHED, "%s allgatherv wrote past block %d",
                  h->name, i);
  }
}

/* alltoallv: block j holds vcount(rank, j) ints; alltoallw: the same data, sent as one
 * contiguous type per block and received as ints, with byte displacements. Both nonblocking at
 * once. */
static void alltoallvw(const struct hood *h) {
  int send[MAXN * 4], recv_v[MAXN * 4], recv_w[MAXN * 4];
  int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN], wscounts[MAXN];
  MPI_Aint wsdispls[MAXN], wrdispls[MAXN];
  MPI_Datatype stypes[MAXN], rtypes[MAXN], blocks[4];
  for (int c = 1; c <= 3; ++c) {
    MPI_Type_contiguous(c, MPI_INT, &blocks[c]);
    MPI_Type_commit(&blocks[c]);
  }
  for (int j = 0; j < h->outdeg; ++j) {
    scounts[j] = vcount(rank, j);
    sdispls[j] = 4 * j;
    for (int k = 0; k < 4; ++k) send[4 * j + k] = value(rank, j, k);
    wscounts[j] = 1;
    wsdispls[j] = (MPI_Aint)(sizeof(int) * 4 * (size_t)j);
    stypes[j] = blocks[scounts[j]];
  }
  for (int i = 0; i < h->indeg; ++i) {
    rcounts[i] = h->in[i] == MPI_PROC_NULL ? 0 : vcount(h->in[i], h->match[i]);
    rdispls[i] = 4 * i;
    wrdispls[i] = (MPI_Aint)(sizeof(int) * 4 * (size_t)i);
    rtypes[i] = MPI_INT;
  }
  fill(recv_v, MAXN * 4, UNTOUCHED);
  fill(recv_w, MAXN * 4, UNTOUCHED);
  MPI_Request reqs[2];
  MPI_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv_v, rcounts, rdispls, MPI_INT,
                          h->comm, &reqs[0]);
  MPI_Ineighbor_alltoallw(send, wscounts, wsdispls, stypes, recv_w, rcounts, wrdispls, rtypes,
                          h->comm, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < h->indeg; ++i) {
    check_block(h, "alltoallv", i, recv_v + 4 * i, rcounts[i], h->match[i]);
    check_block(h, "alltoallw", i, recv_w + 4 * i, rcounts[i], h->match[i]);
  }
  fill(recv_v, MAXN * 4, UNTOUCHED);
  MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv_v, rcounts, rdispls, MPI_INT,
                         h->comm);
  for (int i = 0; i < h->indeg; ++i)
    check_block(h, "alltoallv blocking", i, recv_v + 4 * i, rcounts[i], h->match[i]);
  for (int c = 1; c <= 3; ++c) MPI_Type_free(&blocks[c]);
}

static void run(const struct hood *h) {
  alltoall(h);
  allgather(h);
  alltoallvw(h);
}

static void cartesian(int nd, int periodic) {
  int dims[3] = {0, 0, 0}, periods[3] = {periodic, periodic, !periodic};
  MPI_Dims_create(size, nd, dims);
  struct hood h = {.name = periodic ? "periodic cart" : "cart", .indeg = 2 * nd, .outdeg = 2 * nd};
  MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &h.comm);
  for (int d = 0; d < nd; ++d) {
    MPI_Cart_shift(h.comm, d, 1, &h.in[2 * d], &h.in[2 * d + 1]);
    h.out[2 * d] = h.in[2 * d];
    h.out[2 * d + 1] = h.in[2 * d + 1];
    /* From below comes what the neighbour sent upwards (its block 2d+1), and vice versa. */
    h.match[2 * d] = 2 * d + 1;
    h.match[2 * d + 1] = 2 * d;
  }
  run(&h);
  MPI_Comm_free(&h.comm);
}

static int mod(int a) { return ((a % size) + size) % size; }

static void graphs(void) {
  struct hood h = {.name = "graph", .indeg = 2, .outdeg = 2};
  h.out[0] = mod(rank + 1);
  h.out[1] = mod(rank + 3);
  h.in[0] = mod(rank - 1);
  h.in[1] = mod(rank - 3);
  h.match[0] = 0;
  h.match[1] = 1;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, h.in, MPI_UNWEIGHTED, 2, h.out, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &h.comm);
  run(&h);
  MPI_Comm_free(&h.comm);
  /* A star: rank 0 sends to every rank, everybody receives only from 0. */
  struct hood s = {.name = "star", .indeg = 1, .outdeg = rank == 0 ? size : 0};
  s.in[0] = 0;
  s.match[0] = rank;
  for (int i = 0; i < s.outdeg; ++i) s.out[i] = i;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s.in, MPI_UNWEIGHTED, s.outdeg, s.out,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &s.comm);
  run(&s);
  int send = value(rank, 0, 0), recv = UNTOUCHED;
  MPI_Neighbor_allgather_c(&send, 1, MPI_INT, &recv, 1, MPI_INT, s.comm);
  MTEST_CHECK(recv == value(0, 0, 0), "star allgather_c: %d", recv);
  MPI_Comm_free(&s.comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int periodic = 0; periodic <= 1; ++periodic)
    for (int nd = 1; nd <= 3; ++nd) cartesian(nd, periodic);
  graphs();
  return mtest_finalize();
}
