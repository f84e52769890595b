/* A collective MPI-IO call in which one member passes a bad argument ends on every member with
 * an error, never leaving the others waiting: that member gets its argument's error class and a
 * message naming it, the others MPI_ERR_ARG, and the file is as before (MPI_File_open,
 * set_view, set_size, write_at_all, iwrite_at_all, read_all, seek_shared, write_ordered).
 * gpurun's rule; the standard leaves such programs erroneous. */
#include <string.h>

#include "iotest.h"

static int rank, size, bad;
static const char *const tags[] = {"file"};

/* The bad member's own class naming its argument, the others' MPI_ERR_ARG saying why. */
static void expect_refused(int rc, int own_class, const char *call, const char *arg,
                           const char *others) {
  if (rank == bad) {
    mtest_expect_error(rc, own_class, call, arg);
  } else {
    mtest_expect_error(rc, MPI_ERR_ARG, call, others);
  }
}

static void open_refused(void) {
  char path[IOTEST_PATH_LEN];
  iotest_path("file", path);
  MPI_File fh = MPI_FILE_NULL;
  int amode = rank == bad ? MPI_MODE_RDONLY | MPI_MODE_CREATE : MPI_MODE_RDWR | MPI_MODE_CREATE;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
  expect_refused(rc, MPI_ERR_AMODE, "MPI_File_open", "argument amode", "another member");
  MTEST_CHECK(fh == MPI_FILE_NULL, "a refused MPI_File_open gave a file");
  if (fh != MPI_FILE_NULL) MPI_File_close(&fh);
}

static void calls_refused(MPI_File fh) {
  int rc = MPI_File_set_view(fh, rank == bad ? -8 : 4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  expect_refused(rc, MPI_ERR_ARG, "MPI_File_set_view", "argument disp", "another member");
  MPI_Offset disp = -1;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_File_get_view(fh, &disp, &et, &ft, rep);
  MTEST_CHECK(disp == 0, "the view's displacement is %lld after a refused set_view",
              (long long)disp);
  rc = MPI_File_set_size(fh, rank == bad ? -1 : 64);
  expect_refused(rc, MPI_ERR_ARG, "MPI_File_set_size", "argument size", "differs");
  MPI_Offset bytes = -1;
  MPI_File_get_size(fh, &bytes);
  MTEST_CHECK(bytes == 0, "the file has %lld bytes after a refused set_size", (long long)bytes);
  /* A collective write at explicit offsets: nobody writes. */
  int mine[2] = {rank, rank};
  rc = MPI_File_write_at_all(fh, rank * 8, mine, rank == bad ? -1 : 2, MPI_INT,
                             MPI_STATUS_IGNORE);
  expect_refused(rc, MPI_ERR_COUNT, "MPI_File_write_at_all", "argument count", "another member");
  MPI_File_get_size(fh, &bytes);
  MTEST_CHECK(bytes == 0, "the file has %lld bytes after a refused write_at_all",
              (long long)bytes);
  MPI_Request req = MPI_REQUEST_NULL;
  rc = MPI_File_iwrite_at_all(fh, rank * 8, mine, 2, MPI_INT, rank == bad ? NULL : &req);
  expect_refused(rc, MPI_ERR_ARG, "MPI_File_iwrite_at_all", "argument request", "another member");
  MTEST_CHECK(req == MPI_REQUEST_NULL, "a refused MPI_File_iwrite_at_all gave a request");
  if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
  rc = MPI_File_read_all(fh, mine, 2, rank == bad ? MPI_DATATYPE_NULL : MPI_INT,
                         MPI_STATUS_IGNORE);
  expect_refused(rc, MPI_ERR_TYPE, "MPI_File_read_all", "argument datatype", "another member");
  rc = MPI_File_seek_shared(fh, 4, rank == bad ? 12345 : MPI_SEEK_SET);
  expect_refused(rc, MPI_ERR_ARG, "MPI_File_seek_shared", "argument whence", "another member");
  int data[2] = {rank, rank};
  rc = MPI_File_write_ordered(fh, data, rank == bad ? -2 : 2, MPI_INT, MPI_STATUS_IGNORE);
  if (rank == bad)
    mtest_expect_error(rc, MPI_ERR_COUNT, "MPI_File_write_ordered", "argument count");
  /* The others wrote their part (the call moves each member's data on its own), counted in the
   * view's etype, MPI_BYTE: the shared pointer did not move at the refused seek. */
  MPI_Offset at = -1;
  int want = 2 * (size - 1) * (int)sizeof(int);
  MPI_File_get_position_shared(fh, &at);
  MTEST_CHECK(at == want, "shared pointer at %lld after the ordered write, want %d", (long long)at,
              want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bad = size - 1;
  iotest_name_files("one_bad");
  open_refused();
  MPI_File fh = MPI_FILE_NULL;
  if (iotest_open("file", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    calls_refused(fh);
    MPI_File_close(&fh);
  }
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}
