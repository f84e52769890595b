#include "mtest.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errors;

void mtest_check(int ok, const char *file, int line, const char *cond, const char *fmt, ...) {
  if (ok) return;
  errors++;
  int rank = -1, initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char text[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  fprintf(stderr, "[rank %d] %s:%d: check failed: %s: %s\n", rank, file, line, cond, text);
  fflush(stderr);
}

int mtest_errors(void) { return errors; }

void mtest_two_threads(void *(*fn)(void *comm)) {
  MPI_Comm comm[2];
  pthread_t thread[2];
  for (int i = 0; i < 2; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &comm[i]);
  for (int i = 0; i < 2; ++i) pthread_create(&thread[i], NULL, fn, &comm[i]);
  for (int i = 0; i < 2; ++i) pthread_join(thread[i], NULL);
  for (int i = 0; i < 2; ++i) MPI_Comm_free(&comm[i]);
}

void mtest_expect_error(int rc, int error_class, const char *what, const char *needle) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == error_class, "%s: class %d, expected %d", what, cls, error_class);
  if (rc != MPI_SUCCESS && needle != NULL) {
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(strstr(text, needle) != NULL, "%s: message \"%s\" does not name \"%s\"", what, text,
                needle);
  }
}

void mtest_expect_arg_error(int rc, int error_class, const char *call, const char *arg) {
  int cls = MPI_SUCCESS, rank = -1, len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == error_class, "%s(%s): class %d, expected %d", call, arg, cls, error_class);
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING], rank_text[32];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(rank_text, sizeof rank_text, "rank %d", rank);
  MPI_Error_string(rc, text, &len);
  MTEST_CHECK(strstr(text, call) && strstr(text, arg) && strstr(text, rank_text),
              "%s(%s): message \"%s\" must name %s, %s and %s", call, arg, text, call, arg,
              rank_text);
}

void mtest_expect_success_or(int rc, int a, int b, const char *what, const char *needle) {
  if (rc == MPI_SUCCESS) return;
  int cls;
  MPI_Error_class(rc, &cls);
  mtest_expect_error(rc, cls == b ? b : a, what, needle);
}

/* Every rank reports its own failures (and then exits non-zero, which gpurun reports); rank 0
 * prints the verdict after a barrier, once every rank has reached the end. The CTest rule
 * fails on any failure line, so a "No Errors" from rank 0 cannot hide another rank's. */
int mtest_finalize(void) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (errors != 0) {
    fprintf(stderr, "[rank %d] Found %d errors\n", rank, errors);
    fflush(stderr);
  }
  MPI_Finalize();
  if (errors != 0) return 1;
  if (rank == 0) {
    printf(" No Errors\n");
    fflush(stdout);
  }
  return 0;
}
