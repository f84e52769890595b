/* Every datatype constructor: bounds, size, and the layout MPI_Pack reads and MPI_Unpack
 * writes, checked on arrays of ints whose values are their indexes. */
#include <string.h>

#include "mtest.h"

#define MAXN 64

/* Packs one element of `t` (committed here) from ints 0..MAXN-1 (the element starts at int
 * `base`) and checks the packed ints are `want`; unpacks them back into a zeroed array and
 * checks that exactly those ints came back. Frees `t`. */
static void check_ints(const char *what, MPI_Datatype t, int base, const int *want, int n) {
  int src[MAXN], dst[MAXN], packed[MAXN], position = 0, size = -1;
  for (int i = 0; i < MAXN; i++) src[i] = i;
  MPI_Type_commit(&t);
  MPI_Pack_size(1, t, MPI_COMM_WORLD, &size);
  MTEST_CHECK(size == n * (int)sizeof(int), "%s: pack size %d, want %d", what, size,
              n * (int)sizeof(int));
  MPI_Pack(src + base, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD);
  MTEST_CHECK(position == n * (int)sizeof(int), "%s: position %d", what, position);
  for (int i = 0; i < n && i < position / (int)sizeof(int); i++)
    MTEST_CHECK(packed[i] == want[i], "%s: packed int %d is %d, want %d", what, i, packed[i],
                want[i]);
  memset(dst, 0xff, sizeof dst);
  position = 0;
  MPI_Unpack(packed, n * (int)sizeof(int), &position, dst + base, 1, t, MPI_COMM_WORLD);
  for (int i = 0; i < MAXN; i++) {
    int expected = -1;
    for (int k = 0; k < n; k++)
      if (want[k] == i) expected = i;
    MTEST_CHECK(dst[i] == expected, "%s: unpacked int %d is %d, want %d", what, i, dst[i],
                expected);
  }
  MPI_Type_free(&t);
  MTEST_CHECK(t == MPI_DATATYPE_NULL, "%s: MPI_Type_free leaves %#x", what, t);
}

static void check_bounds(const char *what, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint true_lb, MPI_Aint true_extent, int size) {
  MPI_Aint l, e, tl, te;
  MPI_Count cl, ce, csize, xl, xe, ctl, cte;
  int s;
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_extent_c(t, &cl, &ce);
  MPI_Type_get_true_extent(t, &tl, &te);
  MPI_Type_get_true_extent_x(t, &xl, &xe);
  MPI_Type_get_true_extent_c(t, &ctl, &cte);
  MPI_Type_size(t, &s);
  MPI_Type_size_x(t, &csize);
  MTEST_CHECK(l == lb && e == extent && cl == lb && ce == extent,
              "%s: lb %ld extent %ld, want %ld %ld", what, (long)l, (long)e, (long)lb,
              (long)extent);
  MTEST_CHECK(tl == true_lb && te == true_extent, "%s: true lb %ld extent %ld, want %ld %ld", what,
              (long)tl, (long)te, (long)true_lb, (long)true_extent);
  MTEST_CHECK(s == size && csize == size, "%s: size %d, want %d", what, s, size);
}

static void regular(void) {
  MPI_Datatype t;
  MPI_Type_contiguous(3, MPI_INT, &t);
  check_bounds("contiguous", t, 0, 12, 0, 12, 12);
  check_ints("contiguous", t, 0, (int[]){0, 1, 2}, 3);

  MPI_Type_vector(3, 2, 4, MPI_INT, &t);
  check_bounds("vector", t, 0, 40, 0, 40, 24);
  check_ints("vector", t, 0, (int[]){0, 1, 4, 5, 8, 9}, 6);

  MPI_Type_vector(3, 1, -2, MPI_INT, &t); /* negative stride */
  check_bounds("vector -2", t, -16, 20, -16, 20, 12);
  check_ints("vector -2", t, 10, (int[]){10, 8, 6}, 3);

  MPI_Type_create_hvector(2, 3, 20, MPI_INT, &t);
  check_bounds("hvector", t, 0, 32, 0, 32, 24);
  check_ints("hvector", t, 0, (int[]){0, 1, 2, 5, 6, 7}, 6);

  MPI_Type_hvector(2, 1, 12, MPI_INT, &t); /* the MPI-1 name */
  check_ints("MPI_Type_hvector", t, 0, (int[]){0, 3}, 2);

  MPI_Type_contiguous_c(4, MPI_INT, &t);
  check_ints("contiguous_c", t, 0, (int[]){0, 1, 2, 3}, 4);
  MPI_Type_vector_c(2, 2, 3, MPI_INT, &t);
  check_ints("vector_c", t, 0, (int[]){0, 1, 3, 4}, 4);
  MPI_Type_create_hvector_c(2, 1, 8, MPI_INT, &t);
  check_ints("hvector_c", t, 0, (int[]){0, 2}, 2);
}

