/* Data representations the program registers (MPI_Register_datarep, MPI_Register_datarep_c):
 * "swapped" stores ints byte-reversed through its conversion functions (which get the
 * registration's extra_state): independent and collective writes put reversed bytes in the file
 * (checked through a "native" view) and reads give the ints back; MPI_File_get_view names it;
 * a representation without conversion functions stores the native bytes. Registering a name
 * twice, or a predefined one, is MPI_ERR_DUP_DATAREP; no extent function is MPI_ERR_ARG; an
 * unknown name in a view is MPI_ERR_UNSUPPORTED_DATAREP. In gpurun, a representation that
 * changes an element's extent is refused (MPI_ERR_UNSUPPORTED_DATAREP), and a conversion
 * function's error fails the call with MPI_ERR_CONVERSION. */
#include <string.h>

#include "iotest.h"

#define N 6 /* ints of each rank */

static int rank, size;
static int calls; /* conversion calls, counted through extra_state */
static const char *const tags[] = {"file"};

static int swap(int v) {
  unsigned u = (unsigned)v;
  return (int)((u >> 24) | ((u >> 8) & 0xff00) | ((u << 8) & 0xff0000) | (u << 24));
}

static int write_swapped(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                         MPI_Offset position, void *extra) {
  if (type != MPI_INT) return MPI_ERR_TYPE;
  ++*(int *)extra;
  for (int i = 0; i < count; ++i) ((int *)filebuf)[i] = swap(((int *)userbuf)[position + i]);
  return MPI_SUCCESS;
}

static int read_swapped(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                        MPI_Offset position, void *extra) {
  if (type != MPI_INT) return MPI_ERR_TYPE;
  ++*(int *)extra;
  for (int i = 0; i < count; ++i) ((int *)userbuf)[position + i] = swap(((int *)filebuf)[i]);
  return MPI_SUCCESS;
}

static int write_swapped_c(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                           MPI_Offset position, void *extra) {
  return write_swapped(userbuf, type, (int)count, filebuf, position, extra);
}

static int read_swapped_c(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                          MPI_Offset position, void *extra) {
  return read_swapped(userbuf, type, (int)count, filebuf, position, extra);
}

static int failing(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                   MPI_Offset position, void *extra) {
  (void)userbuf, (void)type, (void)count, (void)filebuf, (void)position, (void)extra;
  return MPI_ERR_OTHER;
}

static int native_extent(MPI_Datatype type, MPI_Aint *extent, void *extra) {
  (void)extra;
  int bytes = 0;
  MPI_Type_size(type, &bytes);
  *extent = bytes;
  return MPI_SUCCESS;
}

static int double_extent(MPI_Datatype type, MPI_Aint *extent, void *extra) {
  native_extent(type, extent, extra);
  *extent *= 2;
  return MPI_SUCCESS;
}

static void registrations(void) {
  int rc = MPI_Register_datarep("swapped", read_swapped, write_swapped, native_extent, &calls);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Register_datarep failed: %d", rc);
  rc = MPI_Register_datarep_c("swapped_c", read_swapped_c, write_swapped_c, native_extent,
                              &calls);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Register_datarep_c failed: %d", rc);
  rc = MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                            native_extent, NULL);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Register_datarep without conversions failed: %d", rc);
  rc = MPI_Register_datarep("swapped", read_swapped, write_swapped, native_extent, NULL);
  mtest_expect_error(rc, MPI_ERR_DUP_DATAREP, "registering \"swapped\" twice", "swapped");
  rc = MPI_Register_datarep("external32", read_swapped, write_swapped, native_extent, NULL);
  mtest_expect_error(rc, MPI_ERR_DUP_DATAREP, "registering \"external32\"", "external32");
  rc = MPI_Register_datarep("noextent", read_swapped, write_swapped, NULL, NULL);
  mtest_expect_error(rc, MPI_ERR_ARG, "registering without an extent function",
                     "dtype_file_extent_fn");
  MPI_Register_datarep("wide", read_swapped, write_swapped, double_extent, NULL);
  MPI_Register_datarep("failing", failing, failing, native_extent, NULL);
}

/* The ints at file offset `at` (ints), through a "native" view. */
static void raw(MPI_File fh, int at, int *out, int n) {
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  MPI_File_read_at(fh, at, out, n, MPI_INT, MPI_STATUS_IGNORE);
}

static void round_trip(MPI_File fh, const char *rep, int collective, int swapped) {
  int mine[N], back[N], file[N];
  for (int i = 0; i < N; ++i) mine[i] = (rank + 1) * 0x01020304 + i;
  int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rep, MPI_INFO_NULL);
  MTEST_CHECK(rc == MPI_SUCCESS, "set_view(\"%s\") failed: %d", rep, rc);
  int before = calls;
  if (collective) {
    rc = MPI_File_write_at_all(fh, rank * N, mine, N, MPI_INT, MPI_STATUS_IGNORE);
  } else {
    rc = MPI_File_write_at(fh, rank * N, mine, N, MPI_INT, MPI_STATUS_IGNORE);
  }
  MTEST_CHECK(rc == MPI_SUCCESS, "write through \"%s\" failed: %d", rep, rc);
  MTEST_CHECK(!swapped || calls > before, "\"%s\": no conversion function ran", rep);
  iotest_sync_all(fh);
  memset(back, 0, sizeof back);
  MPI_File_read_at(fh, rank * N, back, N, MPI_INT, MPI_STATUS_IGNORE);
  MTEST_CHECK(memcmp(mine, back, sizeof mine) == 0, "\"%s\": read back %#x, want %#x", rep,
              back[0], mine[0]);
  char name[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype et, ft;
  MPI_File_get_view(fh, &disp, &et, &ft, name);
  MTEST_CHECK(strcmp(name, rep) == 0, "get_view names \"%s\", want \"%s\"", name, rep);
  raw(fh, rank * N, file, N);
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += file[i] != (swapped ? swap(mine[i]) : mine[i]);
  MTEST_CHECK(bad == 0, "\"%s\": %d of %d ints in the file not %s", rep, bad, N,
              swapped ? "byte-reversed" : "native");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void refused(MPI_File fh) {
  int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "nobody", MPI_INFO_NULL);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_DATAREP, "a view in an unknown representation",
                     "nobody");
#ifdef GPURUN_MPI_H_INCLUDED
  rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide", MPI_INFO_NULL);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_DATAREP, "a representation that widens ints",
                     "file extent of 8");
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "failing", MPI_INFO_NULL);
  int v[2] = {1, 2};
  rc = MPI_File_write_at(fh, 0, v, 2, MPI_INT, MPI_STATUS_IGNORE);
  mtest_expect_error(rc, MPI_ERR_CONVERSION, "a failing write conversion", "returned error code");
  rc = MPI_File_read_at(fh, 0, v, 2, MPI_INT, MPI_STATUS_IGNORE);
  mtest_expect_error(rc, MPI_ERR_CONVERSION, "a failing read conversion", "returned error code");
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("datarep");
  registrations();
  MPI_File fh;
  if (iotest_open("file", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    round_trip(fh, "swapped", 0, 1);
    round_trip(fh, "swapped", 1, 1);
    round_trip(fh, "swapped_c", 1, 1);
    round_trip(fh, "plain", 0, 0);
    refused(fh);
    MPI_File_close(&fh);
  }
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}
