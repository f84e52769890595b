/* hello: each rank says who and where it is, then all meet in a barrier. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  MPI_Get_library_version(library, &len);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d of %d on %s\n", rank, size, host);
  if (rank == 0) printf("library: %s\n", library);
  MPI_Finalize();
  return 0;
}
