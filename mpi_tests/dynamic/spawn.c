/* MPI_Comm_spawn, MPI_Comm_spawn_multiple and MPI_Comm_get_parent: the job spawns 3 copies of
 * this program ("child"); parents and children exchange messages both ways (checked), run an
 * intercommunicator bcast and allreduce, merge (the parents first) and reduce over the merged
 * communicator, split and create intercommunicators of some members of both jobs, MPI_Comm_idup
 * the intercommunicator; the children
 * report their own error count to the parents' root. Then spawns that fail at every parent with
 * MPI_ERR_SPAWN: a program that does not exist (the children's job ends before it connects),
 * maxprocs 0, an argument holding both quote marks (which gpurun cannot be handed), and
 * MPI_Comm_spawn_multiple whose second command does not exist; and one that succeeds through
 * MPI_Comm_spawn_multiple with two commands (2 children in the working directory info "wdir" gives,
 * then 1 in the parents', with the arguments ':' and one with blanks and quotes), each child
 * checking its MPI_APPNUM. With SPAWN_HOST set, that last spawn comes first, its third child on
 * that host (info SPAWN_HOST_KEY: "host" or "add-host", or "hostfile" with the file SPAWN_HOSTFILE
 * names). Each ends with MPI_Comm_disconnect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

#define CHILDREN 3

/* The remote members of `inter` whose rank has parity `color`: how many, and their ranks' sum. */
static void parity(int remote, int color, int *count, int *sum) {
  *count = *sum = 0;
  for (int r = color; r < remote; r += 2) ++*count, *sum += r;
}

/* MPI_Comm_split of the intercommunicator by rank parity (keys reversed) and MPI_Comm_create of
 * it with each side's rank 0: intercommunicators of the matching members of both jobs, checked
 * by their sizes and an allreduce of the old ranks; MPI_COMM_NULL where the other side has no
 * such member. */
static void split_and_create(MPI_Comm inter) {
  int rank, remote, count, sum;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm part;
  MPI_Comm_split(inter, rank % 2, -rank, &part);
  parity(remote, rank % 2, &count, &sum);
  MTEST_CHECK((part == MPI_COMM_NULL) == (count == 0), "rank %d: split gave %s", rank,
              part == MPI_COMM_NULL ? "no communicator" : "a communicator");
  if (part != MPI_COMM_NULL) {
    int got = -1, size = 0, flag = 0;
    MPI_Comm_remote_size(part, &size);
    MPI_Comm_test_inter(part, &flag);
    MTEST_CHECK(flag && size == count, "split: remote size %d, not %d", size, count);
    MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, part);
    MTEST_CHECK(got == sum, "split: allreduce gave %d, not %d", got, sum);
    MPI_Comm_free(&part);
  }
  MPI_Group local, first;
  MPI_Comm_group(inter, &local);
  int zero = 0;
  MPI_Group_incl(local, 1, &zero, &first);
  MPI_Comm_create(inter, first, &part);
  MTEST_CHECK((part != MPI_COMM_NULL) == (rank == 0), "rank %d: create gave %s", rank,
              part == MPI_COMM_NULL ? "no communicator" : "a communicator");
  if (part != MPI_COMM_NULL) {
    int size = 0, got = -1, one = 1;
    MPI_Comm_remote_size(part, &size);
    MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, part);
    MTEST_CHECK(size == 1 && got == 1, "create: remote size %d, allreduce %d", size, got);
    MPI_Comm_free(&part);
  }
  MPI_Group_free(&first);
  MPI_Group_free(&local);
}

/* MPI_Comm_idup of the intercommunicator while a message crosses it: the duplicate has both
 * groups, its allreduce adds the remote ranks, and a split of it (which needs the span the
 * duplicate got) still pairs the members of both jobs. */
static void idup_inter(MPI_Comm inter) {
  int rank, local, remote, got = -1, sum = 0, flag = 0, size = 0;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &local);
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request req[2];
  MPI_Comm_idup(inter, &dup, &req[0]);
  MPI_Isend(&rank, 1, MPI_INT, rank % remote, 5, inter, &req[1]);
  for (int from = rank; from < remote; from += local) {
    MPI_Recv(&got, 1, MPI_INT, from, 5, inter, MPI_STATUS_IGNORE);
    MTEST_CHECK(got == from, "idup: got %d from %d", got, from);
  }
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MTEST_CHECK(dup != MPI_COMM_NULL && dup != inter, "idup made no new communicator");
  MPI_Comm_test_inter(dup, &flag);
  MPI_Comm_remote_size(dup, &size);
  MTEST_CHECK(flag && size == remote, "idup: inter %d, remote size %d, not %d", flag, size, remote);
  for (int r = 0; r < remote; ++r) sum += r;
  MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, dup);
  MTEST_CHECK(got == sum, "idup: allreduce gave %d, not %d", got, sum);
  MPI_Comm part;
  MPI_Comm_split(dup, 0, rank, &part);
  MPI_Comm_remote_size(part, &size);
  MTEST_CHECK(size == remote, "split of the idup: remote size %d, not %d", size, remote);
  MPI_Comm_free(&part);
  MPI_Comm_free(&dup);
}

