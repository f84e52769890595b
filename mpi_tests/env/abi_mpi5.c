/* MPI-5.0's ABI queries and handle conversions: MPI_Abi_get_version says -1.-1 (this library
 * has MPICH's ABI, not the standard one) before MPI_Init and after; MPI_Abi_get_info gives the
 * sizes of MPI_Aint, MPI_Count and MPI_Offset; every kind of handle goes to an integer, the same
 * as its Fortran handle, and back to itself, live objects and null handles alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

static void version(const char *when) {
  int major = 0, minor = 0;
  MTEST_CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS, "MPI_Abi_get_version %s", when);
  MTEST_CHECK(major == -1 && minor == -1, "ABI version %d.%d %s", major, minor, when);
}

static void sizes(void) {
  MPI_Info info = MPI_INFO_NULL;
  MTEST_CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL, "Abi_get_info");
  const char *keys[] = {"mpi_aint_size", "mpi_count_size", "mpi_offset_size"};
  size_t want[] = {sizeof(MPI_Aint), sizeof(MPI_Count), sizeof(MPI_Offset)};
  for (int i = 0; i < 3; ++i) {
    char value[16] = "";
    int len = sizeof value, flag = 0;
    MPI_Info_get_string(info, keys[i], &len, value, &flag);
    MTEST_CHECK(flag && (size_t)atoi(value) == want[i], "%s is '%s', want %zu", keys[i], value,
                want[i]);
  }
  MPI_Info_free(&info);
}

#define ROUND_TRIP(Kind, handle, fortran)                                                        \
  do {                                                                                           \
    int i = MPI_##Kind##_toint(handle);                                                          \
    MTEST_CHECK(i == (int)(fortran), #Kind "_toint gives %d, the Fortran handle is %d", i,       \
                (int)(fortran));                                                                 \
    MTEST_CHECK(MPI_##Kind##_fromint(i) == (handle), #Kind "_fromint(%d) is not the handle", i); \
  } while (0)

static void keep(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in, (void)inout, (void)len, (void)type;
}

static void handles(void) {
  MPI_Comm dup;
  MPI_Group group;
  MPI_Errhandler eh;
  MPI_Info info;
  MPI_Op op;
  MPI_Request request;
  MPI_Datatype type;
  MPI_Win win;
  MPI_Session session;
  MPI_Message message;
  int one = 1, got;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_group(dup, &group);
  MPI_Comm_get_errhandler(dup, &eh);
  MPI_Info_create(&info);
  MPI_Op_create(keep, 1, &op);
  MPI_Type_contiguous(2, MPI_INT, &type);
  MPI_Win_create(&got, sizeof got, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_SELF, &request);
  ROUND_TRIP(Comm, dup, MPI_Comm_c2f(dup));
  ROUND_TRIP(Comm, MPI_COMM_NULL, MPI_Comm_c2f(MPI_COMM_NULL));
  ROUND_TRIP(Group, group, MPI_Group_c2f(group));
  ROUND_TRIP(Errhandler, eh, MPI_Errhandler_c2f(eh));
  ROUND_TRIP(Info, info, MPI_Info_c2f(info));
  ROUND_TRIP(Op, MPI_SUM, MPI_Op_c2f(MPI_SUM));
  ROUND_TRIP(Op, op, MPI_Op_c2f(op));
  ROUND_TRIP(Type, type, MPI_Type_c2f(type));
  ROUND_TRIP(Win, win, MPI_Win_c2f(win));
  ROUND_TRIP(Session, session, MPI_Session_c2f(session));
  ROUND_TRIP(Request, request, MPI_Request_c2f(request));
  MPI_Send(&one, 1, MPI_INT, 0, 4, MPI_COMM_SELF);
  MPI_Mprobe(0, 4, MPI_COMM_SELF, &message, MPI_STATUS_IGNORE);
  ROUND_TRIP(Message, message, MPI_Message_c2f(message));
  MPI_Mrecv(&got, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
  MPI_Send(&one, 1, MPI_INT, 0, 3, MPI_COMM_SELF);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Session_finalize(&session);
  MPI_Win_free(&win);
  MPI_Type_free(&type);
  MPI_Op_free(&op);
  MPI_Info_free(&info);
  MPI_Errhandler_free(&eh);
  MPI_Group_free(&group);
  MPI_Comm_free(&dup);
}

static void files(int rank) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/gpurun-abi-mpi5-%d-%d", (int)getpid(), rank);
  MPI_File file;
  MTEST_CHECK(
      MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                    MPI_INFO_NULL, &file) == MPI_SUCCESS,
      "open %s", path);
  ROUND_TRIP(File, file, MPI_File_c2f(file));
  MPI_File_close(&file);
  MTEST_CHECK(MPI_File_toint(MPI_FILE_NULL) == MPI_File_c2f(MPI_FILE_NULL), "File_toint(NULL)");
  MTEST_CHECK(MPI_File_fromint(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "File_fromint");
}

int main(int argc, char **argv) {
  int rank;
  version("before MPI_Init");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  version("after MPI_Init");
  sizes();
  handles();
  files(rank);
  return mtest_finalize();
}
