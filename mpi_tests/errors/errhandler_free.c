/* MPI_Errhandler_free sets the handle to MPI_ERRHANDLER_NULL; a handler still set on a
 * communicator stays in use there, and in communicators made from it, until the last of them
 * is freed. Each MPI_Comm_get_errhandler gives a handle to free. Predefined handlers may be
 * freed too (MPI-4.0): the handle becomes MPI_ERRHANDLER_NULL, the handler stays. Bad handles
 * give MPI_ERR_ARG naming the call, the argument and the rank. */
#include <stddef.h>

#include "mtest.h"

static int calls;
static MPI_Comm seen_comm = MPI_COMM_NULL;

static void record(MPI_Comm *comm, int *code, ...) {
  (void)code;
  calls++;
  seen_comm = *comm;
}

static int bad_send(MPI_Comm comm) {
  int size, value = 0;
  MPI_Comm_size(comm, &size);
  return MPI_Send(&value, 1, MPI_INT, size, 0, comm);
}

/* An error on `comm` runs the user handler, given `comm`. */
static void expect_user_handler(MPI_Comm comm, const char *what) {
  calls = 0;
  int rc = bad_send(comm);
  MTEST_CHECK(rc != MPI_SUCCESS && calls == 1 && seen_comm == comm,
              "%s: rc %d, %d handler calls, comm %#x want %#x", what, rc, calls,
              (unsigned)seen_comm, (unsigned)comm);
}

/* A handler set on a communicator outlives its handle. */
static void freed_while_set(void) {
  MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
  MPI_Comm comm, dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_create_errhandler(record, &eh);
  MPI_Comm_set_errhandler(comm, eh);
  MPI_Errhandler saved = eh;
  int rc = MPI_Errhandler_free(&eh);
  MTEST_CHECK(rc == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free: rc %d, handle %#x", rc,
              (unsigned)eh);
  expect_user_handler(comm, "after MPI_Errhandler_free");
  MPI_Comm_dup(comm, &dup);
  expect_user_handler(dup, "duplicate made after MPI_Errhandler_free");

  /* get gives a new handle to the same handler, which must be freed once more. */
  MPI_Comm_get_errhandler(comm, &got);
  MTEST_CHECK(got == saved, "get: %#x, want %#x", (unsigned)got, (unsigned)saved);
  rc = MPI_Errhandler_free(&got);
  MTEST_CHECK(rc == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL, "free of get's handle: rc %d", rc);
  expect_user_handler(comm, "after freeing get's handle");

  /* The user holds no handle any more: freeing or setting it again is an error. */
  MPI_Errhandler again = saved;
  mtest_expect_arg_error(MPI_Errhandler_free(&again), MPI_ERR_ARG, "MPI_Errhandler_free",
                         "errhandler");
  mtest_expect_arg_error(MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved), MPI_ERR_ARG,
                         "MPI_Comm_set_errhandler", "errhandler");
  expect_user_handler(dup, "after a refused free");

  /* Replacing it on one communicator leaves it on the other. */
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  calls = 0;
  rc = bad_send(comm);
  MTEST_CHECK(rc != MPI_SUCCESS && calls == 0, "replaced: rc %d, %d calls", rc, calls);
  expect_user_handler(dup, "still set on the duplicate");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&comm);
  /* Gone with the last communicator: the old handle names nothing. */
  mtest_expect_arg_error(MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved), MPI_ERR_ARG,
                         "MPI_Comm_set_errhandler", "errhandler");
}

/* Handlers go once nothing refers to them: far more handlers than the library has room for
 * at once can be made and freed, directly or after being set on a communicator. */
static void no_leak(void) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int failures = 0;
  for (int i = 0; i < 600000 && failures == 0; ++i) {
    MPI_Errhandler eh;
    if (MPI_Comm_create_errhandler(record, &eh) != MPI_SUCCESS) failures++;
    if (i % 2 == 0) {
      MPI_Comm_set_errhandler(comm, eh);
      MPI_Errhandler_free(&eh);
      MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    } else if (MPI_Errhandler_free(&eh) != MPI_SUCCESS) {
      failures++;
    }
  }
  MTEST_CHECK(failures == 0, "creating and freeing handlers failed");
  MPI_Comm_free(&comm);
}

static void predefined(void) {
  MPI_Errhandler eh = MPI_ERRORS_RETURN, got = MPI_ERRHANDLER_NULL;
  int rc = MPI_Errhandler_free(&eh);
  MTEST_CHECK(rc == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free of MPI_ERRORS_RETURN: rc %d",
              rc);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
  MTEST_CHECK(got == MPI_ERRORS_RETURN, "MPI_COMM_WORLD's handler: %#x", (unsigned)got);
  rc = MPI_Errhandler_free(&got);
  MTEST_CHECK(rc == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL, "free of get's handle: rc %d", rc);
  rc = bad_send(MPI_COMM_WORLD);
  MTEST_CHECK(rc != MPI_SUCCESS, "MPI_ERRORS_RETURN still returns errors");
  eh = MPI_ERRORS_ARE_FATAL;
  rc = MPI_Errhandler_free(&eh);
  MTEST_CHECK(rc == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free of MPI_ERRORS_ARE_FATAL");
  eh = MPI_ERRORS_ABORT;
  rc = MPI_Errhandler_free(&eh);
  MTEST_CHECK(rc == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free of MPI_ERRORS_ABORT");
}

static void bad_arguments(void) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  mtest_expect_arg_error(MPI_Errhandler_free(&eh), MPI_ERR_ARG, "MPI_Errhandler_free",
                         "MPI_ERRHANDLER_NULL");
  mtest_expect_arg_error(MPI_Errhandler_free(NULL), MPI_ERR_ARG, "MPI_Errhandler_free",
                         "errhandler");
  eh = (MPI_Errhandler)0x12345;
  mtest_expect_arg_error(MPI_Errhandler_free(&eh), MPI_ERR_ARG, "MPI_Errhandler_free",
                         "errhandler");
  MTEST_CHECK(eh == (MPI_Errhandler)0x12345, "a refused free changed the handle to %#x",
              (unsigned)eh);
  mtest_expect_arg_error(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL),
                         MPI_ERR_ARG, "MPI_Comm_set_errhandler", "MPI_ERRHANDLER_NULL");
  mtest_expect_arg_error(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)MPI_COMM_WORLD),
                         MPI_ERR_ARG, "MPI_Comm_set_errhandler", "errhandler");
  mtest_expect_arg_error(MPI_Errhandler_set(MPI_COMM_WORLD, (MPI_Errhandler)0xd4001234),
                         MPI_ERR_ARG, "MPI_Errhandler_set", "errhandler");
  mtest_expect_arg_error(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM,
                         "MPI_Comm_set_errhandler", "comm");
  mtest_expect_arg_error(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
                         "MPI_Comm_get_errhandler", "errhandler");
  mtest_expect_arg_error(MPI_Errhandler_get(MPI_COMM_NULL, &eh), MPI_ERR_COMM,
                         "MPI_Errhandler_get", "comm");
  mtest_expect_arg_error(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG,
                         "MPI_Comm_create_errhandler", "comm_errhandler_fn");
  mtest_expect_arg_error(MPI_Comm_create_errhandler(record, NULL), MPI_ERR_ARG,
                         "MPI_Comm_create_errhandler", "errhandler");
  mtest_expect_arg_error(MPI_Errhandler_create(NULL, &eh), MPI_ERR_ARG, "MPI_Errhandler_create",
                         "comm_errhandler_fn");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  freed_while_set();
  no_leak();
  predefined();
  bad_arguments();
  return mtest_finalize();
}
