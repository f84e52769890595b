/* mpi_assert_memory_alloc_kinds on communicators, without a GPU:
 * - MPI_Comm_dup_with_info (then MPI_Comm_idup_with_info, then MPI_Comm_dup of the first)
 *   asserting "cuda:device" on every rank makes a device-only communicator: one-host collectives there run the algorithms that move device memory
 *   (reduce of 8 bytes at -np 2: binomial, not shm). This test passes host buffers, which
 *   breaks the assertion; gpurun still runs them correctly, which lets it check results and
 *   selection here. The testlist's expect= reads the selection from the coll debug log.
 * - MPI_Comm_set_info records the key but leaves its communicator as it was (shm); the
 *   communicators MPI_Comm_dup makes from it inherit the hints: with the key set on rank 0
 *   only the members do not agree (shm), with it set on every rank they do (binomial).
 * - MPI_Comm_get_info returns the key as this rank set it, and mpi_memory_alloc_kinds: the
 *   kinds gpurun supports ("mpi,system", and cuda:device, cuda:host and cuda:managed exactly
 *   where MPIX_Query_cuda_support() says CUDA is usable).
 * Rank 0 prints "memory kinds: N errors" on stderr, after the log lines it checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

static void reduce_on(MPI_Comm comm, const char *what) {
  int in[2] = {rank + 1, 2 * rank}, out[2] = {-1, -1};
  MTEST_CHECK(MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, 0, comm) == MPI_SUCCESS, "%s", what);
  int want0 = size * (size + 1) / 2, want1 = size * (size - 1);
  if (rank == 0)
    MTEST_CHECK(out[0] == want0 && out[1] == want1, "%s: %d %d, expected %d %d", what, out[0],
                out[1], want0, want1);
  int *all = calloc(2 * (size_t)size, sizeof(int));
  int mine[2] = {rank, rank};
  MTEST_CHECK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm) == MPI_SUCCESS, "%s", what);
  for (int q = 0; q < size; ++q)
    MTEST_CHECK(all[2 * q] == q && all[2 * q + 1] == q, "%s: allgather block %d", what, q);
  free(all);
}

static MPI_Info kinds(const char *value) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_memory_alloc_kinds", value);
  return info;
}

static void expect_key(MPI_Comm comm, const char *want) {
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Comm_get_info(comm, &used);
  MPI_Info_get(used, "mpi_assert_memory_alloc_kinds", MPI_MAX_INFO_VAL, value, &flag);
  MTEST_CHECK(flag && strcmp(value, want) == 0, "get_info: \"%s\" (flag %d), expected \"%s\"",
              value, flag, want);
  MPI_Info_free(&used);
}

static void expect_supported_kinds(MPI_Comm comm) {
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Comm_get_info(comm, &used);
  MPI_Info_get(used, "mpi_memory_alloc_kinds", MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&used);
  MTEST_CHECK(flag && strncmp(value, "mpi,system", 10) == 0,
              "mpi_memory_alloc_kinds \"%s\" (flag %d) does not start with mpi,system", value,
              flag);
  int cuda = strstr(value, "cuda:device") != NULL;
  MTEST_CHECK(cuda == MPIX_Query_cuda_support(), "mpi_memory_alloc_kinds \"%s\", cuda support %d",
              value, MPIX_Query_cuda_support());
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Info device = kinds("cuda:device"), host = kinds("system");
  MPI_Comm asserted, other;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, device, &asserted);
  expect_key(asserted, "cuda:device");
  expect_supported_kinds(MPI_COMM_WORLD);
  expect_supported_kinds(asserted);
  reduce_on(asserted, "device-only communicator");
  MPI_Comm idup, dup;  /* the agreement in MPI_Comm_idup_with_info; MPI_Comm_dup copies hints */
  MPI_Request req;
  MPI_Comm_idup_with_info(MPI_COMM_WORLD, device, &idup, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  reduce_on(idup, "device-only communicator from MPI_Comm_idup_with_info");
  MPI_Comm_dup(asserted, &dup);
  reduce_on(dup, "device-only communicator from MPI_Comm_dup");
  MPI_Comm_free(&idup);
  MPI_Comm_free(&dup);

  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  MPI_Comm_set_info(other, rank == 0 ? device : host);
  expect_key(other, rank == 0 ? "cuda:device" : "system");
  reduce_on(other, "set_info on rank 0 only");
  MPI_Comm_dup(other, &dup);
  reduce_on(dup, "duplicate of a communicator asserted on rank 0 only");
  MPI_Comm_free(&dup);
  MPI_Comm_set_info(other, device);
  MPI_Comm_dup(other, &dup);
  reduce_on(dup, "duplicate of a communicator asserted on every rank");
  MPI_Comm_free(&dup);

  MPI_Info_free(&device);
  MPI_Info_free(&host);
  MPI_Comm_free(&asserted);
  MPI_Comm_free(&other);
  int errors = mtest_errors(), total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) fprintf(stderr, "memory kinds: %d errors\n", total);
  return mtest_finalize();
}
