/* Intercommunicators: the even and the odd ranks of MPI_COMM_WORLD joined by
 * MPI_Intercomm_create (sizes, ranks, the remote group), point-to-point across (every rank
 * sends to every remote rank, receives from MPI_ANY_SOURCE: the status names remote ranks),
 * MPI_Intercomm_merge with the evens low and with equal `high`, MPI_Comm_dup (a duplicate is
 * isolated from its original), MPI_Comm_idup (two at once, traffic meanwhile, attributes
 * copied), MPI_Comm_compare, MPI_Intercomm_create_from_groups. MPI_Scan, which the standard
 * does not define on one, fails with MPI_ERR_COMM, and MPI_Comm_split_type of one with
 * MPI_ERR_UNSUPPORTED_OPERATION; it takes no topology (MPI_ERR_COMM to make one, MPI_UNDEFINED
 * from MPI_Topo_test, MPI_ERR_TOPOLOGY from a query); merging an intracommunicator and
 * overlapping groups are errors. The collectives: mpi_tests/comm/intercomm_coll.c, _collv.c and
 * _icoll.c (nonblocking and persistent); split and create: intercomm_split.c. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size, color;

static int class_of(int rc) {
  int c = -1;
  MPI_Error_class(rc, &c);
  return c;
}

/* World rank of rank r of the evens (color 0) or odds. */
static int world_of(int c, int r) { return 2 * r + c; }
static int count_of(int c) { return (size + 1 - c) / 2; }

static void exchange(MPI_Comm inter, int tag, int salt) {
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  int *in = malloc(sizeof(int) * remote), out = rank + salt;
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * remote);
  MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * remote);
  for (int r = 0; r < remote; ++r)
    MPI_Irecv(&in[r], 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &reqs[r]);
  for (int r = 0; r < remote; ++r) MPI_Isend(&out, 1, MPI_INT, r, tag, inter, &reqs[remote + r]);
  MPI_Waitall(2 * remote, reqs, st);
  for (int r = 0; r < remote; ++r)
    MTEST_CHECK(in[r] == world_of(1 - color, st[r].MPI_SOURCE) + salt,
                "tag %d: from remote rank %d got %d", tag, st[r].MPI_SOURCE, in[r]);
  free(in);
  free(reqs);
  free(st);
}

static void check_shape(MPI_Comm inter) {
  int flag = 0, lsize = -1, rsize = -1, lrank = -1;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_rank(inter, &lrank);
  MTEST_CHECK(
      flag == 1 && lsize == count_of(color) && rsize == count_of(1 - color) && lrank == rank / 2,
      "inter %d, size %d, remote size %d, rank %d", flag, lsize, rsize, lrank);
  MPI_Group remote, world;
  MPI_Comm_remote_group(inter, &remote);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int r = 0; r < rsize; ++r) {
    int w = -1;
    MPI_Group_translate_ranks(remote, 1, &r, world, &w);
    MTEST_CHECK(w == world_of(1 - color, r), "remote rank %d is world rank %d", r, w);
  }
  MPI_Group_free(&remote);
  MPI_Group_free(&world);
}

/* Two MPI_Comm_idup at once, with point-to-point traffic on the original meanwhile: each copy
 * has the shape, its own messages and the attribute that MPI_COMM_DUP_FN copies. */
static void idups(MPI_Comm inter) {
  int key = MPI_KEYVAL_INVALID, value = 42, *got = NULL, flag = 0;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
  MPI_Comm_set_attr(inter, key, &value);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
  MPI_Request reqs[2];
  MPI_Comm_idup(inter, &a, &reqs[0]);
  MPI_Comm_idup_with_info(inter, info, &b, &reqs[1]);
  exchange(inter, 6, 2000);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MPI_Info_free(&info);
  MPI_Comm copies[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    MTEST_CHECK(copies[i] != MPI_COMM_NULL, "MPI_Comm_idup %d gave MPI_COMM_NULL", i);
    if (copies[i] == MPI_COMM_NULL) continue;
    check_shape(copies[i]);
    MPI_Comm_get_attr(copies[i], key, &got, &flag);
    MTEST_CHECK(flag && got == &value, "MPI_Comm_idup %d: the attribute (flag %d)", i, flag);
  }
  if (a != MPI_COMM_NULL && b != MPI_COMM_NULL) {
    exchange(b, 6, 4000); /* one tag on three communicators: each keeps its own */
    exchange(a, 6, 3000);
    int sum = -1, want = 0;
    for (int r = 0; r < count_of(1 - color); ++r) want += world_of(1 - color, r);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, b);
    MTEST_CHECK(sum == want, "allreduce on an idup: %d, want %d", sum, want);
  }
  if (a != MPI_COMM_NULL) MPI_Comm_free(&a);
  if (b != MPI_COMM_NULL) MPI_Comm_free(&b);
  MPI_Comm_delete_attr(inter, key);
  MPI_Comm_free_keyval(&key);
}

