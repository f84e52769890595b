/* Distributed graph topologies: MPI_Dist_graph_create_adjacent with weights and one-way edges
 * (r -> r+1 and r -> r+3: a multigraph on 1 or 2 ranks), an unweighted star, and
 * MPI_Dist_graph_create with edges given by a rank that is neither end; MPI_Topo_test,
 * MPI_Dist_graph_neighbors_count and MPI_Dist_graph_neighbors against the edges computed
 * here, and MPI_Comm_dup keeping the graph. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int mod(int a) { return ((a % size) + size) % size; }

/* Sorts (rank, weight) pairs so that edge sets compare whatever their order. */
static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static void expect_side(const char *what, int n, const int *ranks, const int *weights,
                        const int *want_ranks, const int *want_weights, int ordered) {
  int got[32], want[32];
  for (int i = 0; i < n; ++i) {
    got[2 * i] = ranks[i];
    got[2 * i + 1] = weights != NULL ? weights[i] : 0;
    want[2 * i] = want_ranks[i];
    want[2 * i + 1] = want_weights != NULL ? want_weights[i] : 0;
  }
  if (!ordered) {
    qsort(got, (size_t)n, 2 * sizeof(int), cmp_pair);
    qsort(want, (size_t)n, 2 * sizeof(int), cmp_pair);
  }
  for (int i = 0; i < 2 * n; ++i)
    MTEST_CHECK(got[i] == want[i], "rank %d %s entry %d: %d, expected %d", rank, what, i / 2,
                got[i], want[i]);
}

static void check_graph(MPI_Comm g, int indeg, const int *in, const int *inw, int outdeg,
                        const int *out, const int *outw, int weighted, int ordered) {
  int status, ni, no, w;
  MPI_Topo_test(g, &status);
  MTEST_CHECK(status == MPI_DIST_GRAPH, "Topo_test %d", status);
  MPI_Dist_graph_neighbors_count(g, &ni, &no, &w);
  MTEST_CHECK(ni == indeg && no == outdeg && w == weighted, "rank %d count (%d, %d, %d)", rank, ni,
              no, w);
  if (ni != indeg || no != outdeg) return;
  int src[16], srcw[16], dst[16], dstw[16];
  MPI_Dist_graph_neighbors(g, 16, src, weighted ? srcw : MPI_UNWEIGHTED, 16, dst,
                           weighted ? dstw : MPI_UNWEIGHTED);
  expect_side("sources", indeg, src, weighted ? srcw : NULL, in, weighted ? inw : NULL, ordered);
  expect_side("destinations", outdeg, dst, weighted ? dstw : NULL, out, weighted ? outw : NULL,
              ordered);
}

static void adjacent(void) {
  int out[2] = {mod(rank + 1), mod(rank + 3)};
  int outw[2] = {10 * rank + out[0], 100 + 10 * rank + out[1]};
  int in[2] = {mod(rank - 1), mod(rank - 3)};
  int inw[2] = {10 * in[0] + rank, 100 + 10 * in[1] + rank};
  MPI_Comm g, dup;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, inw, 2, out, outw, MPI_INFO_NULL, 0, &g);
  check_graph(g, 2, in, inw, 2, out, outw, 1, 1);
  MPI_Comm_dup(g, &dup);
  MPI_Comm_free(&g);
  check_graph(dup, 2, in, inw, 2, out, outw, 1, 1);
  MPI_Comm_free(&dup);
}

/* Rank 0 sends to everyone (itself included); nobody else sends. Unweighted. */
static void star(void) {
  int *all = malloc(sizeof(int) * (size_t)size), zero = 0;
  for (int i = 0; i < size; ++i) all[i] = i;
  int outdeg = rank == 0 ? size : 0;
  MPI_Comm g;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, MPI_UNWEIGHTED, outdeg, all,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &g);
  check_graph(g, 1, &zero, NULL, outdeg, all, NULL, 0, 1);
  MPI_Comm_free(&g);
  free(all);
}

/* Rank r declares the edge r+1 -> r+2 (weight r); rank 0 also declares s -> s for every even
 * s (weight 1000 + s). */
static void general(void) {
  int sources[16], degrees[16], dests[16], weights[16], n = 0, m = 0;
  sources[n] = mod(rank + 1);
  degrees[n++] = 1;
  dests[m] = mod(rank + 2);
  weights[m++] = rank;
  if (rank == 0) {
    for (int s = 0; s < size; s += 2) {
      sources[n] = s;
      degrees[n++] = 1;
      dests[m] = s;
      weights[m++] = 1000 + s;
    }
  }
  MPI_Comm g;
  MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, weights, MPI_INFO_NULL, 0, &g);
  int in[2] = {mod(rank - 1), rank}, inw[2] = {mod(rank - 2), 1000 + rank};
  int out[2] = {mod(rank + 1), rank}, outw[2] = {mod(rank - 1), 1000 + rank};
  int deg = rank % 2 == 0 ? 2 : 1;
  check_graph(g, deg, in, inw, deg, out, outw, 1, 0);
  MPI_Comm_free(&g);
  /* Unweighted, from even ranks only (r -> r+1); odd ranks give no edge and null arrays. */
  int one = 1, next = mod(rank + 1);
  int even = rank % 2 == 0;
  MPI_Dist_graph_create(MPI_COMM_WORLD, even ? 1 : 0, even ? &rank : NULL, even ? &one : NULL,
                        even ? &next : NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  int ni, no, w, want_in = 0;
  for (int r = 0; r < size; r += 2) want_in += mod(r + 1) == rank;
  MPI_Dist_graph_neighbors_count(g, &ni, &no, &w);
  MTEST_CHECK(w == 0, "unweighted graph reports weights");
  MTEST_CHECK(ni == want_in && no == even, "rank %d degrees (%d, %d), expected (%d, %d)", rank, ni,
              no, want_in, even);
  MPI_Comm_free(&g);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  adjacent();
  star();
  general();
  return mtest_finalize();
}
