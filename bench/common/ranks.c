/* Everything the common library needs from MPI beyond Init/Finalize/Comm_rank/Comm_size/
 * Barrier/Wtime: statistics over ranks, error sums and the node-local rank.
 *
 * BENCH_MPI_MINIMAL is defined by the build when the MPI's header lacks MPI_Reduce (gpurun's
 * library while its collectives are being written). The programs that such an MPI can run
 * (bench/gpurun_programs.txt) then still work: each rank uses its own values, and the header
 * says so. This file is the only place that knows about it. */
#include <float.h>

#include "bench.h"
#include "internal.h"

#ifndef BENCH_MPI_MINIMAL

void bench_stats(struct bench *b, double local, int took_part, struct bench_stat *out) {
  double sum_count[2] = {took_part ? local : 0.0, took_part ? 1.0 : 0.0};
  double mn = took_part ? local : DBL_MAX, mx = took_part ? local : -DBL_MAX;
  double total[2] = {0.0, 0.0};
  MPI_Reduce(sum_count, total, 2, MPI_DOUBLE, MPI_SUM, 0, b->comm);
  MPI_Reduce(&mn, &out->min, 1, MPI_DOUBLE, MPI_MIN, 0, b->comm);
  MPI_Reduce(&mx, &out->max, 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
  out->avg = total[1] > 0 ? total[0] / total[1] : 0.0;
}

double bench_max_all(struct bench *b, double local) {
  double mx = local;
  MPI_Allreduce(&local, &mx, 1, MPI_DOUBLE, MPI_MAX, b->comm);
  return mx;
}

long long bench_sum_errors(struct bench *b, long long local) {
  long long total = local;
  MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, b->comm);
  return total;
}

int bench_local_rank(struct bench *b) {
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(b->comm, MPI_COMM_TYPE_SHARED, b->rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

int bench_minimal_mpi(void) { return 0; }

#else

void bench_stats(struct bench *b, double local, int took_part, struct bench_stat *out) {
  (void)b;
  (void)took_part;
  out->avg = out->min = out->max = local;
}

double bench_max_all(struct bench *b, double local) {
  (void)b;
  return local;
}

long long bench_sum_errors(struct bench *b, long long local) {
  (void)b;
  return local;
}

int bench_local_rank(struct bench *b) { return b->rank; }

int bench_minimal_mpi(void) { return 1; }

#endif
