/* Cartesian topologies on any number of ranks: MPI_Cart_create over a balanced 2D and 3D grid
 * (periodic and not), MPI_Topo_test, MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_rank /
 * MPI_Cart_coords round trips, MPI_Cart_shift against coordinates computed here (MPI_PROC_NULL
 * off a non-periodic edge), MPI_Cart_sub (rows, columns, nothing kept), MPI_Cart_map, a grid
 * smaller than the communicator (the others get MPI_COMM_NULL), and MPI_Comm_dup keeping the
 * topology while MPI_Comm_split drops it. */
#include <stdlib.h>

#include "mtest.h"

static int wrank, wsize;

/* The rank at coords c + disp along dim d computed by hand, or MPI_PROC_NULL. */
static int shifted(MPI_Comm cart, int nd, const int *dims, const int *periods, const int *coords,
                   int d, int disp) {
  int c[3] = {coords[0], nd > 1 ? coords[1] : 0, nd > 2 ? coords[2] : 0};
  c[d] += disp;
  if (periods[d]) {
    c[d] = ((c[d] % dims[d]) + dims[d]) % dims[d];
  } else if (c[d] < 0 || c[d] >= dims[d]) {
    return MPI_PROC_NULL;
  }
  int r;
  MPI_Cart_rank(cart, c, &r);
  return r;
}

