/* MPI_Comm_idup is nonblocking: a rank may start it, communicate, and only then wait; several
 * may be in flight at once, started in different orders on different ranks, and mixed with a
 * blocking MPI_Comm_dup. Attributes are copied as by MPI_Comm_dup. */
#include <stddef.h>

#include "mtest.h"

static MPI_Status
    statuses_[8]; /* MPI_STATUSES_IGNORE as an array argument upsets gcc -Wstringop-overflow */

static int copies;

static int count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval, (void)extra;
  copies++;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* Every rank sends its rank to the next on `comm` and checks what the previous one sent. */
static void ring(MPI_Comm comm, int tag) {
  int r, n, got = -1;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  MPI_Request reqs[2];
  MPI_Irecv(&got, 1, MPI_INT, (r + n - 1) % n, tag, comm, &reqs[0]);
  MPI_Isend(&r, 1, MPI_INT, (r + 1) % n, tag, comm, &reqs[1]);
  MPI_Waitall(2, reqs, statuses_);
  MTEST_CHECK(got == (r + n - 1) % n, "ring (tag %d): got %d, want %d", tag, got, (r + n - 1) % n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int keyval, value = 17, *got, flag = 0;
  MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);

  /* idup, then point-to-point on the parent before waiting. */
  MPI_Comm dup;
  MPI_Request req;
  MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
  ring(MPI_COMM_WORLD, 1);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MTEST_CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
  MTEST_CHECK(copies == 1, "copy callback ran %d times", copies);
  MPI_Comm_get_attr(dup, keyval, &got, &flag);
  MTEST_CHECK(flag && got == &value, "attribute not copied to the idup'ed communicator");
  ring(dup, 2);

  /* Two in flight, started in opposite orders on rank 0 and the others. */
  MPI_Comm a, b, na = MPI_COMM_NULL, nb = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  MPI_Request two[2];
  if (rank == 0) {
    MPI_Comm_idup(a, &na, &two[0]);
    MPI_Comm_idup(b, &nb, &two[1]);
  } else {
    MPI_Comm_idup(b, &nb, &two[1]);
    MPI_Comm_idup(a, &na, &two[0]);
  }
  ring(dup, 3);
  MPI_Waitall(2, two, statuses_);
  ring(na, 4);
  ring(nb, 5);
  int cmp;
  MPI_Comm_compare(na, nb, &cmp);
  MTEST_CHECK(cmp == MPI_CONGRUENT, "two idups: compare %d", cmp);

  /* A pending idup on `a` and a blocking dup on `b`, in opposite orders. */
  MPI_Comm ia, db;
  if (rank == 0) {
    MPI_Comm_idup(a, &ia, &req);
    MPI_Comm_dup(b, &db);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Comm_dup(b, &db);
    MPI_Comm_idup(a, &ia, &req);
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (!flag) MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  ring(ia, 6);
  ring(db, 7);

  /* idup of MPI_COMM_SELF: one process, completes without anybody else. */
  MPI_Comm self;
  MPI_Comm_idup(MPI_COMM_SELF, &self, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int ssize;
  MPI_Comm_size(self, &ssize);
  MTEST_CHECK(ssize == 1, "idup of MPI_COMM_SELF: size %d", ssize);

  MPI_Comm *all[] = {&dup, &a, &b, &na, &nb, &ia, &db, &self};
  for (unsigned i = 0; i < sizeof all / sizeof all[0]; ++i) MPI_Comm_free(all[i]);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  MPI_Comm_free_keyval(&keyval);
  return mtest_finalize();
}
