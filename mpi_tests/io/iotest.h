/* The prelude shared by the MPI-IO tests (static functions, so each program has its own copy):
 * - iotest_name_files(test): rank 0 of MPI_COMM_WORLD names the run's files
 *   "<TMPDIR or /tmp>/gpurun-io-<test>-<its pid>-<tag>" and broadcasts the prefix, so every rank
 *   names the same files (call it on every rank, once, after MPI_Init);
 * - iotest_path(tag, out): the path of a tag's file, into `out` of IOTEST_PATH_LEN chars;
 * - iotest_remove(tags, n): a barrier, then every rank unlinks each tag's file (a missing one is
 *   no matter), the cleanup that runs whatever the checks found;
 * - iotest_open(tag, amode, fh) on MPI_COMM_WORLD, iotest_open_on(comm, ...) on another
 *   communicator: MPI_File_open of a tag's file, a failure being a failed check;
 * - iotest_sync_all(fh) on MPI_COMM_WORLD, iotest_sync_on(fh, comm) returning the first failure:
 *   sync, barrier, sync, so every rank's writes are visible to every rank (non-atomic mode). */
#ifndef IOTEST_H
#define IOTEST_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"

#define IOTEST_PATH_LEN 320

static char iotest_prefix[256]; /* "<dir>/gpurun-io-<test>-<pid of rank 0>" */

static inline void iotest_name_files(const char *test) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const char *dir = getenv("TMPDIR");
    snprintf(iotest_prefix, sizeof iotest_prefix, "%s/gpurun-io-%s-%ld", dir && *dir ? dir : "/tmp",
             test, (long)getpid());
  }
  MPI_Bcast(iotest_prefix, sizeof iotest_prefix, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static inline void iotest_path(const char *tag, char *out) {
  snprintf(out, IOTEST_PATH_LEN, "%s-%s", iotest_prefix, tag);
}

/* Every rank removes the file of each of the n tags (a missing one is no matter). */
static inline void iotest_remove(const char *const *tags, size_t n) {
  char p[IOTEST_PATH_LEN];
  MPI_Barrier(MPI_COMM_WORLD);
  for (size_t i = 0; i < n; ++i) {
    iotest_path(tags[i], p);
    unlink(p);
  }
}

/* Opens the file of `tag` on `comm`; a failure is a failed check. Returns whether it opened. */
static inline int iotest_open_on(MPI_Comm comm, const char *tag, int amode, MPI_File *fh) {
  char p[IOTEST_PATH_LEN];
  iotest_path(tag, p);
  int rc = MPI_File_open(comm, p, amode, MPI_INFO_NULL, fh);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_File_open(%s, amode %#x) failed (%d)", p, amode, rc);
  return rc == MPI_SUCCESS;
}

static inline int iotest_open(const char *tag, int amode, MPI_File *fh) {
  return iotest_open_on(MPI_COMM_WORLD, tag, amode, fh);
}

/* Sync, barrier over `comm`, sync; returns MPI_SUCCESS or the code of the first failed sync. */
static inline int iotest_sync_on(MPI_File fh, MPI_Comm comm) {
  int rc = MPI_File_sync(fh);
  MPI_Barrier(comm);
  int rc2 = MPI_File_sync(fh);
  return rc != MPI_SUCCESS ? rc : rc2;
}

static inline void iotest_sync_all(MPI_File fh) { (void)iotest_sync_on(fh, MPI_COMM_WORLD); }

#endif /* IOTEST_H */
