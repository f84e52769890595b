/* Bad arguments to the communicator calls, under MPI_ERRORS_RETURN: the right class, and a
 * message that names the call and the argument. Freed handles are recognised as invalid, also
 * after their slot was reused. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int rank;

static void expect(int rc, int want_class, const char *call, const char *text) {
  int cls = -1, len = 0;
  char msg[MPI_MAX_ERROR_STRING], rank_text[32];
  MTEST_CHECK(rc != MPI_SUCCESS, "%s succeeded; want class %d", call, want_class);
  if (rc == MPI_SUCCESS) return;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == want_class, "%s: class %d, want %d", call, cls, want_class);
  MPI_Error_string(rc, msg, &len);
  snprintf(rank_text, sizeof rank_text, "rank %d", rank);
  MTEST_CHECK(strstr(msg, call) && strstr(msg, text) && strstr(msg, rank_text),
              "message '%s' should name %s, '%s' and %s", msg, call, text, rank_text);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, v;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm c = MPI_COMM_NULL, d;

  expect(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "MPI_Comm_dup", "comm is MPI_COMM_NULL");
  expect(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_dup", "newcomm");
  expect(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c), MPI_ERR_COMM, "MPI_Comm_split", "comm");
  expect(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG, "MPI_Comm_split", "color");
  expect(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
         "MPI_Comm_split_type", "split_type");
  expect(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP, "MPI_Comm_create",
         "group");
  expect(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, -3, &c), MPI_ERR_TAG,
         "MPI_Comm_create_group", "tag");
  expect(MPI_Comm_free(NULL), MPI_ERR_ARG, "MPI_Comm_free", "comm");
  c = MPI_COMM_NULL;
  expect(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", "comm is MPI_COMM_NULL");
  c = MPI_COMM_WORLD;
  expect(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", "MPI_COMM_WORLD");
  expect(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &v), MPI_ERR_COMM, "MPI_Comm_compare",
         "comm");
  expect(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_set_name", "comm_name");
  expect(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &v), MPI_ERR_COMM, "MPI_Comm_get_name", "comm");
  expect(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL), MPI_ERR_INFO, "MPI_Comm_set_info",
         "info");

  /* A freed handle, and the same handle after its slot was used again. */
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm stale = c;
  MPI_Comm_free(&c);
  expect(MPI_Comm_size(stale, &v), MPI_ERR_COMM, "MPI_Comm_size", "not a communicator");
  expect(MPI_Barrier(stale), MPI_ERR_COMM, "MPI_Barrier", "comm");
  expect(MPI_Comm_free(&stale), MPI_ERR_COMM, "MPI_Comm_free", "comm");
  for (int i = 0; i < 3; ++i) {
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    expect(MPI_Comm_rank(stale, &v), MPI_ERR_COMM, "MPI_Comm_rank", "comm");
    MPI_Comm_free(&d);
  }

  /* A group with a process outside the communicator. */
  if (size > 1) {
    MPI_Comm solo;
    MPI_Group wg;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &solo);
    MPI_Comm_set_errhandler(solo, MPI_ERRORS_RETURN);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    expect(MPI_Comm_create(solo, wg, &c), MPI_ERR_GROUP, "MPI_Comm_create", "group");
    expect(MPI_Comm_create_group(solo, wg, 0, &c), MPI_ERR_GROUP, "MPI_Comm_create_group", "group");
    MPI_Group_free(&wg);
    MPI_Comm_free(&solo);
  }

  /* The intercommunicator calls on an intracommunicator, and groups that overlap. */
  expect(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_ARG,
         "MPI_Intercomm_create", "overlap");
  expect(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM, "MPI_Intercomm_merge",
         "intracommunicator");
  expect(MPI_Comm_remote_size(MPI_COMM_WORLD, &v), MPI_ERR_COMM, "MPI_Comm_remote_size",
         "intracommunicator");
  MPI_Group g;
  expect(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM, "MPI_Comm_remote_group",
         "intracommunicator");

  /* The error goes through the handler of the communicator named: a dup inherits the
   * parent's handler. */
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(d, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_RETURN, "a duplicate's handler is %#x", (unsigned)eh);
  MPI_Comm_free(&d);
  return mtest_finalize();
}
