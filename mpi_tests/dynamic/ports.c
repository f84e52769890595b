/* MPI_Open_port, MPI_Comm_accept, MPI_Comm_connect and MPI_Comm_disconnect.
 *
 * Without arguments (the testlist): MPI_COMM_WORLD splits into two halves, the even ranks
 * accept on a port whose name goes to the odd ranks by a message, the odd ranks connect.
 * With "accept FILE" / "connect FILE" (mpi_tests/dynamic/two_jobs.py): two jobs started apart
 * meet; the acceptor writes the port name into FILE, the connector reads it from there. With
 * "accept-name SERVICE" / "connect-name SERVICE" the port goes through MPI_Publish_name and
 * MPI_Lookup_name instead (the connector retries until the name is published).
 *
 * Over each intercommunicator: point-to-point both ways (8 bytes and 1 MiB, checked byte for
 * byte), an intercommunicator allreduce and bcast, MPI_Intercomm_merge and an allreduce over the
 * merged communicator, MPI_Comm_split_type(SHARED) of it (never across two jobs), a window over
 * it (MPI_Put between fences), a second
 * connection on the same port whose remote group is the same processes (MPI_IDENT), a duplicate
 * and a merge where both groups pass high = 0 (the accepting group first), errors
 * (MPI_ERR_PORT) for a port nobody listens on, a malformed name and closing an unknown port at
 * every member, and MPI_Comm_disconnect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

#define BIG (1 << 20)

static int world_rank;

/* Each member sends to the remote rank of its own number (modulo the remote size) and receives
 * from every remote rank that sends to it; contents depend on both ends. */
static void exchange(MPI_Comm inter, int accepting, int big) {
  int rank, size, remote;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &remote);
  int length = big ? BIG : 8;
  unsigned char *out = malloc(length), *in = malloc(length);
  for (int i = 0; i < length; ++i) out[i] = (unsigned char)(i * 7 + rank * 13 + accepting);
  MPI_Request req;
  MPI_Isend(out, length, MPI_BYTE, rank % remote, 5, inter, &req);
  for (int from = 0; from < remote; ++from) {
    if (from % size != rank) continue;
    MPI_Status st;
    MPI_Recv(in, length, MPI_BYTE, from, 5, inter, &st);
    int bad = 0;
    for (int i = 0; i < length; ++i)
      bad += in[i] != (unsigned char)(i * 7 + from * 13 + !accepting);
    MTEST_CHECK(bad == 0 && st.MPI_SOURCE == from, "%d bytes wrong from remote rank %d", bad,
                from);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  free(out);
  free(in);
}

