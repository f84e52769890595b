/* MPI_Comm_call_errhandler runs the communicator's handler with the code given: a user
 * handler gets the communicator and the code (an added one too), MPI_ERRORS_RETURN does
 * nothing, and the call returns MPI_SUCCESS after both. A handler may call MPI itself (under
 * MPI_THREAD_MULTIPLE too). Bad arguments give errors naming the call, argument and rank. The
 * fatal handlers are tested by call_fatal and call_abort. */
#include <string.h>

#include "mtest.h"

static int calls;
static MPI_Comm seen_comm = MPI_COMM_NULL;
static int seen_code = MPI_SUCCESS;
static int seen_rank = -1;
static char seen_text[MPI_MAX_ERROR_STRING];

static void record(MPI_Comm *comm, int *code, ...) {
  int len = 0;
  calls++;
  seen_comm = *comm;
  seen_code = *code;
  /* MPI from inside the handler */
  MPI_Comm_rank(*comm, &seen_rank);
  MPI_Error_string(*code, seen_text, &len);
}

static void expect_call(MPI_Comm comm, int code, const char *text, const char *what) {
  int rank;
  calls = 0;
  int rc = MPI_Comm_call_errhandler(comm, code);
  MPI_Comm_rank(comm, &rank);
  MTEST_CHECK(rc == MPI_SUCCESS, "%s: returned %d, want MPI_SUCCESS", what, rc);
  MTEST_CHECK(calls == 1 && seen_comm == comm && seen_code == code && seen_rank == rank,
              "%s: %d calls, comm %#x (want %#x), code %d (want %d), rank %d (want %d)", what,
              calls, (unsigned)seen_comm, (unsigned)comm, seen_code, code, seen_rank, rank);
  MTEST_CHECK(strcmp(seen_text, text) == 0, "%s: the handler read '%s', want '%s'", what,
              seen_text, text);
}

int main(int argc, char **argv) {
  int provided, cls, code;
  MPI_Errhandler eh;
  MPI_Comm comm;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_create_errhandler(record, &eh);

  /* MPI_ERRORS_RETURN: nothing happens, MPI_SUCCESS comes back. */
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  calls = 0;
  int rc = MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  MTEST_CHECK(rc == MPI_SUCCESS && calls == 0, "MPI_ERRORS_RETURN: rc %d, %d calls", rc, calls);

  /* A user handler, with a predefined class and with an added code. */
  MPI_Comm_set_errhandler(comm, eh);
  expect_call(comm, MPI_ERR_TAG, "MPI_ERR_TAG: invalid tag", "predefined class");
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_string(code, "the application's own error");
  expect_call(comm, code, "the application's own error", "added code");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  expect_call(MPI_COMM_WORLD, cls, "", "added class on MPI_COMM_WORLD");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Bad arguments */
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  mtest_expect_arg_error(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER), MPI_ERR_COMM,
                         "MPI_Comm_call_errhandler", "comm");
  mtest_expect_arg_error(MPI_Comm_call_errhandler(comm, -5), MPI_ERR_ARG,
                         "MPI_Comm_call_errhandler", "errorcode");
  mtest_expect_arg_error(MPI_Comm_call_errhandler(comm, code + 1000), MPI_ERR_ARG,
                         "MPI_Comm_call_errhandler", "errorcode");

  MPI_Errhandler_free(&eh);
  MPI_Comm_free(&comm);
  return mtest_finalize();
}
