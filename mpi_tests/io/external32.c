/* The "external32" data representation: through such a view every element is written
 * big-endian (checked byte for byte through a "native" view of the same file) and read back as
 * it was: ints by an independent write, a struct memory type with padding (the file holds its
 * elements packed), doubles of a cyclic distribution by a collective write (two-phase access),
 * and a read that reaches past the end of the file. MPI_File_get_view names the
 * representation. In gpurun, types with C long (whose external32 size is not the native one)
 * are refused with MPI_ERR_UNSUPPORTED_DATAREP, in the view, in a call and by
 * MPI_File_get_type_extent. */
#include <stdint.h>
#include <string.h>

#include "iotest.h"

#define N 8 /* doubles of each rank in the cyclic part */

static int rank, size;
static const char *const tags[] = {"file"};

/* The `bytes` bytes at file offset `at`, through a "native" view of bytes. */
static void raw(MPI_File fh, MPI_Offset at, unsigned char *out, int bytes) {
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_read_at(fh, at, out, bytes, MPI_BYTE, MPI_STATUS_IGNORE);
}

/* The big-endian bytes of `bytes` bytes of `value`. */
static void big_endian(const void *value, int bytes, unsigned char *out) {
  const unsigned char *p = value;
  for (int i = 0; i < bytes; ++i) out[i] = p[bytes - 1 - i];
}

static void external_view(MPI_File fh, MPI_Datatype etype, MPI_Datatype filetype,
                          MPI_Offset disp) {
  int rc = MPI_File_set_view(fh, disp, etype, filetype, "external32", MPI_INFO_NULL);
  MTEST_CHECK(rc == MPI_SUCCESS, "set_view(\"external32\") failed: %d", rc);
}

static void ints(MPI_File fh) {
  int mine[3] = {rank * 1000 + 1, -rank - 2, 0x01020304}, back[3] = {0, 0, 0};
  external_view(fh, MPI_INT, MPI_INT, 0);
  MPI_File_write_at(fh, rank * 3, mine, 3, MPI_INT, MPI_STATUS_IGNORE);
  iotest_sync_all(fh);
  MPI_File_read_at(fh, rank * 3, back, 3, MPI_INT, MPI_STATUS_IGNORE);
  MTEST_CHECK(memcmp(mine, back, sizeof mine) == 0, "ints read back %d %d %d", back[0], back[1],
              back[2]);
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype et, ft;
  MPI_File_get_view(fh, &disp, &et, &ft, rep);
  MTEST_CHECK(strcmp(rep, "external32") == 0, "get_view's datarep: \"%s\"", rep);
  unsigned char got[12], want[12];
  for (int i = 0; i < 3; ++i) big_endian(&mine[i], 4, want + 4 * i);
  raw(fh, rank * 12, got, 12);
  MTEST_CHECK(memcmp(got, want, 12) == 0, "ints are not big-endian in the file (first byte %#x)",
              got[0]);
  MPI_Barrier(MPI_COMM_WORLD);
}

struct pair {
  int i;
  double d; /* 4 bytes of padding before it */
};

static void structs(MPI_File fh) {
  struct pair mine[2] = {{rank + 7, 1.5 + rank}, {-9, -0.25}}, back[2];
  MPI_Datatype type;
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disps, types, &type);
  MPI_Type_commit(&type);
  MPI_Offset at = 1000 + (MPI_Offset)rank * 24;
  external_view(fh, MPI_BYTE, MPI_BYTE, 0);
  MPI_File_write_at(fh, at, mine, 2, type, MPI_STATUS_IGNORE);
  iotest_sync_all(fh);
  memset(back, 0, sizeof back);
  MPI_File_read_at(fh, at, back, 2, type, MPI_STATUS_IGNORE);
  MTEST_CHECK(back[0].i == mine[0].i && back[0].d == mine[0].d && back[1].i == -9 &&
                  back[1].d == -0.25,
              "structs read back {%d, %g} {%d, %g}", back[0].i, back[0].d, back[1].i, back[1].d);
  unsigned char got[24], want[24];
  for (int k = 0; k < 2; ++k) {
    big_endian(&mine[k].i, 4, want + 12 * k);
    big_endian(&mine[k].d, 8, want + 12 * k + 4);
  }
  raw(fh, at, got, 24);
  MTEST_CHECK(memcmp(got, want, 24) == 0, "structs are not packed big-endian in the file");
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Doubles in turn with the other ranks', by write_at_all and read_at_all. */
static void cyclic(MPI_File fh) {
  double mine[N], back[N];
  for (int i = 0; i < N; ++i) mine[i] = rank + i / 8.0;
  MPI_Datatype tile;
  MPI_Type_create_resized(MPI_DOUBLE, 0, (MPI_Aint)size * 8, &tile);
  MPI_Type_commit(&tile);
  MPI_Offset base = 4096;
  external_view(fh, MPI_DOUBLE, tile, base + rank * 8);
  MTEST_CHECK(MPI_File_write_at_all(fh, 0, mine, N, MPI_DOUBLE, MPI_STATUS_IGNORE) == 0,
              "write_at_all through external32 failed");
  iotest_sync_all(fh);
  external_view(fh, MPI_DOUBLE, tile, base + rank * 8);
  MPI_File_read_at_all(fh, 0, back, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MTEST_CHECK(memcmp(mine, back, sizeof mine) == 0, "doubles read back wrong (first %g)",
              back[0]);
  unsigned char got[8], want[8];
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    big_endian(&mine[i], 8, want);
    raw(fh, base + ((MPI_Offset)i * size + rank) * 8, got, 8);
    bad += memcmp(got, want, 8) != 0;
  }
  MTEST_CHECK(bad == 0, "%d of %d doubles not big-endian in the file", bad, N);
  MPI_Type_free(&tile);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Two ints before the end of the file, four asked for. */
static void past_end(MPI_File fh) {
  MPI_File_set_size(fh, 4096 + 8);
  int back[4] = {0, 0, 0, 0}, count = -1;
  MPI_Status st;
  external_view(fh, MPI_INT, MPI_INT, 0);
  MPI_File_read_at(fh, 1024, back, 4, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(count == 2, "read past the end: count %d, want 2", count);
  /* The two ints are rank 0's first double, big-endian, read as two ints. */
  unsigned char got[8];
  raw(fh, 4096, got, 8);
  int want0 = (got[0] << 24) | (got[1] << 16) | (got[2] << 8) | got[3];
  MTEST_CHECK(back[0] == want0, "read past the end: first int %d, want %d", back[0], want0);
}

static void refused(MPI_File fh) {
#ifdef GPURUN_MPI_H_INCLUDED
  int rc = MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_DATAREP, "set_view external32 of MPI_LONG",
                     "argument etype");
  external_view(fh, MPI_BYTE, MPI_BYTE, 0);
  long v = 5;
  rc = MPI_File_write_at(fh, 0, &v, 1, MPI_LONG, MPI_STATUS_IGNORE);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_DATAREP, "write_at of MPI_LONG through external32",
                     "argument datatype");
  MPI_Aint extent = -1;
  rc = MPI_File_get_type_extent(fh, MPI_LONG, &extent);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_DATAREP, "get_type_extent of MPI_LONG",
                     "argument datatype");
  MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent);
  MTEST_CHECK(extent == 8, "get_type_extent of MPI_DOUBLE through external32: %ld", (long)extent);
#else
  (void)fh;
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("external32");
  MPI_File fh;
  if (iotest_open("file", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    ints(fh);
    structs(fh);
    cyclic(fh);
    past_end(fh);
    refused(fh);
    MPI_File_close(&fh);
  }
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}
