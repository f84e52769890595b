/* With MPI_ERRORS_RETURN, bad arguments come back as error codes of the right class, whose
 * message names the call, the argument and the rank. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static void expect_error(int rc, int want_class, const char *call, const char *arg, int rank) {
  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING], rank_text[32];
  MTEST_CHECK(rc != MPI_SUCCESS, "%s(%s) succeeded", call, arg);
  if (rc == MPI_SUCCESS) return;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == want_class, "%s(%s): class %d, want %d", call, arg, cls, want_class);
  MPI_Error_string(rc, text, &len);
  snprintf(rank_text, sizeof rank_text, "rank %d", rank);
  MTEST_CHECK(strstr(text, call) && strstr(text, arg) && strstr(text, rank_text),
              "message '%s' must name %s, %s and %s", text, call, arg, rank_text);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, value, rc;
  MPI_Errhandler eh;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler of MPI_COMM_WORLD is %#x", eh);
  MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler of MPI_COMM_SELF is %#x", eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_RETURN, "handler after set is %#x", eh);

  expect_error(MPI_Comm_rank(MPI_COMM_NULL, &value), MPI_ERR_COMM, "MPI_Comm_rank", "comm", rank);
  expect_error(MPI_Comm_size((MPI_Comm)0x12345, &value), MPI_ERR_COMM, "MPI_Comm_size", "comm",
               rank);
  expect_error(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_size", "size", rank);
  expect_error(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)42), MPI_ERR_ARG,
               "MPI_Comm_set_errhandler", "errhandler", rank);
  expect_error(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier", "comm", rank);

  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  rc = MPI_Error_class(-7, &cls);
  MTEST_CHECK(rc != MPI_SUCCESS, "MPI_Error_class(-7) succeeded");
  rc = MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
  MTEST_CHECK(rc == MPI_SUCCESS && cls == MPI_ERR_TRUNCATE, "a class is its own class: %d", cls);
  MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
  MTEST_CHECK(strstr(text, "truncated") != NULL, "text of MPI_ERR_TRUNCATE: '%s'", text);
  MPI_Error_string(MPI_SUCCESS, text, &len);
  MTEST_CHECK(len > 0 && len == (int)strlen(text), "text of MPI_SUCCESS: '%s'", text);

  /* The handler of MPI_COMM_SELF is still fatal, and unrelated to MPI_COMM_WORLD's. */
  MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF handler changed to %#x", eh);
  return mtest_finalize();
}
