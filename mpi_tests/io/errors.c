/* Errors of MPI-IO. Files start with MPI_ERRORS_RETURN (taken from MPI_FILE_NULL, whose handler
 * MPI_File_open errors use), so an error returns and the job goes on; a handler made with
 * MPI_File_create_errhandler, set on MPI_FILE_NULL or on a file, is called with the file and the
 * code, by failing calls and by MPI_File_call_errhandler. Each error has its class: a missing
 * file, an existing one with MPI_MODE_EXCL, bad access modes, writing a read-only file, reading
 * a write-only one, a negative offset or count, a null datatype, a seek before the start, an
 * individual-pointer access to a sequential file, an unknown datarep, MPI_FILE_NULL. Under
 * gpurun, every message also names the call, the argument and the rank, a garbage handle is
 * MPI_ERR_FILE, MPI_IN_PLACE is no buffer of a file access, and only the "native" datarep is
 * supported. */
#include <unistd.h>

#include "iotest.h"
#include "mtest.h"

static int rank;
static const char *const tags[] = {"exists", "missing", "user"};
static char exists[IOTEST_PATH_LEN], missing[IOTEST_PATH_LEN];

/* The files of "exists" and "missing", named once every rank knows the prefix. */
static void name_files(void) {
  iotest_name_files("errors");
  iotest_path("exists", exists);
  iotest_path("missing", missing);
}

/* The class must be right; under gpurun the message must also name the call, the argument and
 * the rank. */
static void expect(int rc, int error_class, const char *call, const char *arg) {
#ifdef GPURUN_MPI_H_INCLUDED
  mtest_expect_arg_error(rc, error_class, call, arg);
#else
  (void)arg;
  mtest_expect_error(rc, error_class, call, NULL);
#endif
}

static int open_as(const char *path, int amode, MPI_File *fh) {
  *fh = MPI_FILE_NULL;
  return MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, fh);
}

