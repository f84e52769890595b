/* MPI_Comm_call_errhandler on a communicator with MPI_ERRORS_ABORT ends the job, for an added
 * error code too (exit code 1: its class is no predefined one), naming the code's string. */
#include "mtest.h"

int main(int argc, char **argv) {
  int rank, cls, code;
  MPI_Comm comm;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_name(comm, "the duplicate");
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_ABORT);
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_string(code, "the application gave up");
  if (rank == 1) MPI_Comm_call_errhandler(comm, code);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
