/* MPI_File_set_view: with a displacement, etype MPI_INT and an interleaving filetype (a vector
 * resized to its stripes: rank r owns block r of each stripe, and the end of each stripe is a hole
 * nobody owns), data written through the view lands exactly in the rank's blocks and holes keep
 * what the file held; a 2-D MPI_Type_create_subarray block decomposition (as parallel HDF5 does)
 * fills the global array; non-contiguous memory types work on both sides. MPI_File_get_view
 * returns the displacement, "native" and types built like the ones set (by their combiners). An
 * unknown datarep is MPI_ERR_UNSUPPORTED_DATAREP, "internal" reads and writes (and get_view
 * names it), and MPI_DISPLACEMENT_CURRENT works only with MPI_MODE_SEQUENTIAL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotest.h"
#include "mtest.h"

#define B 3    /* ints in each rank's block of a stripe */
#define GAP 2  /* ints of hole at the end of each stripe */
#define NB 4   /* stripes */
#define HDR 4  /* ints before the first stripe (the displacement), never written */
#define TAIL 4 /* ints after the last stripe, never written */
#define LR 3   /* rows of each rank's block of the 2-D array */
#define LC 4   /* columns of each rank's block of the 2-D array */
#define FILL (-1)
#define SENTINEL (-77)

static int rank, size;
static const char *const tags[] = {"inter", "grid", "seq"};

/* Strips the wrappers an implementation may put around a type it hands back (a duplicate, or a
 * contiguous type of one element, as MPICH's get_view does), freeing each; returns the combiner
 * of what is left. */
static int unwrap(MPI_Datatype *t) {
  int ni, na, nd, comb, is[1];
  MPI_Aint as[1];
  for (;;) {
    MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED || ni > 1 || na > 0 || nd != 1) return comb;
    if (comb != MPI_COMBINER_DUP && !(comb == MPI_COMBINER_CONTIGUOUS && ni == 1)) return comb;
    MPI_Datatype inner;
    MPI_Type_get_contents(*t, ni, na, nd, is, as, &inner);
    if (comb == MPI_COMBINER_CONTIGUOUS && is[0] != 1) {
      MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
      if (comb != MPI_COMBINER_NAMED) MPI_Type_free(&inner);
      return MPI_COMBINER_CONTIGUOUS;
    }
    MPI_Type_free(t);
    *t = inner;
  }
}

/* Checks that the view is (disp, `etype`, a filetype of `combiner` and extent `extent`,
 * "native"), and returns the filetype's first integer arguments in ints[0..2] (for a derived
 * one; for a resized one, its inner type's combiner). */
static void check_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, int combiner,
                       MPI_Aint extent, int *ints) {
  MPI_Offset got_disp = -1;
  MPI_Datatype got_etype = MPI_DATATYPE_NULL, ftype = MPI_DATATYPE_NULL;
  char rep[MPI_MAX_DATAREP_STRING] = "";
  MTEST_CHECK(MPI_File_get_view(fh, &got_disp, &got_etype, &ftype, rep) == MPI_SUCCESS,
              "MPI_File_get_view failed");
  MTEST_CHECK(got_disp == disp, "get_view: displacement %lld, want %lld", (long long)got_disp,
              (long long)disp);
  MTEST_CHECK(strcmp(rep, "native") == 0, "get_view: datarep \"%s\", want native", rep);
  MTEST_CHECK(unwrap(&got_etype) == MPI_COMBINER_NAMED && got_etype == etype,
              "get_view: a different etype");
  MPI_Aint lb, got_extent = -1;
  MPI_Type_get_extent(ftype, &lb, &got_extent);
  MTEST_CHECK(got_extent == extent, "get_view: filetype extent %ld, want %ld", (long)got_extent,
              (long)extent);
  int comb = unwrap(&ftype), ni, na, nd;
  MTEST_CHECK(comb == combiner, "get_view: filetype combiner %d, want %d", comb, combiner);
  if (comb == MPI_COMBINER_NAMED) {
    MTEST_CHECK(ftype == etype, "get_view: the filetype is not the etype");
    return;
  }
  MPI_Type_get_envelope(ftype, &ni, &na, &nd, &comb);
  if (comb == combiner && ni <= 16 && na <= 4 && nd == 1) {
    int is[16];
    MPI_Aint as[4];
    MPI_Datatype inner;
    MPI_Type_get_contents(ftype, ni, na, nd, is, as, &inner);
    memcpy(ints, is, sizeof(int) * (ni < 3 ? ni : 3));
    MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
    if (combiner == MPI_COMBINER_RESIZED) ints[0] = comb;
    if (comb != MPI_COMBINER_NAMED) MPI_Type_free(&inner);
  }
  MPI_Type_free(&ftype);
}