static void lists(void) {
  MPI_Datatype t;
  MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){5, 0, 9}, MPI_INT, &t);
  check_bounds("indexed", t, 0, 48, 0, 48, 24);
  check_ints("indexed", t, 0, (int[]){5, 6, 0, 9, 10, 11}, 6);

  MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){8, 24}, MPI_INT, &t);
  check_bounds("hindexed", t, 8, 24, 8, 24, 12);
  check_ints("hindexed", t, 0, (int[]){2, 6, 7}, 3);

  MPI_Type_create_indexed_block(3, 2, (int[]){4, 0, 7}, MPI_INT, &t);
  check_ints("indexed_block", t, 0, (int[]){4, 5, 0, 1, 7, 8}, 6);

  MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){12, 4}, MPI_INT, &t);
  check_ints("hindexed_block", t, 0, (int[]){3, 1}, 2);

  MPI_Type_indexed(3, (int[]){1, 0, 1}, (int[]){2, 40, 3}, MPI_INT, &t); /* empty block */
  check_bounds("indexed with empty block", t, 8, 8, 8, 8, 8);
  check_ints("indexed with empty block", t, 0, (int[]){2, 3}, 2);

  MPI_Type_indexed_c(2, (MPI_Count[]){1, 2}, (MPI_Count[]){3, 0}, MPI_INT, &t);
  check_ints("indexed_c", t, 0, (int[]){3, 0, 1}, 3);
  MPI_Type_create_hindexed_c(1, (MPI_Count[]){2}, (MPI_Count[]){16}, MPI_INT, &t);
  check_ints("hindexed_c", t, 0, (int[]){4, 5}, 2);
  MPI_Type_create_indexed_block_c(2, 1, (MPI_Count[]){6, 2}, MPI_INT, &t);
  check_ints("indexed_block_c", t, 0, (int[]){6, 2}, 2);
  MPI_Type_create_hindexed_block_c(2, 1, (MPI_Count[]){4, 0}, MPI_INT, &t);
  check_ints("hindexed_block_c", t, 0, (int[]){1, 0}, 2);
  MPI_Type_hindexed(1, (int[]){2}, (MPI_Aint[]){4}, MPI_INT, &t); /* the MPI-1 name */
  check_ints("MPI_Type_hindexed", t, 0, (int[]){1, 2}, 2);
}

static void structs(void) {
  struct {
    char c;
    double d[2];
    short s;
  } x;
  MPI_Aint base, disps[3], old_style;
  MPI_Get_address(&x, &base);
  MPI_Address(&x, &old_style);
  MTEST_CHECK(old_style == base, "MPI_Address and MPI_Get_address differ");
  MPI_Get_address(&x.c, &disps[0]);
  MPI_Get_address(&x.d, &disps[1]);
  MPI_Get_address(&x.s, &disps[2]);
  for (int i = 0; i < 3; i++) disps[i] = MPI_Aint_diff(disps[i], base);
  MTEST_CHECK(disps[1] == 8 && disps[2] == 24, "addresses %ld %ld", (long)disps[1], (long)disps[2]);
  MTEST_CHECK(MPI_Aint_add(base, disps[2]) == (MPI_Aint)&x.s, "MPI_Aint_add");
  MPI_Datatype t;
  MPI_Type_create_struct(3, (int[]){1, 2, 1}, disps,
                         (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, &t);
  check_bounds("struct", t, 0, (MPI_Aint)sizeof x, 0, 26, 19); /* padded like the C struct */
  MPI_Type_free(&t);

  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){4, 12}, (MPI_Datatype[]){MPI_INT, MPI_INT},
                         &t);
  check_ints("struct of ints", t, 0, (int[]){1, 3}, 2);
  MPI_Type_create_struct_c(2, (MPI_Count[]){2, 1}, (MPI_Count[]){0, 20},
                           (MPI_Datatype[]){MPI_INT, MPI_INT}, &t);
  check_ints("struct_c", t, 0, (int[]){0, 1, 5}, 3);

  /* MPI-1: MPI_UB in MPI_Type_struct sets the extent; MPI_Type_extent/lb/ub read it. */
  MPI_Aint extent, lb, ub;
  MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 16}, (MPI_Datatype[]){MPI_INT, MPI_UB}, &t);
  MPI_Type_extent(t, &extent);
  MPI_Type_lb(t, &lb);
  MPI_Type_ub(t, &ub);
  MTEST_CHECK(extent == 16 && lb == 0 && ub == 16, "MPI_UB struct: extent %ld lb %ld ub %ld",
              (long)extent, (long)lb, (long)ub);
  MPI_Datatype two;
  MPI_Type_contiguous(2, t, &two);
  check_ints("contiguous of MPI_UB struct", two, 0, (int[]){0, 4}, 2);
  MPI_Type_free(&t);
}

