/* MPI_Init twice is an error with a clear message; with MPI_ERRORS_RETURN it returns. */
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Init(&argc, &argv), len = 0;
  char text[MPI_MAX_ERROR_STRING] = "";
  MTEST_CHECK(rc != MPI_SUCCESS, "a second MPI_Init succeeded");
  MPI_Error_string(rc, text, &len);
  MTEST_CHECK(strstr(text, "MPI_Init") && strstr(text, "already initialized"),
              "message '%s'", text);
  return mtest_finalize();
}
