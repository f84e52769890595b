/* The predefined attributes, on MPI_COMM_WORLD and on any other communicator; nobody may set,
 * delete or free them. */
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, flag, *v;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
  for (int i = 0; i < 2; ++i) {
    MPI_Comm_get_attr(comms[i], MPI_TAG_UB, &v, &flag);
    MTEST_CHECK(flag && *v >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *v : 0);
    MPI_Comm_get_attr(comms[i], MPI_HOST, &v, &flag);
    MTEST_CHECK(flag && *v == MPI_PROC_NULL, "MPI_HOST: %d", flag ? *v : 0);
    MPI_Comm_get_attr(comms[i], MPI_IO, &v, &flag);
    MTEST_CHECK(flag && *v == MPI_ANY_SOURCE, "MPI_IO: %d", flag ? *v : 0);
    MPI_Comm_get_attr(comms[i], MPI_WTIME_IS_GLOBAL, &v, &flag);
    MTEST_CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL: %d", flag ? *v : -1);
    MPI_Comm_get_attr(comms[i], MPI_UNIVERSE_SIZE, &v, &flag);
    MTEST_CHECK(flag && *v >= size, "MPI_UNIVERSE_SIZE: %d (size %d)", flag ? *v : 0, size);
    MPI_Comm_get_attr(comms[i], MPI_APPNUM, &v, &flag);
    MTEST_CHECK(flag && *v == 0, "MPI_APPNUM: %d", flag ? *v : -1);
    MPI_Attr_get(comms[i], MPI_TAG_UB, &v, &flag);
    MTEST_CHECK(flag && *v >= 32767, "MPI_Attr_get(MPI_TAG_UB): %d", flag ? *v : 0);
  }
  /* The tag upper bound is a tag that works. */
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  int out = 5, in = 0;
  MPI_Request r;
  MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, *v, MPI_COMM_SELF, &r);
  MPI_Send(&out, 1, MPI_INT, 0, *v, MPI_COMM_SELF);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MTEST_CHECK(in == 5, "a message with tag MPI_TAG_UB: got %d", in);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int keyval = MPI_TAG_UB, cls, rc;
  rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &out);
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d", cls);
  rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST);
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_KEYVAL, "deleting MPI_HOST: class %d", cls);
  rc = MPI_Comm_free_keyval(&keyval);
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_KEYVAL, "freeing MPI_TAG_UB: class %d", cls);
  MPI_Comm_free(&dup);
  return mtest_finalize();
}
