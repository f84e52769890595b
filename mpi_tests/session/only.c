/* Sessions without MPI_Init: MPI_Session_init starts MPI, the process sets "mpi://WORLD" and
 * "mpi://SELF" are listed, described (mpi_size) and turned into groups, a communicator made
 * from the world group with MPI_Comm_create_from_group carries collectives and point-to-point,
 * and MPI_Session_finalize ends MPI: the process then exits normally. Meanwhile MPI_Initialized
 * says false. Errors go to the session's handler: MPI_ERRORS_RETURN, then a function of
 * MPI_Session_create_errhandler. A second session lives beside the first. A negative
 * pset_len is an error that writes nothing. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int handler_calls, handler_code;

static void on_error(MPI_Session *session, int *code, ...) {
  (void)session;
  handler_calls++;
  handler_code = *code;
}

static void psets(MPI_Session s, int size) {
  int n = -1;
  MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
  MTEST_CHECK(n == 2, "%d process sets", n);
  int len = 0;
  MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL);
  MTEST_CHECK(len == (int)strlen("mpi://WORLD") + 1, "length of pset 0: %d", len);
  char name[32];
  MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name);
  MTEST_CHECK(strcmp(name, "mpi://WORLD") == 0, "pset 0 \"%s\"", name);
  len = sizeof name;
  MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name);
  MTEST_CHECK(strcmp(name, "mpi://SELF") == 0, "pset 1 \"%s\"", name);
  MPI_Info info;
  char value[16];
  int flag = 0;
  MPI_Session_get_pset_info(s, "mpi://WORLD", &info);
  MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag);
  int got = -1;
  if (flag) sscanf(value, "%d", &got);
  MTEST_CHECK(flag && got == size, "mpi_size of mpi://WORLD: %s", flag ? value : "(unset)");
  MPI_Info_free(&info);
}

static void errors(MPI_Session s) {
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
  int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == MPI_ERR_ARG && g == MPI_GROUP_NULL, "unknown pset: class %d", cls);
  MPI_Errhandler eh;
  MPI_Session_create_errhandler(on_error, &eh);
  MPI_Session_set_errhandler(s, eh);
  MPI_Errhandler_free(&eh);
  MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
  MTEST_CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "handler: %d calls, code %d",
              handler_calls, handler_code);
  int n = 0;
  rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 5, &n, NULL);
  MTEST_CHECK(handler_calls == 2 && rc != MPI_SUCCESS, "pset 5: %d handler calls", handler_calls);
  MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
  char name[8] = "unset";
  n = -1;
  rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &n, name);
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == MPI_ERR_ARG && strcmp(name, "unset") == 0,
              "a negative pset_len: class %d, name '%s'", cls, name);
}

int main(void) {
  MPI_Session s, second;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
  MPI_Session_init(info, MPI_ERRORS_ARE_FATAL, &s);
  MPI_Info_free(&info);
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second);
  int flag = -1;
  MPI_Initialized(&flag);
  MTEST_CHECK(flag == 0, "MPI_Initialized says %d without MPI_Init", flag);
  MPI_Session_get_info(s, &info);
  char level[32] = "";
  MPI_Info_get(info, "thread_level", sizeof level - 1, level, &flag);
  MTEST_CHECK(flag && strcmp(level, "MPI_THREAD_MULTIPLE") == 0, "thread_level \"%s\"", level);
  MPI_Info_free(&info);

  MPI_Group world;
  MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
  MPI_Comm comm;
  MPI_Comm_create_from_group(world, "org.gpurun.test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
  MPI_Group_free(&world);
  int rank = -1, size = -1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  psets(s, size);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
  MTEST_CHECK(sum == size * (size - 1) / 2, "sum of ranks %d over %d ranks", sum, size);
  int token = rank;
  MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                       comm, MPI_STATUS_IGNORE);
  MTEST_CHECK(token == (rank + size - 1) % size, "ring token %d", token);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(comm, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_RETURN, "the communicator's handler %#x", eh);

  MPI_Group self;
  MPI_Comm self_comm;
  MPI_Group_from_session_pset(second, "mpi://SELF", &self);
  MPI_Comm_create_from_group(self, "org.gpurun.self", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                             &self_comm);
  MPI_Comm_size(self_comm, &size);
  MTEST_CHECK(size == 1, "a communicator of mpi://SELF has %d ranks", size);
  MPI_Comm_free(&self_comm);
  MPI_Group_free(&self);
  MPI_Session_finalize(&second);
  MTEST_CHECK(second == MPI_SESSION_NULL, "the handle stays %#x", second);

  errors(s);
  int errs = mtest_errors(), all = 0;
  MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, comm);
  MPI_Comm_free(&comm);
  MPI_Session_finalize(&s);
  MPI_Finalized(&flag);
  MTEST_CHECK(flag == 0, "MPI_Finalized says %d without MPI_Init", flag);
  if (all == 0 && rank == 0) printf(" No Errors\n");
  if (errs) fprintf(stderr, "Found %d errors\n", errs);
  return errs != 0;
}
