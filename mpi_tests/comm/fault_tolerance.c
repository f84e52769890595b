/* MPICH's fault-tolerance calls where a failed process ends the job: MPIX_Comm_failure_ack
 * acknowledges none and MPIX_Comm_failure_get_acked gives an empty group; MPIX_Comm_agree gives
 * every member the AND of all flags, also across an intercommunicator's two groups;
 * MPIX_Comm_shrink makes a congruent communicator with the error handler and without the
 * attributes; MPIX_Comm_revoke is refused with MPI_ERR_UNSUPPORTED_OPERATION and leaves the
 * communicator working; bad arguments are errors naming the call, the argument and the rank. */
#include <stddef.h>

#include "mtest.h"

static int rank, size;

/* Rank r clears bit r (of 8, so that several ranks share one when there are more). */
static int flag_of(int r) { return ~(1 << (r % 8)); }

static int all_flags(int first, int count) {
  int all = ~0;
  for (int r = first; r < first + count; ++r) all &= flag_of(r);
  return all;
}

static void acknowledgement(void) {
  MPI_Group failed = MPI_GROUP_NULL;
  int n = -1;
  MTEST_CHECK(MPIX_Comm_failure_ack(MPI_COMM_WORLD) == MPI_SUCCESS, "failure_ack failed");
  MTEST_CHECK(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &failed) == MPI_SUCCESS,
              "failure_get_acked failed");
  MPI_Group_size(failed, &n);
  MTEST_CHECK(n == 0, "acknowledged failed group has %d members", n);
  MPI_Group_free(&failed);
}

static void agreement(void) {
  int flag = flag_of(rank);
  MTEST_CHECK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag) == MPI_SUCCESS, "agree failed");
  MTEST_CHECK(flag == all_flags(0, size), "agreed 0x%x, want 0x%x", (unsigned)flag,
              (unsigned)all_flags(0, size));
  if (size < 2) return;
  /* Even and odd ranks, each group's first rank as its leader. */
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 9, &inter);
  flag = flag_of(rank);
  MTEST_CHECK(MPIX_Comm_agree(inter, &flag) == MPI_SUCCESS, "agree on the intercommunicator");
  MTEST_CHECK(flag == all_flags(0, size), "intercommunicator agreed 0x%x, want 0x%x",
              (unsigned)flag, (unsigned)all_flags(0, size));
  MPI_Comm shrunk;
  int remote = -1, is_inter = 0;
  MPIX_Comm_shrink(inter, &shrunk);
  MPI_Comm_test_inter(shrunk, &is_inter);
  MPI_Comm_remote_size(shrunk, &remote);
  MTEST_CHECK(is_inter && remote == size / 2 + (rank % 2 == 0 ? 0 : size % 2),
              "shrunk intercommunicator: inter %d, remote size %d", is_inter, remote);
  MPI_Comm_free(&shrunk);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

static void shrinking(void) {
  int keyval, value = 42, *got = NULL, found = 1, result = -1, sum = 0, cmp = -1;
  MPI_Comm dup, shrunk;
  MPI_Errhandler handler;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(dup, keyval, &value);
  MTEST_CHECK(MPIX_Comm_shrink(dup, &shrunk) == MPI_SUCCESS, "shrink failed");
  MPI_Comm_compare(dup, shrunk, &cmp);
  MTEST_CHECK(cmp == MPI_CONGRUENT, "shrunk communicator compares %d, want congruent", cmp);
  MPI_Comm_get_attr(shrunk, keyval, &got, &found);
  MTEST_CHECK(!found, "the attribute came along to the shrunk communicator");
  MPI_Comm_get_errhandler(shrunk, &handler);
  MTEST_CHECK(handler == MPI_ERRORS_RETURN, "shrunk communicator's error handler 0x%x",
              (unsigned)handler);
  MPI_Errhandler_free(&handler);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk);
  MTEST_CHECK(sum == size * (size - 1) / 2, "allreduce on the shrunk communicator: %d", sum);
  MPI_Comm_rank(shrunk, &result);
  MTEST_CHECK(result == rank, "rank %d in the shrunk communicator", result);
  MPI_Comm_free(&shrunk);
  MPI_Comm_free(&dup);
  MPI_Comm_free_keyval(&keyval);
}

static void revoking_and_bad_arguments(void) {
  int flag = 1;
  MPI_Comm newcomm;
  MPI_Group group;
  int rc = MPIX_Comm_revoke(MPI_COMM_WORLD);
  mtest_expect_arg_error(rc, MPI_ERR_UNSUPPORTED_OPERATION, "MPIX_Comm_revoke", "revoking");
  MTEST_CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier after the refused revoke");
  mtest_expect_arg_error(MPIX_Comm_agree(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "MPIX_Comm_agree",
                         "comm");
  mtest_expect_arg_error(MPIX_Comm_agree(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPIX_Comm_agree",
                         "flag");
  mtest_expect_arg_error(MPIX_Comm_shrink(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPIX_Comm_shrink",
                         "newcomm");
  mtest_expect_arg_error(MPIX_Comm_failure_get_acked(MPI_COMM_NULL, &group), MPI_ERR_COMM,
                         "MPIX_Comm_failure_get_acked", "comm");
  mtest_expect_arg_error(MPIX_Comm_failure_ack(MPI_COMM_NULL), MPI_ERR_COMM,
                         "MPIX_Comm_failure_ack", "comm");
  mtest_expect_arg_error(MPIX_Comm_shrink(MPI_COMM_NULL, &newcomm), MPI_ERR_COMM,
                         "MPIX_Comm_shrink", "comm");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  acknowledgement();
  agreement();
  shrinking();
  revoking_and_bad_arguments();
  return mtest_finalize();
}
