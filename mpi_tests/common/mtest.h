/* Helpers for the MPI test programs: count failed checks and report them the MPICH way
 * (rank 0 prints "No Errors" when every rank passed). */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>

/* Records a failed check with its location and a printf-style explanation. */
#define MTEST_CHECK(cond, ...) \
  mtest_check((cond) != 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

void mtest_check(int ok, const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Checks that `rc` has class `error_class` (MPI_SUCCESS included) and, for an error with
 * `needle` not NULL, that its message names `needle`; `what` says which call it was. */
void mtest_expect_error(int rc, int error_class, const char *what, const char *needle);
/* Checks that `rc` is an error of class `error_class` whose message names the call `call`, the
 * argument `arg` and this process's rank ("rank N"), as every argument check must. */
void mtest_expect_arg_error(int rc, int error_class, const char *call, const char *arg);
/* For a call that may succeed or fail: when `rc` is an error, checks that its class is `a` or
 * `b` and that its message names `needle`. */
void mtest_expect_success_or(int rc, int a, int b, const char *what, const char *needle);
/* Runs `fn` in two threads at once (MPI_THREAD_MULTIPLE), each given a duplicate of
 * MPI_COMM_WORLD of its own (an MPI_Comm *), and frees the duplicates once both ended. */
void mtest_two_threads(void *(*fn)(void *comm));
/* Failed checks on this rank so far. */
int mtest_errors(void);
/* Sums the failures over MPI_COMM_WORLD (through whatever the library offers), prints
 * "No Errors" or " Found N errors" on rank 0, finalizes, and returns the exit code. */
int mtest_finalize(void);

/* Around reads that race on purpose (a test looking at memory that gpurun's progress helper may
 * be writing, to see that it moved the data while the program computed outside MPI):
 * ThreadSanitizer is told to let them be. Nothing without it. */
#if defined(__SANITIZE_THREAD__)
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define MTEST_RACY_READS_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define MTEST_RACY_READS_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define MTEST_RACY_READS_BEGIN() ((void)0)
#define MTEST_RACY_READS_END() ((void)0)
#endif

#endif