static void resized_and_arrays(void) {
  MPI_Datatype r, t;
  MPI_Type_create_resized(MPI_INT, -4, 16, &r);
  check_bounds("resized", r, -4, 16, 0, 4, 4);
  MPI_Type_contiguous(3, r, &t);
  check_bounds("contiguous of resized", t, -4, 48, 0, 36, 12);
  check_ints("contiguous of resized", t, 0, (int[]){0, 4, 8}, 3);
  MPI_Type_create_resized_c(MPI_INT, 0, 8, &t);
  MPI_Datatype two;
  MPI_Type_contiguous(2, t, &two);
  MPI_Type_free(&t);
  check_ints("resized_c", two, 0, (int[]){0, 2}, 2);
  MPI_Type_free(&r);

  MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_C, MPI_INT,
                           &t);
  check_bounds("subarray C", t, 0, 80, 24, 32, 24);
  check_ints("subarray C", t, 0, (int[]){6, 7, 8, 11, 12, 13}, 6);
  MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_FORTRAN,
                           MPI_INT, &t);
  check_ints("subarray Fortran", t, 0, (int[]){5, 6, 9, 10, 13, 14}, 6);
  MPI_Type_create_subarray_c(1, (MPI_Count[]){8}, (MPI_Count[]){3}, (MPI_Count[]){4}, MPI_ORDER_C,
                             MPI_INT, &t);
  check_ints("subarray_c", t, 0, (int[]){4, 5, 6}, 3);

  MPI_Type_create_darray(2, 1, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){2},
                         (int[]){2}, MPI_ORDER_C, MPI_INT, &t);
  check_bounds("darray cyclic", t, 0, 40, 8, 24, 16);
  check_ints("darray cyclic", t, 0, (int[]){2, 3, 6, 7}, 4);
  MPI_Type_create_darray(3, 1, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_BLOCK},
                         (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C, MPI_INT, &t);
  check_ints("darray block", t, 0, (int[]){4, 5, 6, 7}, 4);
  /* 2 x 3 process grid (row-major), rank 4 = (1, 1): rows 3..5 (block), columns 1, 4 */
  MPI_Type_create_darray(
      6, 4, 2, (int[]){6, 6}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
      (int[]){MPI_DISTRIBUTE_DFLT_DARG, 1}, (int[]){2, 3}, MPI_ORDER_C, MPI_INT, &t);
  check_ints("darray 2d", t, 0, (int[]){19, 22, 25, 28, 31, 34}, 6);
  MPI_Type_create_darray_c(1, 0, 1, (MPI_Count[]){5}, (int[]){MPI_DISTRIBUTE_NONE},
                           (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1}, MPI_ORDER_FORTRAN,
                           MPI_INT, &t);
  check_ints("darray_c", t, 0, (int[]){0, 1, 2, 3, 4}, 5);
}

/* A type lives on in the types built from it after its handle is freed. */
static void lifetime(void) {
  MPI_Datatype v, two, d;
  MPI_Type_vector(2, 1, 3, MPI_INT, &v);
  MPI_Type_contiguous(2, v, &two);
  MPI_Type_dup(v, &d);
  MPI_Type_free(&v);
  check_ints("contiguous of a freed vector", two, 0, (int[]){0, 3, 4, 7}, 4);
  check_ints("dup of a freed vector", d, 0, (int[]){0, 3}, 2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  regular();
  lists();
  structs();
  resized_and_arrays();
  lifetime();
  return mtest_finalize();
}