/* The part both sides run over the intercommunicator; `parent` says which side this is. */
static void talk(MPI_Comm inter, int parent) {
  int rank, size, remote;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &remote);
  int out[2] = {rank, parent}, in[2];
  MPI_Request req;
  MPI_Isend(out, 2, MPI_INT, rank % remote, 3, inter, &req);
  for (int from = 0; from < remote; ++from) {
    if (from % size != rank) continue;
    MPI_Recv(in, 2, MPI_INT, from, 3, inter, MPI_STATUS_IGNORE);
    MTEST_CHECK(in[0] == from && in[1] == !parent, "got (%d, %d) from %d", in[0], in[1], from);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int value = 77, sum = 0, one = 1;
  if (parent)
    MPI_Bcast(&value, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  else
    MPI_Bcast(&value, 1, MPI_INT, 0, inter);
  MTEST_CHECK(value == 77, "bcast gave %d", value);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
  MTEST_CHECK(sum == remote, "allreduce gave %d, not %d", sum, remote);
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, !parent, &merged);
  int mrank, total = 0;
  MPI_Comm_rank(merged, &mrank);
  MTEST_CHECK(mrank == rank + (parent ? 0 : remote), "merged rank %d", mrank);
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
  MTEST_CHECK(total == size + remote, "merged allreduce gave %d", total);
  MPI_Comm_free(&merged);
  split_and_create(inter);
  idup_inter(inter);
}

/* argv: "child" [wdir or "-" [appnum [":" "a 'b'  c" ["host=H"]]]]. */
static int child(int argc, char **argv) {
  const char *wdir = argc > 2 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
  int want_app = argc > 3 ? atoi(argv[3]) : 0, *app = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
  MTEST_CHECK(flag && *app == want_app, "MPI_APPNUM %d (flag %d), not %d", flag ? *app : -1, flag,
              want_app);
  if (argc > 4) /* arguments that gpurun's command line would split or quote */
    MTEST_CHECK((argc == 6 || argc == 7) && strcmp(argv[4], ":") == 0 &&
                    strcmp(argv[5], "a 'b'  c") == 0,
                "%d arguments, the fifth '%s'", argc, argv[4]);
  if (argc > 6) { /* "host=H": started on host H (info "host") */
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    MTEST_CHECK(strcmp(name, argv[6] + 5) == 0, "started on %s, not %s", name, argv[6] + 5);
  }
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  MTEST_CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
  if (parent == MPI_COMM_NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  char name[MPI_MAX_OBJECT_NAME];
  int length = 0;
  MPI_Comm_get_name(parent, name, &length);
  MTEST_CHECK(strcmp(name, "MPI_COMM_PARENT") == 0, "the parent is named '%s'", name);
  talk(parent, 0);
  char cwd[4096];
  if (wdir != NULL)
    MTEST_CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, wdir) == 0, "started in %s, not %s", cwd,
                wdir);
  int errors = mtest_errors();
  MPI_Reduce(&errors, NULL, 1, MPI_INT, MPI_SUM, 0, parent);
  MPI_Comm_disconnect(&parent);
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) fprintf(stderr, "check failed: the parent outlived its disconnect\n");
  MPI_Finalize();
  return 0;
}

static void spawned(MPI_Comm inter, int expected) {
  int remote = 0, rank, child_errors = -1;
  MPI_Comm_remote_size(inter, &remote);
  MTEST_CHECK(remote == expected, "%d children, not %d", remote, expected);
  MPI_Comm_rank(inter, &rank);
  talk(inter, 1);
  MPI_Reduce(NULL, &child_errors, 1, MPI_INT, MPI_SUM, rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
             inter);
  if (rank == 0) MTEST_CHECK(child_errors == 0, "the children found %d errors", child_errors);
  MPI_Comm_disconnect(&inter);
}

