/* The MPI-IO benchmarks (io_write_all, io_read_all, io_write, io_read; no OSU counterpart):
 * every rank owns blocks of the message size that take turns in one file (block i of rank r at
 * (i * ranks + r) * size, a cyclic distribution through a file view), 1 MiB of blocks per rank
 * (one block when the size is larger), and the time is that of one MPI_File_write_at_all or
 * MPI_File_read_at_all (collective) or MPI_File_write_at or MPI_File_read_at (independent, every
 * rank at once) of a rank's whole share, averaged over the ranks. With -c the data read back
 * (after the writes, or by the reads) is checked. The file is TMPDIR's (or /tmp's)
 * "bench-io-<pid of rank 0>", removed at the end. */
#ifndef BENCH_IO_IO_CYCLIC_H
#define BENCH_IO_IO_CYCLIC_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

#define IO_SHARE (1 << 20) /* bytes of one rank's blocks at sizes up to 1 MiB */

static MPI_File io_open(struct bench *b) {
  char path[512];
  if (b->rank == 0) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/bench-io-%ld", dir && *dir ? dir : "/tmp", (long)getpid());
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, b->comm);
  MPI_File fh;
  if (MPI_File_open(b->comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                    MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    bench_fail(b, "cannot open %s", path);
  return fh;
}

/* This rank's blocks of `size` bytes in turn with the other ranks'. */
static void io_set_view(struct bench *b, MPI_File fh, size_t size) {
  MPI_Datatype block, tile;
  MPI_Type_contiguous((int)size, MPI_BYTE, &block);
  MPI_Type_create_resized(block, 0, (MPI_Aint)size * b->size, &tile);
  MPI_Type_commit(&tile);
  MPI_File_set_view(fh, (MPI_Offset)size * b->rank, MPI_BYTE, tile, "native", MPI_INFO_NULL);
  MPI_Type_free(&block);
  MPI_Type_free(&tile);
}

static int io_collective; /* the *_all calls, else the independent ones */

static void io_move(struct bench *b, MPI_File fh, struct bench_buf *buf, int write) {
  int n = (int)buf->bytes, rc;
  if (io_collective) {
    rc = write ? MPI_File_write_at_all(fh, 0, buf->ptr, n, MPI_BYTE, MPI_STATUS_IGNORE)
               : MPI_File_read_at_all(fh, 0, buf->ptr, n, MPI_BYTE, MPI_STATUS_IGNORE);
  } else {
    rc = write ? MPI_File_write_at(fh, 0, buf->ptr, n, MPI_BYTE, MPI_STATUS_IGNORE)
               : MPI_File_read_at(fh, 0, buf->ptr, n, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  if (rc != MPI_SUCCESS)
    bench_fail(b, "MPI_File_%s_at%s failed", write ? "write" : "read", io_collective ? "_all" : "");
}

/* The time of one call (us) at `size`; *errors counts wrong bytes read back (-c). */
static double io_measure(struct bench *b, MPI_File fh, size_t size, int write, long long *errors) {
  size_t share = size < IO_SHARE ? IO_SHARE / size * size : size;
  struct bench_buf buf;
  bench_buf_alloc(b, &buf, share, BENCH_MEM_HOST);
  bench_buf_fill(&buf, 0, share, (unsigned)b->rank + 1);
  io_set_view(b, fh, size);
  if (!write) io_move(b, fh, &buf, 1);
  MPI_File_sync(fh); /* the reads find every rank's blocks */
  MPI_Barrier(b->comm);
  MPI_File_sync(fh);
  int iters = bench_iters(b, size), warmup = bench_warmup(b, size);
  for (int i = 0; i < warmup; i++) io_move(b, fh, &buf, write);
  MPI_Barrier(b->comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) io_move(b, fh, &buf, write);
  double us = (MPI_Wtime() - t0) * 1e6 / iters;
  *errors = -1;
  if (b->opt.validate) {
    if (write) {
      MPI_File_sync(fh);
      MPI_Barrier(b->comm);
      MPI_File_sync(fh);
      bench_buf_poison(&buf, share);
      io_move(b, fh, &buf, 0);
    }
    *errors = bench_buf_check(b, &buf, 0, share, (unsigned)b->rank + 1);
  }
  bench_buf_free(&buf);
  return us;
}

static int io_cyclic_main(const struct bench_spec *spec, int write, int collective, int argc,
                          char **argv) {
  struct bench b;
  io_collective = collective;
  struct bench_stat st;
  int status = bench_start(&b, spec, &argc, &argv);
  if (status >= 0) return status;
  bench_add_column(&b, "Avg Latency(us)", "latency_us", 0, 2);
  if (b.opt.full) bench_add_full_columns(&b, "Latency(us)");
  bench_print_header(&b);
  MPI_File fh = io_open(&b);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t size = bench_size_bytes(s);
    if (size == 0) continue;
    long long errors = -1;
    double us = io_measure(&b, fh, size, write, &errors);
    bench_stats(&b, us, 1, &st);
    double v[4] = {st.avg, st.min, st.max, bench_iters(&b, size)};
    bench_row(&b, (long long)size, v, errors);
  }
  MPI_File_close(&fh);
  return bench_finish(&b);
}

#define IO_SPEC(prog, what)                                                                 \
  {                                                                                         \
    .name = prog, .title = "gpurun MPI-IO " what " Test (cyclic blocks)",                   \
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_FULL, .ranks = BENCH_RANKS_ANY, .min_size = 8, \
    .max_size = 1 << 20, .iters_small = 5, .iters_large = 5, .warmup_small = 1,             \
    .warmup_large = 1, .large_size = 1 << 20,                                               \
  }

#endif /* BENCH_IO_IO_CYCLIC_H */