/* The int index in the file of element k of rank r's data in the interleaved view. */
static int inter_index(int r, int k) { return HDR + (k / B) * (size * B + GAP) + r * B + k % B; }

static int inter_owned(int i) {
  int stripe = size * B + GAP;
  return i >= HDR && i < HDR + NB * stripe && (i - HDR) % stripe < size * B;
}

/* Rank 0 fills the whole file with FILL, so that holes can be told from data. */
static void prefill(MPI_File fh, int n) {
  if (rank == 0) {
    int *fill = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) fill[i] = FILL;
    MPI_File_write_at(fh, 0, fill, n, MPI_INT, MPI_STATUS_IGNORE);
    free(fill);
  }
  iotest_sync_all(fh);
}

/* Every other int of a buffer of 2n: the non-contiguous memory side. */
static MPI_Datatype every_other(int n) {
  MPI_Datatype t;
  MPI_Type_vector(n, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

static void check_inter_file(MPI_File fh, int n) {
  int *all = malloc(sizeof(int) * n), bad = 0, first = -1;
  MPI_File_read_at(fh, 0, all, n, MPI_INT, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; ++i) {
    int want = inter_owned(i) ? i + 1000 : FILL;
    if (all[i] != want && first < 0) first = i;
    bad += all[i] != want;
  }
  MTEST_CHECK(bad == 0, "interleaved file: %d of %d ints wrong, first at %d (%d)", bad, n, first,
              first < 0 ? 0 : all[first]);
  free(all);
}

/* Reads this rank's elements back through the view into every other int of a buffer. */
static void read_inter_strided(MPI_File fh, MPI_Datatype mem) {
  int buf[2 * NB * B], bad = 0;
  for (int i = 0; i < 2 * NB * B; ++i) buf[i] = SENTINEL;
  MPI_File_read_at_all(fh, 0, buf, 1, mem, MPI_STATUS_IGNORE);
  for (int k = 0; k < NB * B; ++k)
    bad += buf[2 * k] != inter_index(rank, k) + 1000 || buf[2 * k + 1] != SENTINEL;
  MTEST_CHECK(bad == 0, "%d elements wrong reading the view into a strided buffer", bad);
}

static void interleaved(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("inter", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  int n = HDR + NB * (size * B + GAP) + TAIL, stripe = size * B + GAP;
  prefill(fh, n);
  MPI_Datatype vec, ftype, mem = every_other(NB * B);
  MPI_Type_vector(NB, B, stripe, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)NB * stripe * sizeof(int), &ftype);
  MPI_Type_commit(&ftype);
  MPI_Offset disp = (MPI_Offset)(HDR + rank * B) * sizeof(int);
  MTEST_CHECK(MPI_File_set_view(fh, disp, MPI_INT, ftype, "native", MPI_INFO_NULL) == 0,
              "set_view with the interleaved filetype failed");
  int args[3] = {0, 0, 0};
  check_view(fh, disp, MPI_INT, MPI_COMBINER_RESIZED, NB * stripe * sizeof(int), args);
  MTEST_CHECK(args[0] == MPI_COMBINER_VECTOR, "get_view: resized type of combiner %d", args[0]);
  int buf[2 * NB * B];
  for (int k = 0; k < NB * B; ++k) buf[2 * k] = inter_index(rank, k) + 1000, buf[2 * k + 1] = 9;
  MPI_Status st;
  int count = -1;
  MPI_File_write_all(fh, buf, 1, mem, &st);
  MPI_Get_count(&st, mem, &count);
  MTEST_CHECK(count == 1, "write_all of a strided memory type: count %d, want 1", count);
  iotest_sync_all(fh);
  read_inter_strided(fh, mem);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  check_view(fh, 0, MPI_BYTE, MPI_COMBINER_NAMED, 1, args);
  if (rank == 0) check_inter_file(fh, n);
  MPI_File_close(&fh);
  MPI_Type_free(&vec);
  MPI_Type_free(&ftype);
  MPI_Type_free(&mem);
}

/* The local block with a one-element halo: the memory type of the 2-D test. */
static MPI_Datatype halo_interior(void) {
  MPI_Datatype t;
  int sizes[2] = {LR + 2, LC + 2}, sub[2] = {LR, LC}, starts[2] = {1, 1};
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

static void check_grid_file(MPI_File fh, int rows, int cols) {
  int n = 2 + rows * cols, *all = malloc(sizeof(int) * n), bad = 0;
  MPI_File_read_at(fh, 0, all, n, MPI_INT, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; ++i) bad += all[i] != (i < 2 ? FILL : i - 2 + 7);
  MTEST_CHECK(bad == 0, "2-D array file: %d of %d ints wrong", bad, n);
  free(all);
}

/* The value of the global array at the element (i, j) of the halo array of the block at (r0, c0),
 * for a global array of `cols` columns. */
static int grid_value(int r0, int c0, int cols, int i, int j) {
  return (r0 + i - 1) * cols + c0 + j - 1 + 7;
}

/* Reads the block back through the view into a fresh halo array: the interior gets the block,
 * the halo keeps its SENTINEL. */
static void read_block(MPI_File fh, MPI_Datatype mem, int r0, int c0, int cols) {
  int local[(LR + 2) * (LC + 2)], bad = 0, count = -1;
  MPI_Status st;
  for (int i = 0; i < (LR + 2) * (LC + 2); ++i) local[i] = SENTINEL;
  MPI_File_seek(fh, 0, MPI_SEEK_SET); /* the write moved the pointer past the block */
  MPI_File_read_all(fh, local, 1, mem, &st);
  MPI_Get_count(&st, mem, &count);
  MTEST_CHECK(count == 1, "read_all of the block: count %d, want 1", count);
  for (int i = 0; i < LR + 2; ++i)
    for (int j = 0; j < LC + 2; ++j) {
      int inside = i > 0 && i <= LR && j > 0 && j <= LC;
      bad += local[i * (LC + 2) + j] != (inside ? grid_value(r0, c0, cols, i, j) : SENTINEL);
    }
  MTEST_CHECK(bad == 0, "%d ints wrong reading the block back into the halo array", bad);
}

/* A dims[0] x dims[1] grid of ranks, each writing an LR x LC block of the global array from the
 * interior of a halo array. */
static void subarray(void) {
  MPI_File fh = MPI_FILE_NULL;
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  int rows = dims[0] * LR, cols = dims[1] * LC, r0 = rank / dims[1] * LR, c0 = rank % dims[1] * LC;
  if (!iotest_open("grid", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  prefill(fh, 2);
  MPI_Datatype ftype, mem = halo_interior();
  int gsizes[2] = {rows, cols}, lsizes[2] = {LR, LC}, starts[2] = {r0, c0};
  MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_INT, &ftype);
  MPI_Type_commit(&ftype);
  const MPI_Offset disp = 2 * sizeof(int);
  MPI_File_set_view(fh, disp, MPI_INT, ftype, "native", MPI_INFO_NULL);
  int args[3] = {0, 0, 0}, local[(LR + 2) * (LC + 2)];
  check_view(fh, disp, MPI_INT, MPI_COMBINER_SUBARRAY, rows * cols * sizeof(int), args);
  MTEST_CHECK(args[0] == 2 && args[1] == rows && args[2] == cols, "get_view: subarray %d %d %d",
              args[0], args[1], args[2]);
  for (int i = 0; i < LR + 2; ++i)
    for (int j = 0; j < LC + 2; ++j) local[i * (LC + 2) + j] = grid_value(r0, c0, cols, i, j);
  MPI_File_write_all(fh, local, 1, mem, MPI_STATUS_IGNORE);
  iotest_sync_all(fh);
  read_block(fh, mem, r0, c0, cols);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  if (rank == 0) check_grid_file(fh, rows, cols);
  MPI_File_close(&fh);
  MPI_Type_free(&ftype);
  MPI_Type_free(&mem);
}

static void datareps(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("inter", MPI_MODE_RDWR, &fh)) return;
  int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "foo", MPI_INFO_NULL);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_DATAREP, "set_view(datarep foo)", NULL);
  rc = MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  MTEST_CHECK(rc != MPI_SUCCESS, "MPI_DISPLACEMENT_CURRENT accepted without MPI_MODE_SEQUENTIAL");
  /* "internal": each rank writes its ints through it and reads them back; get_view says it. */
  rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL);
  MTEST_CHECK(rc == MPI_SUCCESS, "set_view(\"internal\") failed: %d", rc);
  int out[3] = {rank, 7 * rank, -rank}, in[3] = {0, 0, 0};
  MPI_File_write_at_all(fh, 3 * rank, out, 3, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_read_at_all(fh, 3 * rank, in, 3, MPI_INT, MPI_STATUS_IGNORE);
  MTEST_CHECK(in[0] == out[0] && in[1] == out[1] && in[2] == out[2],
              "\"internal\" read back %d %d %d", in[0], in[1], in[2]);
  char rep[MPI_MAX_DATAREP_STRING] = "";
  MPI_Offset disp = -1;
  MPI_Datatype et, ft;
  MPI_File_get_view(fh, &disp, &et, &ft, rep);
  MTEST_CHECK(strcmp(rep, "internal") == 0, "get_view's datarep: \"%s\"", rep);
  MPI_File_close(&fh);
}

/* On a sequential file, MPI_DISPLACEMENT_CURRENT puts the view where the shared pointer is. */
static void displacement_current(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("seq", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, &fh)) return;
  int one = rank + 100, two[2] = {rank + 200, rank + 300}, args[3];
  MPI_File_write_ordered(fh, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
  int rc =
      MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  MTEST_CHECK(rc == MPI_SUCCESS, "set_view(MPI_DISPLACEMENT_CURRENT) failed on a sequential file");
  check_view(fh, size * (MPI_Offset)sizeof(int), MPI_INT, MPI_COMBINER_NAMED, sizeof(int), args);
  MPI_File_write_ordered(fh, two, 2, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (!iotest_open("seq", MPI_MODE_RDONLY, &fh)) return;
  int *all = malloc(sizeof(int) * 3 * size), bad = 0;
  MPI_File_read_at(fh, 0, all, 3 * size, MPI_INT, MPI_STATUS_IGNORE);
  for (int r = 0; r < size; ++r)
    bad += all[r] != r + 100 || all[size + 2 * r] != r + 200 || all[size + 2 * r + 1] != r + 300;
  MTEST_CHECK(bad == 0, "%d ranks' data misplaced around MPI_DISPLACEMENT_CURRENT", bad);
  MPI_File_close(&fh);
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("views");
  interleaved();
  subarray();
  datareps();
  displacement_current();
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}