static void failures(const char *self) {
  MPI_Comm none = MPI_COMM_NULL;
  int codes[2] = {-1, -1}, rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_spawn("/nonexistent/program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &none, codes);
  mtest_expect_error(rc, MPI_ERR_SPAWN, "spawning a missing program", "before its processes");
  MTEST_CHECK(none == MPI_COMM_NULL, "a failed spawn set its output");
  if (rank == 0) MTEST_CHECK(codes[0] == rc && codes[1] == rc, "errcodes %d %d", codes[0], codes[1]);
  rc = MPI_Comm_spawn(self, MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &none,
                      MPI_ERRCODES_IGNORE);
  mtest_expect_error(rc, MPI_ERR_SPAWN, "spawning 0 processes", "maxprocs 0");
  char *quotes[] = {"child", "both ' and \"", NULL};
  rc = MPI_Comm_spawn(self, quotes, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &none,
                      MPI_ERRCODES_IGNORE);
  mtest_expect_error(rc, MPI_ERR_SPAWN, "spawning with an argument of both quote marks",
                     "holds both quote marks");
  char *commands[2] = {(char *)self, "/nonexistent/program"};
  int counts[2] = {1, 1}, three[3] = {-1, -1, -1};
  rc = MPI_Comm_spawn_multiple(2, commands, NULL, counts, NULL, 0, MPI_COMM_WORLD, &none, three);
  mtest_expect_error(rc, MPI_ERR_SPAWN, "MPI_Comm_spawn_multiple with a missing program",
                     "before its processes");
  if (rank == 0)
    MTEST_CHECK(three[1] == rc && three[2] == -1, "errcodes %d %d", three[1], three[2]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Two commands at once: 2 children in "/" (info "wdir"), then 1 in the parents' directory with
 * the arguments ':' and one with blanks and quotes, on `host` (info "host") when it is set. */
static void spawn_two(char *self, const char *host) {
  MPI_Comm inter;
  char cwd[4096];
  char *commands[2] = {self, self}, *in_root[] = {"child", "/", "0", NULL};
  char host_arg[300];
  snprintf(host_arg, sizeof host_arg, "host=%s", host ? host : "");
  char *in_cwd[] = {"child", getcwd(cwd, sizeof cwd) ? cwd : "-", "1", ":", "a 'b'  c",
                    host ? host_arg : NULL, NULL};
  char **args[2] = {in_root, in_cwd};
  int counts[2] = {2, 1}, errcodes[3] = {-1, -1, -1};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  MPI_Info_create(&infos[0]);
  MPI_Info_set(infos[0], "wdir", "/");
  if (host) { /* info "hostfile" when SPAWN_HOSTFILE names one (listing that host), else the
               * key SPAWN_HOST_KEY names ("host" or "add-host") */
    const char *file = getenv("SPAWN_HOSTFILE"), *key = getenv("SPAWN_HOST_KEY");
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], file ? "hostfile" : key ? key : "host", file ? file : host);
  }
  MPI_Comm_spawn_multiple(2, commands, args, counts, infos, 0, MPI_COMM_WORLD, &inter, errcodes);
  for (int i = 0; i < 2; ++i)
    if (infos[i] != MPI_INFO_NULL) MPI_Info_free(&infos[i]);
  for (int i = 0; i < 3; ++i) MTEST_CHECK(errcodes[i] == MPI_SUCCESS, "errcode %d", errcodes[i]);
  spawned(inter, 3);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && strcmp(argv[1], "child") == 0) return child(argc, argv);
  MPI_Comm parent, inter;
  MPI_Comm_get_parent(&parent);
  MTEST_CHECK(parent == MPI_COMM_NULL, "a process started by gpurun has a parent");
  char self[8192];
  if (argv[0][0] == '/') {
    snprintf(self, sizeof self, "%s", argv[0]);
  } else { /* the children of the last spawn start in "/" */
    char cwd[4096];
    snprintf(self, sizeof self, "%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", argv[0]);
  }
  /* SPAWN_HOST (the tests across hosts): children on that host first, before any other job
   * (a job on one host then reaches other hosts from its first network transport on). */
  const char *host = getenv("SPAWN_HOST");
  if (host) spawn_two(self, host);
  char *child_args[] = {"child", NULL};
  int codes[CHILDREN];
  MPI_Comm_spawn(self, child_args, CHILDREN, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
  for (int i = 0; i < CHILDREN; ++i) MTEST_CHECK(codes[i] == MPI_SUCCESS, "errcode %d", codes[i]);
  spawned(inter, CHILDREN);

  failures(self);

  spawn_two(self, NULL);
  return mtest_finalize();
}
