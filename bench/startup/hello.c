/* The startup bar's program: MPI_Init and MPI_Finalize, nothing else. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