static void merged(MPI_Comm inter, int high, int evens_first) {
  MPI_Comm m;
  MPI_Intercomm_merge(inter, high, &m);
  int mrank = -1, msize = -1, sum = 0;
  MPI_Comm_rank(m, &mrank);
  MPI_Comm_size(m, &msize);
  int first = evens_first ? 0 : 1;
  int want = color == first ? rank / 2 : count_of(first) + rank / 2;
  MTEST_CHECK(msize == size && mrank == want, "merged (high %d): rank %d of %d, want %d", high,
              mrank, msize, want);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m);
  MTEST_CHECK(sum == size * (size - 1) / 2, "allreduce on the merged communicator: %d", sum);
  MPI_Comm_free(&m);
}

static void refusals(MPI_Comm inter, MPI_Comm half) {
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int x = 0, y = 0;
  MPI_Request req;
  int rc = MPI_Ibarrier(inter, &req);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Ibarrier on it: %d", rc);
  if (rc == MPI_SUCCESS) MPI_Wait(&req, MPI_STATUS_IGNORE);
  rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
  MTEST_CHECK(class_of(rc) == MPI_ERR_COMM, "MPI_Scan on it: %d", rc);
  MPI_Comm out = MPI_COMM_NULL;
  rc = MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &out);
  MTEST_CHECK(class_of(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_split_type of it: %d", rc);
  /* Topologies are for intracommunicators: an intercommunicator has none. */
  int dims[1] = {1}, periods[1] = {0}, status = 0;
  rc = MPI_Cart_create(inter, 1, dims, periods, 0, &out);
  MTEST_CHECK(class_of(rc) == MPI_ERR_COMM, "MPI_Cart_create on it: %d", rc);
  rc = MPI_Comm_create_group(inter, MPI_GROUP_EMPTY, 0, &out);
  MTEST_CHECK(class_of(rc) == MPI_ERR_COMM, "MPI_Comm_create_group on it: %d", rc);
  rc = MPI_Topo_test(inter, &status);
  MTEST_CHECK(rc == MPI_SUCCESS && status == MPI_UNDEFINED, "MPI_Topo_test of it: %d, %d", rc,
              status);
  rc = MPI_Cartdim_get(inter, &x);
  MTEST_CHECK(class_of(rc) == MPI_ERR_TOPOLOGY, "MPI_Cartdim_get of it: %d", rc);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
  rc = MPI_Intercomm_merge(half, 0, &out);
  MTEST_CHECK(class_of(rc) == MPI_ERR_COMM, "merging an intracommunicator: %d", rc);
  rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &x);
  MTEST_CHECK(class_of(rc) == MPI_ERR_COMM, "MPI_Comm_remote_size of the world: %d", rc);
  rc = MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 9, &out);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG && out == MPI_COMM_NULL, "overlapping groups: %d", rc);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void from_groups(void) {
  MPI_Group world, evens, odds;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int range[1][3] = {{0, size - 1, 2}}, orange[1][3] = {{1, size - 1, 2}};
  MPI_Group_range_incl(world, 1, range, &evens);
  MPI_Group_range_incl(world, 1, orange, &odds);
  MPI_Comm inter;
  MPI_Intercomm_create_from_groups(color ? odds : evens, 0, color ? evens : odds, 0,
                                   "org.gpurun.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                   &inter);
  check_shape(inter);
  exchange(inter, 4, 3000);
  MPI_Comm_free(&inter);
  MPI_Group_free(&world);
  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  color = rank % 2;
  MPI_Comm half, inter, copy;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  check_shape(inter);
  exchange(inter, 1, 0);
  MPI_Comm_dup(inter, &copy);
  check_shape(copy);
  int result = -1;
  MPI_Comm_compare(inter, copy, &result);
  MTEST_CHECK(result == MPI_CONGRUENT, "compare with its duplicate: %d", result);
  MPI_Comm_compare(inter, half, &result);
  MTEST_CHECK(result == MPI_UNEQUAL, "compare with an intracommunicator: %d", result);
  /* The same tag on both: each message stays on its communicator. */
  exchange(copy, 1, 1000);
  exchange(inter, 1, 0);
  merged(inter, color, 1);
  merged(inter, 1 - color, 0);
  merged(inter, 1, 1);
  idups(inter);
  refusals(inter, half);
  from_groups();
  MPI_Comm_free(&copy);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return mtest_finalize();
}