static void collectives(MPI_Comm inter, int accepting) {
  int rank, size, remote, sum = -1, value;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &remote);
  value = rank + 1;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, inter); /* the remote group's values */
  MTEST_CHECK(sum == remote * (remote + 1) / 2, "allreduce gave %d", sum);
  value = 4242;
  if (accepting)
    MPI_Bcast(&value, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  else
    MPI_Bcast(&value, 1, MPI_INT, 0, inter);
  MTEST_CHECK(value == 4242, "bcast gave %d", value);

  MPI_Comm merged, shared;
  MPI_Intercomm_merge(inter, !accepting, &merged);
  int mrank, msize, total = 0, one = 1;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  MTEST_CHECK(msize == size + remote, "merged size %d", msize);
  MTEST_CHECK(mrank == rank + (accepting ? 0 : remote), "merged rank %d", mrank);
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
  MTEST_CHECK(total == msize, "merged allreduce gave %d", total);
  MPI_Comm_split_type(merged, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  int ssize;
  MPI_Comm_size(shared, &ssize);
  MTEST_CHECK(ssize <= msize, "shared size %d", ssize);
  MPI_Comm_free(&shared);
  /* One-sided communication over both groups: each member puts its rank into the next one's
   * window (between two jobs, the window is served as across hosts). */
  int cell = -1;
  MPI_Win win;
  MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, merged, &win);
  MPI_Win_fence(0, win);
  MPI_Put(&mrank, 1, MPI_INT, (mrank + 1) % msize, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  MTEST_CHECK(cell == (mrank + msize - 1) % msize, "the window holds %d", cell);
  MPI_Win_free(&win);
  MPI_Comm_free(&merged);
}

/* Name publishing at every member: a name nobody published, publishing twice, unpublishing with
 * another port, by another process or twice; one name stays published for MPI_Finalize. */
static void name_errors(void) {
  char service[64], left[64], port[MPI_MAX_PORT_NAME];
  snprintf(service, sizeof service, "gpurun-test-%d-%d", (int)getpid(), world_rank);
  snprintf(left, sizeof left, "gpurun-test-left-%d-%d", (int)getpid(), world_rank);
  int rc = MPI_Lookup_name(service, MPI_INFO_NULL, port);
  mtest_expect_error(rc, MPI_ERR_NAME, "MPI_Lookup_name of nothing", "no service");
  rc = MPI_Publish_name(service, MPI_INFO_NULL, "port-one");
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Publish_name failed (%d)", rc);
  rc = MPI_Publish_name(service, MPI_INFO_NULL, "port-two");
  mtest_expect_error(rc, MPI_ERR_SERVICE, "MPI_Publish_name twice", "already published");
  MPI_Lookup_name(service, MPI_INFO_NULL, port);
  MTEST_CHECK(strcmp(port, "port-one") == 0, "MPI_Lookup_name gave '%s'", port);
  rc = MPI_Unpublish_name(service, MPI_INFO_NULL, "port-two");
  mtest_expect_error(rc, MPI_ERR_SERVICE, "MPI_Unpublish_name, other port", "not the port");
  MPI_Unpublish_name(service, MPI_INFO_NULL, "port-one");
  rc = MPI_Unpublish_name(service, MPI_INFO_NULL, "port-one");
  mtest_expect_error(rc, MPI_ERR_SERVICE, "MPI_Unpublish_name twice", "not published");
  rc = MPI_Lookup_name(service, MPI_INFO_NULL, port);
  mtest_expect_error(rc, MPI_ERR_NAME, "MPI_Lookup_name after unpublishing", "no service");
  rc = MPI_Publish_name(left, MPI_INFO_NULL, "left-for-finalize");
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Publish_name of the name left failed (%d)", rc);
}

static void errors(MPI_Comm comm) {
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  char port[MPI_MAX_PORT_NAME];
  MPI_Comm none = MPI_COMM_NULL;
  MPI_Open_port(MPI_INFO_NULL, port); /* a name nobody listens on once closed */
  MPI_Close_port(port);
  int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, comm, &none);
  mtest_expect_error(rc, MPI_ERR_PORT, "MPI_Comm_connect to a closed port", "MPI_Comm_connect");
  mtest_expect_error(rc, MPI_ERR_PORT, "MPI_Comm_connect to a closed port", "nothing accepts");
  rc = MPI_Comm_connect("nonsense", MPI_INFO_NULL, 0, comm, &none);
  mtest_expect_error(rc, MPI_ERR_PORT, "MPI_Comm_connect to a malformed name", "no port name");
  MTEST_CHECK(none == MPI_COMM_NULL, "a failed connect set its output");
  rc = MPI_Close_port(port);
  mtest_expect_error(rc, MPI_ERR_PORT, "MPI_Close_port twice", "no port this process opened");
  rc = MPI_Comm_accept(port, MPI_INFO_NULL, 99, comm, &none);
  mtest_expect_error(rc, MPI_ERR_ROOT, "MPI_Comm_accept with root 99", "root 99");
  rc = MPI_Comm_disconnect(&comm);
  mtest_expect_error(rc, MPI_ERR_COMM, "MPI_Comm_disconnect of a predefined one", "cannot");
  name_errors();
}

