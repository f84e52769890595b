/* MPI_Comm_join between two singletons (run without gpurun): the program makes a socket pair and
 * forks before MPI_Init; each process joins over its end. Over the intercommunicator: a message
 * each way (1 MiB, checked), a barrier, MPI_Intercomm_merge and an allreduce over it, then
 * MPI_Comm_disconnect. A join over a descriptor that is no socket fails with MPI_ERR_ARG. The
 * parent prints "No Errors" when both processes found none. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mtest.h"

#define N (1 << 20)

static void joined(int fd, int side) {
  MPI_Comm inter, merged;
  MPI_Comm_join(fd, &inter);
  int inter_flag = 0, remote = 0;
  MPI_Comm_test_inter(inter, &inter_flag);
  MPI_Comm_remote_size(inter, &remote);
  MTEST_CHECK(inter_flag && remote == 1, "join gave inter %d, remote size %d", inter_flag, remote);
  unsigned char *out = malloc(N), *in = malloc(N);
  for (int i = 0; i < N; ++i) out[i] = (unsigned char)(i * 3 + side);
  MPI_Sendrecv(out, N, MPI_BYTE, 0, 1, in, N, MPI_BYTE, 0, 1, inter, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += in[i] != (unsigned char)(i * 3 + !side);
  MTEST_CHECK(bad == 0, "%d bytes wrong", bad);
  MPI_Barrier(inter);
  MPI_Intercomm_merge(inter, side, &merged);
  int one = 1, sum = 0, rank = -1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
  MPI_Comm_rank(merged, &rank);
  MTEST_CHECK(sum == 2 && rank == side, "merged: sum %d, rank %d", sum, rank);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&inter);
  free(out);
  free(in);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm none = MPI_COMM_NULL;
  int rc = MPI_Comm_join(-1, &none);
  mtest_expect_error(rc, MPI_ERR_ARG, "MPI_Comm_join(-1)", "argument fd -1");
}

int main(int argc, char **argv) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 1;
  pid_t child = fork();
  int side = child == 0;
  close(fds[side]);
  MPI_Init(&argc, &argv);
  joined(fds[!side], side);
  int errors = mtest_errors();
  MPI_Finalize();
  if (child == 0) return errors == 0 ? 0 : 1;
  int status = 0;
  waitpid(child, &status, 0);
  if (errors == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) printf(" No Errors\n");
  else printf(" Found %d errors (the other process: status %d)\n", errors, status);
  return 0;
}