static void check_grid(int nd, int periodic) {
  int dims[3] = {0, 0, 0}, periods[3] = {periodic, !periodic, periodic};
  MPI_Dims_create(wsize, nd, dims);
  MPI_Comm cart;
  MTEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart) == MPI_SUCCESS,
              "Cart_create %dD", nd);
  int status, n, rank, size;
  MPI_Topo_test(cart, &status);
  MTEST_CHECK(status == MPI_CART, "Topo_test: %d, expected MPI_CART", status);
  MPI_Cartdim_get(cart, &n);
  MTEST_CHECK(n == nd, "Cartdim_get: %d, expected %d", n, nd);
  MPI_Comm_rank(cart, &rank);
  MPI_Comm_size(cart, &size);
  MTEST_CHECK(size == wsize && rank == wrank, "cart rank %d of %d (reorder ignored)", rank, size);
  int gdims[3], gperiods[3], coords[3], back;
  MPI_Cart_get(cart, 3, gdims, gperiods, coords);
  int expect_rank = 0;
  for (int d = 0; d < nd; ++d) {
    MTEST_CHECK(gdims[d] == dims[d] && gperiods[d] == periods[d], "Cart_get dim %d", d);
    expect_rank = expect_rank * dims[d] + coords[d];
  }
  MTEST_CHECK(expect_rank == rank, "coords of rank %d are not row-major", rank);
  for (int r = 0; r < size; ++r) {
    int c[3];
    MPI_Cart_coords(cart, r, nd, c);
    MPI_Cart_rank(cart, c, &back);
    MTEST_CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
  }
  for (int d = 0; d < nd; ++d) {
    for (int disp = -2; disp <= 2; ++disp) {
      int src, dst;
      MPI_Cart_shift(cart, d, disp, &src, &dst);
      int want_dst = shifted(cart, nd, dims, periods, coords, d, disp);
      int want_src = shifted(cart, nd, dims, periods, coords, d, -disp);
      MTEST_CHECK(src == want_src && dst == want_dst,
                  "%dD rank %d Cart_shift(%d, %d) = (%d, %d), expected (%d, %d)", nd, rank, d, disp,
                  src, dst, want_src, want_dst);
    }
  }
  /* Periodic coordinates out of range wrap in MPI_Cart_rank. */
  if (periods[0]) {
    int c[3] = {coords[0] + dims[0], nd > 1 ? coords[1] : 0, nd > 2 ? coords[2] : 0};
    if (nd > 1 && !periods[1]) c[1] = coords[1];
    MPI_Cart_rank(cart, c, &back);
    MTEST_CHECK(back == rank, "wrapped Cart_rank = %d, expected %d", back, rank);
  }
  /* Keep the last dimension: ranks sharing the other coordinates, ordered by the kept one. */
  int remain[3] = {0, 0, 0};
  remain[nd - 1] = 1;
  MPI_Comm sub;
  MPI_Cart_sub(cart, remain, &sub);
  int sub_rank, sub_size, sub_nd, sub_dims[3], sub_periods[3], sub_coords[3];
  MPI_Comm_rank(sub, &sub_rank);
  MPI_Comm_size(sub, &sub_size);
  MPI_Cartdim_get(sub, &sub_nd);
  MPI_Cart_get(sub, 3, sub_dims, sub_periods, sub_coords);
  MTEST_CHECK(sub_nd == 1 && sub_size == dims[nd - 1] && sub_rank == coords[nd - 1] &&
                  sub_dims[0] == dims[nd - 1] && sub_periods[0] == periods[nd - 1] &&
                  sub_coords[0] == coords[nd - 1],
              "Cart_sub: nd %d size %d rank %d", sub_nd, sub_size, sub_rank);
  /* The members of the sub-communicator share the dropped coordinates. */
  int key = nd > 1 ? coords[0] : 0, sum = 0;
  MPI_Allreduce(&key, &sum, 1, MPI_INT, MPI_SUM, sub);
  MTEST_CHECK(sum == key * sub_size, "Cart_sub mixes rows: %d vs %d", sum, key * sub_size);
  MPI_Comm_free(&sub);
  /* Nothing kept: a communicator of one rank with no dimensions. */
  int none[3] = {0, 0, 0};
  MPI_Cart_sub(cart, none, &sub);
  MPI_Comm_size(sub, &sub_size);
  MPI_Cartdim_get(sub, &sub_nd);
  MTEST_CHECK(sub_size == 1 && sub_nd == 0, "Cart_sub of nothing: size %d nd %d", sub_size, sub_nd);
  MPI_Comm_free(&sub);
  /* MPI_Comm_dup keeps the topology; MPI_Comm_split does not. */
  MPI_Comm dup, split;
  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &status);
  MTEST_CHECK(status == MPI_CART, "dup: Topo_test %d", status);
  MPI_Cart_get(dup, 3, gdims, gperiods, coords);
  MTEST_CHECK(gdims[0] == dims[0], "dup: dims[0] %d", gdims[0]);
  MPI_Comm_free(&cart);
  MPI_Cartdim_get(dup, &n); /* still there after the original is freed */
  MTEST_CHECK(n == nd, "dup after free: Cartdim_get %d", n);
  MPI_Comm_split(dup, 0, wrank, &split);
  MPI_Topo_test(split, &status);
  MTEST_CHECK(status == MPI_UNDEFINED, "split: Topo_test %d", status);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
}

/* A 1D grid of wsize - 1 ranks: the last rank is left out. */
static void check_smaller(void) {
  if (wsize < 2) return;
  int dims[1] = {wsize - 1}, periods[1] = {0}, newrank;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MTEST_CHECK((wrank == wsize - 1) == (cart == MPI_COMM_NULL), "rank %d got %s", wrank,
              cart == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
  MTEST_CHECK(newrank == (wrank == wsize - 1 ? MPI_UNDEFINED : wrank), "Cart_map %d", newrank);
  if (cart != MPI_COMM_NULL) {
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MTEST_CHECK(src == (wrank == 0 ? MPI_PROC_NULL : wrank - 1), "1D source %d", src);
    MTEST_CHECK(dst == (wrank == wsize - 2 ? MPI_PROC_NULL : wrank + 1), "1D dest %d", dst);
    MPI_Comm_free(&cart);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  int status;
  MPI_Topo_test(MPI_COMM_WORLD, &status);
  MTEST_CHECK(status == MPI_UNDEFINED, "world Topo_test %d", status);
  for (int periodic = 0; periodic <= 1; ++periodic) {
    check_grid(1, periodic);
    check_grid(2, periodic);
    check_grid(3, periodic);
  }
  check_smaller();
  return mtest_finalize();
}