/* Opens the existing file; a failure is a failed check. */
static int open_ok(int amode, MPI_File *fh) {
  int rc = open_as(exists, amode, fh);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_File_open(%s, %#x) failed (%d)", exists, amode, rc);
  return rc == MPI_SUCCESS;
}

/* An open that must fail: if it succeeds, the file is closed again. */
static void bad_open(const char *path, int amode, int error_class, const char *arg) {
  MPI_File fh = MPI_FILE_NULL;
  int rc = open_as(path, amode, &fh);
  expect(rc, error_class, "MPI_File_open", arg);
  if (rc == MPI_SUCCESS) MPI_File_close(&fh);
}

static void check_handler_is(MPI_File fh, MPI_Errhandler want, const char *what) {
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  int rc = MPI_File_get_errhandler(fh, &got);
  MTEST_CHECK(rc == MPI_SUCCESS && got == want, "%s: a different error handler", what);
  MPI_Errhandler_free(&got);
}

static void default_handler(void) {
  check_handler_is(MPI_FILE_NULL, MPI_ERRORS_RETURN, "MPI_FILE_NULL at start");
  MPI_File fh = MPI_FILE_NULL;
  int v[4] = {1, 2, 3, 4};
  if (!open_ok(MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  check_handler_is(fh, MPI_ERRORS_RETURN, "a newly opened file");
  MPI_File_write_at_all(fh, 0, v, rank == 0 ? 4 : 0, MPI_INT, MPI_STATUS_IGNORE);
  expect(MPI_File_read_at(fh, -4, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ARG,
         "MPI_File_read_at", "argument offset");
  expect(MPI_File_read_at(fh, 0, v, -1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
         "MPI_File_read_at", "argument count");
  expect(MPI_File_write_at(fh, 0, v, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
         "MPI_File_write_at", "argument datatype");
  expect(MPI_File_seek(fh, -8, MPI_SEEK_SET), MPI_ERR_ARG, "MPI_File_seek", "argument offset");
  expect(MPI_File_seek(fh, -64, MPI_SEEK_CUR), MPI_ERR_ARG, "MPI_File_seek", "argument offset");
  expect(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "foo", MPI_INFO_NULL),
         MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", "argument datarep");
  MTEST_CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "MPI_File_close after errors failed");
}

/* The file exists (default_handler made it), `missing` does not. */
static void open_errors(void) {
  bad_open(missing, MPI_MODE_RDWR, MPI_ERR_NO_SUCH_FILE, "argument filename");
  bad_open(exists, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_ERR_FILE_EXISTS,
           "argument filename");
  bad_open(exists, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_ERR_AMODE, "argument amode");
  bad_open(exists, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_ERR_AMODE, "argument amode");
  bad_open(exists, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_ERR_AMODE, "argument amode");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    expect(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE, "MPI_File_delete",
           "argument filename");
  MTEST_CHECK(access(missing, F_OK) != 0, "a failed open created %s", missing);
}

/* Accesses the access mode forbids. */
static void access_errors(void) {
  MPI_File fh;
  int v[4] = {0};
  if (open_ok(MPI_MODE_RDONLY, &fh)) {
    expect(MPI_File_write_at(fh, 0, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY,
           "MPI_File_write_at", "argument fh");
#ifdef GPURUN_MPI_H_INCLUDED
    /* MPICH gives MPI_ERR_IO here (its write fails in the file system instead). */
    expect(MPI_File_write_shared(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY,
           "MPI_File_write_shared", "argument fh");
#endif
    MPI_File_close(&fh);
  }
  if (open_ok(MPI_MODE_WRONLY, &fh)) {
    expect(MPI_File_read_at(fh, 0, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS,
           "MPI_File_read_at", "argument fh");
    expect(MPI_File_read_shared(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS,
           "MPI_File_read_shared", "argument fh");
#ifdef GPURUN_MPI_H_INCLUDED
    /* MPICH reads from the address MPI_IN_PLACE stands for. */
    expect(MPI_File_write(fh, MPI_IN_PLACE, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
           "MPI_File_write", "MPI_IN_PLACE");
    expect(MPI_File_write_ordered_begin(fh, MPI_IN_PLACE, 1, MPI_INT), MPI_ERR_BUFFER,
           "MPI_File_write_ordered_begin", "argument buf");
#endif
    MPI_File_close(&fh);
  }
  if (open_ok(MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL, &fh)) {
    expect(MPI_File_read(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_read", "argument fh");
    expect(MPI_File_read_at(fh, 0, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_read_at", "argument fh");
    expect(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek",
           "argument fh");
    int rc = MPI_File_read_shared(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE);
    MTEST_CHECK(rc == MPI_SUCCESS, "read_shared of a sequential file failed (%d)", rc);
    MPI_File_close(&fh);
  }
}

static void bad_handles(void) {
  int v = 0;
  MPI_Offset size;
  MPI_File null = MPI_FILE_NULL;
  expect(MPI_File_read_at(MPI_FILE_NULL, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE,
         "MPI_File_read_at", "argument fh");
  expect(MPI_File_get_size(MPI_FILE_NULL, &size), MPI_ERR_FILE, "MPI_File_get_size", "argument fh");
  expect(MPI_File_close(&null), MPI_ERR_FILE, "MPI_File_close", "argument fh");
#ifdef GPURUN_MPI_H_INCLUDED
  /* MPICH would dereference a garbage handle and crash. */
  expect(MPI_File_get_size((MPI_File)0x1234, &size), MPI_ERR_FILE, "MPI_File_get_size",
         "argument fh");
  expect(MPI_File_write_at((MPI_File)0x1234, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE,
         "MPI_File_write_at", "argument fh");
#endif
}

static int calls;
static MPI_File seen_file;
static int seen_code;

static void record(MPI_File *file, int *code, ...) {
  calls++;
  seen_file = *file;
  seen_code = *code;
}

/* Checks that the handler ran once, for `fh` and the code `rc`, of class `error_class`. */
static void expect_handled(int rc, MPI_File fh, int error_class, const char *what) {
  int cls = -1;
  MTEST_CHECK(calls == 1, "%s: the handler ran %d times, want once", what, calls);
  MTEST_CHECK(seen_file == fh, "%s: the handler got another file handle", what);
  MTEST_CHECK(seen_code == rc, "%s: the handler got code %d, the call returned %d", what, seen_code,
              rc);
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == error_class, "%s: class %d, want %d", what, cls, error_class);
  calls = 0;
  seen_file = MPI_FILE_NULL;
  seen_code = MPI_SUCCESS;
}

/* On MPI_FILE_NULL the handler takes the errors of MPI_File_open and MPI_File_delete, and files
 * opened then inherit it. */
static void handler_on_null(MPI_Errhandler eh) {
  char user[IOTEST_PATH_LEN];
  iotest_path("user", user);
  MTEST_CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, eh) == 0, "set_errhandler(FILE_NULL)");
  check_handler_is(MPI_FILE_NULL, eh, "MPI_FILE_NULL after set_errhandler");
  MPI_File fh = MPI_FILE_NULL;
  int rc = open_as(missing, MPI_MODE_RDONLY, &fh);
  expect_handled(rc, MPI_FILE_NULL, MPI_ERR_NO_SUCH_FILE, "open of a missing file");
  if (rank == 0) {
    rc = MPI_File_delete(missing, MPI_INFO_NULL);
    expect_handled(rc, MPI_FILE_NULL, MPI_ERR_NO_SUCH_FILE, "delete of a missing file");
  }
  rc = open_as(user, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, &fh);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  MTEST_CHECK(rc == MPI_SUCCESS && calls == 0, "open of a new file failed (%d)", rc);
  if (rc != MPI_SUCCESS) return;
  check_handler_is(fh, eh, "a file opened while MPI_FILE_NULL had the user handler");
  int v = 0;
  rc = MPI_File_read_at(fh, -1, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  expect_handled(rc, fh, MPI_ERR_ARG, "read_at(offset -1) with an inherited handler");
  MPI_File_close(&fh);
}

/* On an open file, the handler takes its errors and MPI_File_call_errhandler. */
static void handler_on_file(MPI_Errhandler eh) {
  MPI_File fh;
  int v = 0;
  if (!open_ok(MPI_MODE_RDWR, &fh)) return;
  MTEST_CHECK(MPI_File_set_errhandler(fh, eh) == MPI_SUCCESS, "MPI_File_set_errhandler failed");
  check_handler_is(fh, eh, "a file after set_errhandler");
  int rc = MPI_File_call_errhandler(fh, MPI_ERR_OTHER);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_File_call_errhandler returned %d", rc);
  expect_handled(MPI_ERR_OTHER, fh, MPI_ERR_OTHER, "MPI_File_call_errhandler");
  rc = MPI_File_read_at(fh, 0, &v, -1, MPI_INT, MPI_STATUS_IGNORE);
  expect_handled(rc, fh, MPI_ERR_COUNT, "read_at(count -1) with the user handler");
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  rc = MPI_File_read_at(fh, 0, &v, -1, MPI_INT, MPI_STATUS_IGNORE);
  MTEST_CHECK(rc != MPI_SUCCESS && calls == 0, "MPI_ERRORS_RETURN again: %d calls", calls);
  MPI_File_close(&fh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  name_files();
  default_handler();
  open_errors();
  access_errors();
  bad_handles();
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MTEST_CHECK(MPI_File_create_errhandler(record, &eh) == MPI_SUCCESS,
              "MPI_File_create_errhandler failed");
  handler_on_file(eh);
  handler_on_null(eh);
#ifdef GPURUN_MPI_H_INCLUDED
  MTEST_CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS, "freeing the file error handler failed");
#else
  /* MPICH 4.0 takes no reference for a file that inherits the handler of MPI_FILE_NULL but drops
   * one when that file lets go of it, so the handler is already gone here. */
#endif
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}