/* Two connections over `comm` on one port; checks each and that both reach the same processes. */
static void run(MPI_Comm comm, int accepting, const char *port) {
  MPI_Comm first, second;
  if (accepting) {
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, comm, &first);
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, comm, &second);
  } else {
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, comm, &first);
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, comm, &second);
  }
  int inter = 0;
  MPI_Comm_test_inter(first, &inter);
  MTEST_CHECK(inter, "MPI_Comm_accept/connect gave an intracommunicator");
  exchange(first, accepting, 0);
  exchange(first, accepting, 1);
  collectives(first, accepting);
  exchange(second, accepting, 1);
  /* A duplicate works as the original; merged with high = 0 on both sides, the accepting group
   * comes first (in one job, that group holds MPI_COMM_WORLD's rank 0). */
  MPI_Comm dup, tie;
  MPI_Comm_dup(first, &dup);
  exchange(dup, accepting, 0);
  MPI_Intercomm_merge(dup, 0, &tie);
  int lrank, rsize, trank;
  MPI_Comm_rank(dup, &lrank);
  MPI_Comm_remote_size(dup, &rsize);
  MPI_Comm_rank(tie, &trank);
  MTEST_CHECK(trank == lrank + (accepting ? 0 : rsize), "tied merge gave rank %d", trank);
  MPI_Comm_free(&tie);
  MPI_Comm_free(&dup);
  MPI_Group a, b;
  int same = MPI_UNEQUAL;
  MPI_Comm_remote_group(first, &a);
  MPI_Comm_remote_group(second, &b);
  MPI_Group_compare(a, b, &same);
  MTEST_CHECK(same == MPI_IDENT, "the two connections reach different processes (%d)", same);
  MPI_Group_free(&a);
  MPI_Group_free(&b);
  MPI_Comm_disconnect(&second);
  MPI_Comm_disconnect(&first);
  MTEST_CHECK(first == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
}

static void by_name(int accepting, const char *service) {
  char port[MPI_MAX_PORT_NAME] = {0};
  if (accepting && world_rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Publish_name(service, MPI_INFO_NULL, port);
  } else if (world_rank == 0) {
    int rc = MPI_ERR_NAME;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* not published yet: retry */
    for (int i = 0; i < 6000 && rc != MPI_SUCCESS; ++i) {
      rc = MPI_Lookup_name(service, MPI_INFO_NULL, port);
      if (rc != MPI_SUCCESS) usleep(10000);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MTEST_CHECK(rc == MPI_SUCCESS, "%s was never published", service);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  run(MPI_COMM_WORLD, accepting, port);
  if (accepting && world_rank == 0) {
    MPI_Unpublish_name(service, MPI_INFO_NULL, port);
    MPI_Close_port(port);
  }
}

static void two_jobs(int accepting, const char *file) {
  char port[MPI_MAX_PORT_NAME] = {0};
  if (accepting && world_rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    fprintf(f, "%s\n", port);
    fclose(f);
    rename(tmp, file);
  } else if (world_rank == 0) {
    FILE *f = NULL;
    for (int i = 0; i < 6000 && (f = fopen(file, "r")) == NULL; ++i) usleep(10000);
    MTEST_CHECK(f != NULL, "no port name in %s", file);
    if (f == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    if (fgets(port, sizeof port, f) == NULL) port[0] = 0;
    port[strcspn(port, "\n")] = 0;
    fclose(f);
  }
  run(MPI_COMM_WORLD, accepting, port);
  if (accepting && world_rank == 0) MPI_Close_port(port);
}

static void one_job(void) {
  MPI_Comm half;
  int accepting = world_rank % 2 == 0;
  MPI_Comm_split(MPI_COMM_WORLD, accepting, world_rank, &half);
  char port[MPI_MAX_PORT_NAME] = {0};
  if (world_rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
  } else if (world_rank == 1) {
    MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  run(half, accepting, port);
  if (world_rank == 0) MPI_Close_port(port);
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (argc >= 3 && strstr(argv[1], "-name") != NULL)
    by_name(strcmp(argv[1], "accept-name") == 0, argv[2]);
  else if (argc >= 3)
    two_jobs(strcmp(argv[1], "accept") == 0, argv[2]);
  else
    one_job();
  errors(MPI_COMM_WORLD);
  return mtest_finalize();
}
