/* A user error handler set on a communicator is called for every error raised on it, with that
 * communicator and the error code, and the failing call then returns that code. Errors with no
 * valid communicator go to MPI_COMM_WORLD's handler. Communicators made from one (MPI_Comm_dup,
 * MPI_Comm_split) inherit its handler; the MPI-1 names MPI_Errhandler_create/set/get work
 * alike. */
#include <string.h>

#include "mtest.h"

static int calls;
static MPI_Comm seen_comm = MPI_COMM_NULL;
static int seen_code = MPI_SUCCESS;

static void record(MPI_Comm *comm, int *code, ...) {
  calls++;
  seen_comm = *comm;
  seen_code = *code;
}

/* Checks that the call that returned `rc` ran the handler once, for `comm` and that very code,
 * an error of `error_class` whose message names `call`; then forgets the call. */
static void expect_handled(int rc, MPI_Comm comm, int error_class, const char *call) {
  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  MTEST_CHECK(calls == 1, "%s: the handler ran %d times, want once", call, calls);
  MTEST_CHECK(seen_comm == comm, "%s: the handler got comm %#x, want %#x", call,
              (unsigned)seen_comm, (unsigned)comm);
  MTEST_CHECK(rc != MPI_SUCCESS && seen_code == rc, "%s: the handler got code %d, the call returned %d",
              call, seen_code, rc);
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == error_class, "%s: class %d, want %d", call, cls, error_class);
  MPI_Error_string(rc, text, &len);
  MTEST_CHECK(strstr(text, call) != NULL, "%s: message '%s'", call, text);
  calls = 0;
  seen_comm = MPI_COMM_NULL;
  seen_code = MPI_SUCCESS;
}

/* A send to a rank the communicator does not have: MPI_ERR_RANK on `comm`. */
static int bad_send(MPI_Comm comm) {
  int size, value = 0;
  MPI_Comm_size(comm, &size);
  return MPI_Send(&value, 1, MPI_INT, size, 0, comm);
}

static void check_handler_is(MPI_Comm comm, MPI_Errhandler want, const char *what) {
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(comm, &got);
  MTEST_CHECK(got == want, "%s: handler %#x, want %#x", what, (unsigned)got, (unsigned)want);
  MPI_Errhandler_free(&got);
}

static void on_world(MPI_Errhandler eh) {
  int value;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  check_handler_is(MPI_COMM_WORLD, eh, "MPI_COMM_WORLD");
  MTEST_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &value) == MPI_SUCCESS && calls == 0,
              "a call that succeeds runs no handler (%d calls)", calls);
  expect_handled(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_COMM_WORLD, MPI_ERR_ARG,
                 "MPI_Comm_size");
  expect_handled(bad_send(MPI_COMM_WORLD), MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Send");
  /* No communicator to blame: MPI_COMM_WORLD's handler, given MPI_COMM_WORLD. */
  expect_handled(MPI_Comm_rank(MPI_COMM_NULL, &value), MPI_COMM_WORLD, MPI_ERR_COMM,
                 "MPI_Comm_rank");
  expect_handled(MPI_Error_class(-1, &value), MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class");
}

static void inherited(MPI_Errhandler eh, int rank) {
  MPI_Comm dup, split, dup_of_dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  check_handler_is(dup, eh, "MPI_Comm_dup");
  expect_handled(bad_send(dup), dup, MPI_ERR_RANK, "MPI_Send");
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &split);
  check_handler_is(split, eh, "MPI_Comm_split");
  expect_handled(bad_send(split), split, MPI_ERR_RANK, "MPI_Send");

  /* A handler set on the duplicate is its own: the parent keeps the user handler, and a
   * duplicate of the duplicate gets MPI_ERRORS_RETURN. */
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int rc = bad_send(dup);
  MTEST_CHECK(rc != MPI_SUCCESS && calls == 0, "MPI_ERRORS_RETURN on dup: rc %d, %d calls", rc,
              calls);
  expect_handled(bad_send(MPI_COMM_WORLD), MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Send");
  MPI_Comm_dup(dup, &dup_of_dup);
  check_handler_is(dup_of_dup, MPI_ERRORS_RETURN, "MPI_Comm_dup of dup");
  MPI_Comm_free(&dup_of_dup);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
}

static void mpi1_names(void) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MTEST_CHECK(MPI_Errhandler_create(record, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL,
              "MPI_Errhandler_create gave %#x", (unsigned)eh);
  MPI_Errhandler_set(comm, MPI_ERRORS_RETURN);
  MPI_Errhandler_get(comm, &got);
  MTEST_CHECK(got == MPI_ERRORS_RETURN, "MPI_Errhandler_get: %#x", (unsigned)got);
  MPI_Errhandler_set(comm, eh);
  MPI_Errhandler_get(comm, &got);
  MTEST_CHECK(got == eh, "MPI_Errhandler_get: %#x, want %#x", (unsigned)got, (unsigned)eh);
  MPI_Errhandler_free(&got);
  expect_handled(bad_send(comm), comm, MPI_ERR_RANK, "MPI_Send");
  MPI_Errhandler_free(&eh);
  MPI_Comm_free(&comm);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  MTEST_CHECK(MPI_Comm_create_errhandler(record, &eh) == MPI_SUCCESS, "create failed");
  /* An errhandler handle as MPICH encodes them: object kind 5 in bits 29-26, not builtin. */
  MTEST_CHECK(((unsigned)eh & 0x3c000000u) == 0x14000000u && ((unsigned)eh >> 30) != 1 &&
                  eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ABORT,
              "user handle %#x", (unsigned)eh);
  on_world(eh);
  inherited(eh, rank);
  mpi1_names();

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&eh);
  return mtest_finalize();
}
