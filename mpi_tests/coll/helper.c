/* The progress helper (GPURUN_PROGRESS_HELPER=on, set by the testlist): a large nonblocking or
 * persistent collective moves its data while every rank computes without calling MPI, so that
 * its result is in the receive buffer before the rank calls MPI again; calls made meanwhile (a blocking
 * collective whose user op calls MPI, point-to-point, several pending collectives) take the
 * library back from the helper and complete. With MTEST_THREAD_MULTIPLE=1 the program asks
 * for MPI_THREAD_MULTIPLE, and then two threads of every rank also run helped collectives on
 * communicators of their own at the same time. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define N (256 * 1024) /* floats: 1 MiB, above the helper's default size */

static int rank, size;

/* Spins for `seconds` without calling MPI (MPI_Wtime is a clock read). */
static void compute(double seconds) {
  volatile double x = 1.0;
  double start = MPI_Wtime();
  while (MPI_Wtime() - start < seconds) x = x * 1.0000001 + 1e-9;
}

static void fill(float *v, int round) {
  for (int i = 0; i < N; ++i) v[i] = (float)(rank + 1 + (i + round) % 7);
}

static void check_sum(const float *v, int round, const char *what) {
  int bad = 0;
  for (int i = 0; i < N && bad < 3; ++i) {
    float want = (float)(size * (size + 1) / 2 + size * ((i + round) % 7));
    if (v[i] != want) {
      MTEST_CHECK(0, "%s round %d: element %d is %g, expected %g", what, round, i, v[i], want);
      ++bad;
    }
  }
}

/* Whether v holds round `round`'s sum already (read while the helper may still write it). */
static int holds_sum(const volatile float *v, int round) {
  int holds = 1;
  MTEST_RACY_READS_BEGIN();
  for (int i = 0; i < N && holds; ++i)
    holds = v[i] == (float)(size * (size + 1) / 2 + size * ((i + round) % 7));
  MTEST_RACY_READS_END();
  return holds;
}

/* Moved by the helper: the sum arrives in `out` while this rank computes without calling MPI.
 * It looks every 0.1 s, for up to 10 s: a loaded machine (other jobs, ranks and helpers
 * outnumbering the cores) may take longer than a slice, but only the helper can bring it. */
static void expect_done_after_compute(MPI_Request *req, const float *out, int round,
                                      const char *what) {
  int there = 0;
  for (int slice = 0; slice < 100 && !there; ++slice) {
    compute(0.1);
    there = holds_sum(out, round);
  }
  MTEST_CHECK(there, "%s round %d: the result did not arrive in 10 s of computing without MPI",
              what, round);
  MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void nonblocking(float *in, float *out) {
  for (int round = 0; round < 2; ++round) {
    MPI_Request req;
    fill(in, round);
    memset(out, 0xff, sizeof(float) * N); /* NaN: no earlier result can pass for this one */
    MPI_Iallreduce(in, out, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
    expect_done_after_compute(&req, out, round, "MPI_Iallreduce");
    check_sum(out, round, "MPI_Iallreduce");
  }
}

static void persistent(float *in, float *out) {
  MPI_Request req;
  MPI_Allreduce_init(in, out, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int round = 0; round < 2; ++round) {
    fill(in, round);
    memset(out, 0xff, sizeof(float) * N);
    MPI_Start(&req);
    expect_done_after_compute(&req, out, round, "MPI_Allreduce_init");
    check_sum(out, round, "MPI_Allreduce_init");
  }
  MPI_Request_free(&req);
}

/* A user op that calls MPI from inside a blocking collective, while the helper exists. */
static void sum_floats(void *in, void *inout, int *len, MPI_Datatype *type) {
  int type_size = 0;
  MPI_Type_size(*type, &type_size);
  MTEST_CHECK(type_size == (int)sizeof(float), "MPI_Type_size in a user op gave %d", type_size);
  for (int i = 0; i < *len; ++i) ((float *)inout)[i] += ((float *)in)[i];
}

static void user_op_while_pending(float *in, float *out) {
  MPI_Op op;
  MPI_Op_create(sum_floats, 1, &op);
  float *big = malloc(sizeof(float) * N), *big_out = malloc(sizeof(float) * N);
  fill(big, 3);
  MPI_Request req;
  MPI_Iallreduce(big, big_out, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
  fill(in, 5);
  MPI_Allreduce(in, out, 64, MPI_FLOAT, op, MPI_COMM_WORLD);
  for (int i = 0; i < 64; ++i) {
    float want = (float)(size * (size + 1) / 2 + size * ((i + 5) % 7));
    MTEST_CHECK(out[i] == want, "user op element %d is %g, expected %g", i, out[i], want);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check_sum(big_out, 3, "MPI_Iallreduce beside a user op");
  MPI_Op_free(&op);
  free(big);
  free(big_out);
}

/* Several helped collectives and a message pending at once, completed in reverse order. */
static void several(float *in, float *out) {
  float *in2 = malloc(sizeof(float) * N), *out2 = malloc(sizeof(float) * N);
  int ping = rank, pong = -1;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Request req[4];
  fill(in, 1);
  fill(in2, 2);
  MPI_Iallreduce(in, out, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&pong, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &req[1]);
  MPI_Iallreduce(in2, out2, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&ping, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &req[3]);
  compute(0.05);
  for (int k = 3; k >= 0; --k) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
  check_sum(out, 1, "first of two MPI_Iallreduce");
  check_sum(out2, 2, "second of two MPI_Iallreduce");
  MTEST_CHECK(pong == left, "message from %d carried %d", left, pong);
  free(in2);
  free(out2);
}

/* A thread's rounds on its own communicator: start, compute, wait, check. */
static void *thread_rounds(void *arg) {
  MPI_Comm comm = *(MPI_Comm *)arg;
  float *in = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
  for (int round = 0; round < 20; ++round) {
    MPI_Request req;
    fill(in, round);
    MPI_Iallreduce(in, out, N, MPI_FLOAT, MPI_SUM, comm, &req);
    compute(0.001 * (round % 3));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_sum(out, round, "MPI_Iallreduce in a thread");
  }
  free(in);
  free(out);
  return NULL;
}

int main(int argc, char **argv) {
  const char *multiple = getenv("MTEST_THREAD_MULTIPLE");
  if (multiple != NULL && strcmp(multiple, "1") == 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float *in = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
  nonblocking(in, out);
  persistent(in, out);
  user_op_while_pending(in, out);
  several(in, out);
  if (multiple != NULL && strcmp(multiple, "1") == 0) mtest_two_threads(thread_rounds);
  free(in);
  free(out);
  return mtest_finalize();
}
