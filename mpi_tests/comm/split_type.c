/* MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups the ranks of a host (here: all of them),
 * HW_GUIDED knows "mpi_shared_memory", HW_UNGUIDED cannot split one host further, and
 * MPI_UNDEFINED gives MPI_COMM_NULL. MPI_Get_hw_resource_info names the resource types that
 * HW_GUIDED takes, each with this process's resource (for shared memory: the host). */
#include <string.h>

#include "mtest.h"

static MPI_Status
    statuses_[8]; /* MPI_STATUSES_IGNORE as an array argument upsets gcc -Wstringop-overflow */

static void hw_resources(void) {
  MPI_Info hw;
  int nkeys = 0, len = 0, flag = 0;
  MPI_Get_hw_resource_info(&hw);
  MPI_Info_get_nkeys(hw, &nkeys);
  MTEST_CHECK(nkeys >= 1, "MPI_Get_hw_resource_info gave %d keys", nkeys);
  for (int k = 0; k < nkeys; k++) {
    char key[MPI_MAX_INFO_KEY + 1];
    MPI_Info_get_nthkey(hw, k, key);
    MPI_Info ask;
    MPI_Info_create(&ask);
    MPI_Info_set(ask, "mpi_hw_resource_type", key);
    MPI_Comm part;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, ask, &part);
    MTEST_CHECK(part != MPI_COMM_NULL, "HW_GUIDED with the resource type \"%s\" gave null", key);
    if (part != MPI_COMM_NULL) MPI_Comm_free(&part);
    MPI_Info_free(&ask);
  }
  char host[MPI_MAX_PROCESSOR_NAME], value[MPI_MAX_INFO_VAL + 1];
  MPI_Get_processor_name(host, &len);
  len = MPI_MAX_INFO_VAL;
  MPI_Info_get_string(hw, "mpi_shared_memory", &len, value, &flag);
  MTEST_CHECK(flag && strcmp(value, host) == 0, "mpi_shared_memory: \"%s\" (%d), host \"%s\"",
              flag ? value : "", flag, host);
  MPI_Info_free(&hw);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  /* Keys reverse the order. */
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &node);
  int nrank = -1, nsize = -1;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  MTEST_CHECK(nsize == size, "shared: size %d, want %d (one host)", nsize, size);
  MTEST_CHECK(nrank == size - 1 - rank, "shared: rank %d, want %d", nrank, size - 1 - rank);
  int token = rank, got = -1;
  MPI_Request reqs[2];
  MPI_Irecv(&got, 1, MPI_INT, (nrank + nsize - 1) % nsize, 0, node, &reqs[0]);
  MPI_Isend(&token, 1, MPI_INT, (nrank + 1) % nsize, 0, node, &reqs[1]);
  MPI_Waitall(2, reqs, statuses_);
  int want = size - 1 - ((nrank + nsize - 1) % nsize);
  MTEST_CHECK(got == want, "ring on the node communicator: got %d, want %d", got, want);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
  MPI_Comm guided, unguided, none, other;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &guided);
  MTEST_CHECK(guided != MPI_COMM_NULL, "HW_GUIDED with mpi_shared_memory gave MPI_COMM_NULL");
  if (guided != MPI_COMM_NULL) {
    int gsize;
    MPI_Comm_size(guided, &gsize);
    MTEST_CHECK(gsize == size, "HW_GUIDED: size %d, want %d", gsize, size);
    MPI_Comm_free(&guided);
  }
  MPI_Info_set(info, "mpi_hw_resource_type", "no_such_resource");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &other);
  MTEST_CHECK(other == MPI_COMM_NULL, "HW_GUIDED with an unknown resource type is not null");
  MPI_Info_free(&info);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &unguided);
  MTEST_CHECK(unguided == MPI_COMM_NULL, "HW_UNGUIDED on one host is not null");
  /* Half the ranks ask for nothing: they get MPI_COMM_NULL, the others their node. */
  int type = rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
  MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, MPI_INFO_NULL, &none);
  if (rank % 2) {
    MTEST_CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
  } else {
    int esize;
    MPI_Comm_size(none, &esize);
    MTEST_CHECK(esize == (size + 1) / 2, "even ranks: size %d, want %d", esize, (size + 1) / 2);
    MPI_Comm_free(&none);
  }
  MPI_Comm_free(&node);
  hw_resources();
  return mtest_finalize();
}
