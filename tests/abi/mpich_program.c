/* Built by Debian's mpicc.mpich against MPICH's own header (and linked with -z now, so that
 * every MPI symbol it names must resolve at load), then run unchanged on gpurun's libmpi.so.12
 * under gpurun: the answer must be right. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int handled;

static void on_error(MPI_Comm *comm, int *code, ...) {
  if (*comm == MPI_COMM_WORLD && *code != MPI_SUCCESS) handled++;
}

/* A user error handler, and an added error class, through MPICH's handle values. */
static int user_errors(void) {
  int errors = 0, value, added, cls;
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(on_error, &eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  MPI_Errhandler_free(&eh);
  if (eh != MPI_ERRHANDLER_NULL) errors++;
  int rc = MPI_Comm_rank(MPI_COMM_NULL, &value);
  if (rc == MPI_SUCCESS || handled != 1) errors++;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Add_error_class(&added);
  MPI_Error_class(added, &cls);
  if (cls != added) errors++;
  return errors;
}

/* MPI-IO's error classes as MPICH's header names them (a missing file), a window's memory that a
 * Put in a fence epoch fills, and a call of a feature gpurun does not implement: its error class,
 * no crash. */
static int unsupported_calls(void) {
  int errors = 0, cls = -1;
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(MPI_COMM_WORLD, "gpurun-never-created", MPI_MODE_RDONLY, MPI_INFO_NULL,
                         &fh);
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_NO_SUCH_FILE || fh != MPI_FILE_NULL) errors++;
  MPI_Win win = MPI_WIN_NULL;
  int *base = NULL, rank = 0, one = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Win_fence(0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0 && *base != size) errors++;
  MPI_Win_free(&win);
  char port[MPI_MAX_PORT_NAME];
  if (MPI_Open_port(MPI_INFO_NULL, port) != MPI_SUCCESS || MPI_Close_port(port) != MPI_SUCCESS)
    errors++;
  rc = MPI_Lookup_name("gpurun-abi-nothing-published", MPI_INFO_NULL, port);
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_NAME) errors++;
  int provided = -1, num = -1;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) errors++;
  if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS || num <= 0) errors++;
  /* gpurun's knobs through MPICH's MPI_T types: a size reads as MPI_UNSIGNED_LONG_LONG */
  int index = -1, count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  unsigned long long bytes = 0;
  if (MPI_T_cvar_get_index("GPURUN_IO_TWO_PHASE_BUFFER", &index) != MPI_SUCCESS ||
      MPI_T_cvar_get_info(index, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL) !=
          MPI_SUCCESS ||
      type != MPI_UNSIGNED_LONG_LONG ||
      MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS ||
      MPI_T_cvar_read(handle, &bytes) != MPI_SUCCESS || bytes != 16u << 20)
    errors++;
  MPI_T_cvar_handle_free(&handle);
  MPI_T_finalize();
  return errors;
}

static int polls;

static int poll_once(void *state, MPI_Status *status) {
  (void)status;
  polls++;
  return MPI_Grequest_complete(*(MPI_Request *)state);
}

/* MPICH's MPIX_ calls: the GPU queries, an added class deleted again, an extended generalized
 * request completed by its poll function, and fault tolerance where nothing failed. */
static int mpich_extensions(void) {
  int errors = 0, added, cls = 0, flag = 5;
  if (MPIX_Query_hip_support() != 0 || MPIX_Query_ze_support() != 0) errors++;
  MPI_Add_error_class(&added);
  if (MPIX_Delete_error_class(added) != MPI_SUCCESS) errors++;
  if (MPI_Error_class(added, &cls) == MPI_SUCCESS) errors++;
  MPI_Request req = MPI_REQUEST_NULL;
  MPIX_Grequest_start(NULL, NULL, NULL, poll_once, NULL, &req, &req);
  if (MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS || polls != 1) errors++;
  MPI_Comm shrunk = MPI_COMM_NULL;
  if (MPIX_Comm_agree(MPI_COMM_WORLD, &flag) != MPI_SUCCESS || flag != 5) errors++;
  if (MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk) != MPI_SUCCESS) errors++;
  if (shrunk != MPI_COMM_NULL) MPI_Comm_free(&shrunk);
  return errors;
}

int main(int argc, char **argv) {
  int rank, size, provided, cls, len, errors = 0;
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_rank(MPI_COMM_NULL, &len);
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_COMM) errors++;
  if (provided != MPI_THREAD_FUNNELED) errors++;
  errors += user_errors();
  errors += unsupported_calls();
  errors += mpich_extensions();
  MPI_Get_library_version(library, &len);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d of %d: %s, %d errors, library %.6s\n", rank, size,
         errors ? "wrong" : "right", errors, library);
  MPI_Finalize();
  return errors != 0;
}
