/* Sessions beside the world model: a session made after MPI_Init gives a communicator of its
 * own (isolated from MPI_COMM_WORLD's traffic of the same tag), which keeps working after
 * MPI_Finalize until MPI_Session_finalize ends MPI; MPI_Finalized then says true. A call given
 * no session (null or finalized) raises MPI_ERR_SESSION through MPI_COMM_WORLD's handler. */
#include <stdio.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Info info = MPI_INFO_NULL;
  mtest_expect_error(MPI_Session_get_info(MPI_SESSION_NULL, &info), MPI_ERR_SESSION,
                     "Session_get_info(MPI_SESSION_NULL)", "argument session");
  MPI_Session gone;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &gone);
  MPI_Session stale = gone;
  MPI_Session_finalize(&gone);
  int n = -1;
  mtest_expect_error(MPI_Session_get_num_psets(stale, MPI_INFO_NULL, &n), MPI_ERR_SESSION,
                     "Session_get_num_psets(finalized)", "not a session");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Session s;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
  MPI_Group g;
  MPI_Comm comm;
  MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
  MPI_Comm_create_from_group(g, "with_init", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
  MPI_Group_free(&g);
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(comm, MPI_COMM_WORLD, &result);
  MTEST_CHECK(result == MPI_CONGRUENT, "compare with MPI_COMM_WORLD: %d", result);
  /* One message on each communicator with one tag: each goes to its own receive. */
  int a = -1, b = -1, peer = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Request reqs[2];
  MPI_Irecv(&a, 1, MPI_INT, from, 5, comm, &reqs[0]);
  MPI_Irecv(&b, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &reqs[1]);
  int x = 100 + rank, y = 200 + rank;
  MPI_Send(&y, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
  MPI_Send(&x, 1, MPI_INT, peer, 5, comm);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MTEST_CHECK(a == 100 + from && b == 200 + from, "session comm got %d, world got %d", a, b);
  int errs = mtest_errors();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  int flag = 0;
  MPI_Finalized(&flag);
  if (!flag) fprintf(stderr, "MPI_Finalized says 0 after MPI_Finalize\n"), errs++;
  /* The session's communicator still works after MPI_Finalize. */
  int all = 0;
  int rc = MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, comm);
  if (rc != MPI_SUCCESS) fprintf(stderr, "Allreduce after MPI_Finalize: %d\n", rc), errs++;
  MPI_Comm_free(&comm);
  MPI_Session_finalize(&s);
  if (errs == 0 && all == 0 && rank == 0) printf(" No Errors\n");
  if (errs) fprintf(stderr, "Found %d errors\n", errs);
  return errs != 0;
}
