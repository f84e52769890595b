/* The MPIX GPU queries (mpix.h, included by mpi.h; MPIX_Comm_query_cuda_path per communicator)
 * and host communication next to them: what they answer is consistent, wrong arguments give MPI_ERR_ARG, without CUDA every call refuses
 * device buffers, and host buffers travel as always. Runs everywhere (label mpi). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static const char *const kBufferCalls[] = {
    "MPI_Send",      "MPI_Isend_c",        "mpi_recv",       "MPI_Irecv",
    "MPI_Sendrecv",  "MPI_Imrecv",         "MPI_Send_init",  "MPI_Bcast",
    "MPI_Ialltoallv", "mpi_allreduce_init", "MPI_Reduce_scatter_block", "MPI_Iexscan",
    "MPI_Reduce_local", "MPI_Pack_c",     "MPI_Unpack_external", "PMPI_Allgather",
    "MPIX_Send_enqueue", "MPIX_Stream_isend_c", "PMPIX_Allreduce_enqueue_c", "MPI_Psend_init",
    "mpi_precv_init"};
static const char *const kOtherNames[] = {"MPI_Barrier", "MPI_Iprobe", "MPI_Init", "MPI_Foo",
                                          "Send", "", "MPI_I", "MPI_Irecv_init",
                                          "MPIX_Wait_enqueue", "MPIX_Stream_free", "MPIX_Send",
                                          "MPI_Pready", "MPIX_Prequest_create"};
/* Stream forms and the MPI calls whose paths they take (api/enqueue.h); partitioned requests,
 * whose partitions travel as messages. */
static const char *const kStreamForms[][2] = {{"MPIX_Send_enqueue", "MPI_Send"},
                                              {"MPIX_Irecv_enqueue_c", "MPI_Irecv"},
                                              {"MPIX_Stream_recv", "MPI_Recv"},
                                              {"MPIX_Allreduce_enqueue", "MPI_Allreduce"},
                                              {"MPI_Psend_init", "MPI_Send"},
                                              {"MPI_Precv_init", "MPI_Recv"}};

/* The error class of a returned code. */
static int class_of(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static void check_paths(int support) {
  for (size_t i = 0; i < sizeof kBufferCalls / sizeof *kBufferCalls; ++i) {
    int path = -1;
    int rc = MPIX_Query_cuda_path(kBufferCalls[i], &path);
    MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Query_cuda_path(%s) returned %d", kBufferCalls[i], rc);
    MTEST_CHECK(path == MPIX_CUDA_PATH_REFUSED || path == MPIX_CUDA_PATH_STAGED ||
                    path == MPIX_CUDA_PATH_NATIVE,
                "path of %s is %d", kBufferCalls[i], path);
    if (!support)
      MTEST_CHECK(path == MPIX_CUDA_PATH_REFUSED, "%s: path %d without CUDA", kBufferCalls[i],
                  path);
  }
  for (size_t i = 0; i < sizeof kStreamForms / sizeof *kStreamForms; ++i) {
    int form = -1, call = -2;
    MPIX_Query_cuda_path(kStreamForms[i][0], &form);
    MPIX_Query_cuda_path(kStreamForms[i][1], &call);
    MTEST_CHECK(form == call, "%s: path %d, %s's is %d", kStreamForms[i][0], form,
                kStreamForms[i][1], call);
  }
  if (!support) return;
  /* With CUDA: allreduce has a device algorithm, and every algorithm of the neighbourhood
   * collectives runs on the device; the other collectives stage through host memory on one
   * host (the shared-memory algorithms), as do per-rank types; no collective refuses device
   * buffers. */
  static const char *const kStaged[] = {
      "MPI_Bcast",  "MPI_Ialltoallv", "MPI_Reduce_scatter_block", "PMPI_Allgather",
      "MPI_Neighbor_alltoallw", "MPI_Reduce", "MPI_Iexscan", "MPI_Scan_init"};
  static const char *const kNative[] = {"MPI_Allreduce", "mpi_allreduce_init", "MPI_Iallreduce_c",
                                        "MPI_Neighbor_allgather", "MPI_Ineighbor_alltoallv"};
  int path = -1;
  for (size_t i = 0; i < sizeof kStaged / sizeof *kStaged; ++i) {
    MPIX_Query_cuda_path(kStaged[i], &path);
    MTEST_CHECK(path == MPIX_CUDA_PATH_STAGED, "%s: path %d, not staged", kStaged[i], path);
  }
  for (size_t i = 0; i < sizeof kNative / sizeof *kNative; ++i) {
    MPIX_Query_cuda_path(kNative[i], &path);
    MTEST_CHECK(path == MPIX_CUDA_PATH_NATIVE, "%s: path %d, not native", kNative[i], path);
  }
  /* Local calls take device buffers (native with the device kernels, staged without); the
   * external32 conversions run on the host only. */
  static const char *const kLocal[] = {"MPI_Reduce_local", "MPI_Reduce_local_c", "MPI_Pack",
                                       "MPI_Unpack_c"};
  for (size_t i = 0; i < sizeof kLocal / sizeof *kLocal; ++i) {
    MPIX_Query_cuda_path(kLocal[i], &path);
    MTEST_CHECK(path == MPIX_CUDA_PATH_NATIVE || path == MPIX_CUDA_PATH_STAGED,
                "%s: path %d with CUDA", kLocal[i], path);
  }
  MPIX_Query_cuda_path("MPI_Unpack_external_c", &path);
  MTEST_CHECK(path == MPIX_CUDA_PATH_REFUSED, "MPI_Unpack_external_c: path %d", path);
}

static void check_errors(void) {
  int flag = 7, path = 7;
  MTEST_CHECK(class_of(MPIX_GPU_query_support(3, &flag)) == MPI_ERR_ARG, "gpu_type 3 accepted");
  MTEST_CHECK(class_of(MPIX_GPU_query_support(-1, &flag)) == MPI_ERR_ARG, "gpu_type -1 accepted");
  MTEST_CHECK(flag == 7, "is_supported written on error");
  MTEST_CHECK(class_of(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, NULL)) == MPI_ERR_ARG,
              "null is_supported accepted");
  MTEST_CHECK(class_of(MPIX_Query_cuda_path(NULL, &path)) == MPI_ERR_ARG, "null call accepted");
  MTEST_CHECK(class_of(MPIX_Query_cuda_path("MPI_Send", NULL)) == MPI_ERR_ARG, "null path accepted");
  for (size_t i = 0; i < sizeof kOtherNames / sizeof *kOtherNames; ++i) {
    int rc = class_of(MPIX_Query_cuda_path(kOtherNames[i], &path));
    MTEST_CHECK(rc == MPI_ERR_ARG, "\"%s\" gave %d, not MPI_ERR_ARG", kOtherNames[i], rc);
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  int code = MPIX_Query_cuda_path("MPI_Foo", &path);
  MPI_Error_string(code, text, &len);
  MTEST_CHECK(strstr(text, "MPIX_Query_cuda_path") != NULL && strstr(text, "MPI_Foo") != NULL,
              "message \"%s\" names neither the call nor the argument", text);
}

/* MPIX_Comm_query_cuda_path: on a communicator whose ranks all assert device memory only,
 * every collective but the w forms runs device buffers on the device; on one without the
 * assertion the answers are MPIX_Query_cuda_path's; wrong arguments are errors. */
static void check_comm_paths(int support) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_memory_alloc_kinds", "cuda:device");
  MPI_Comm device_only;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &device_only);
  MPI_Info_free(&info);
  static const char *const kCalls[] = {"MPI_Reduce", "MPI_Ibcast", "MPI_Allgather_init",
                                       "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Alltoallw",
                                       "MPI_Allreduce", "MPI_Send", "MPI_Pack"};
  for (size_t i = 0; i < sizeof kCalls / sizeof *kCalls; ++i) {
    int global = -1, world = -1, asserted = -1;
    MPIX_Query_cuda_path(kCalls[i], &global);
    MTEST_CHECK(MPIX_Comm_query_cuda_path(MPI_COMM_WORLD, kCalls[i], &world) == MPI_SUCCESS &&
                    MPIX_Comm_query_cuda_path(device_only, kCalls[i], &asserted) == MPI_SUCCESS,
                "MPIX_Comm_query_cuda_path(%s) failed", kCalls[i]);
    MTEST_CHECK(world == global, "%s on MPI_COMM_WORLD: path %d, not %d", kCalls[i], world, global);
    int want = MPIX_CUDA_PATH_NATIVE;
    if (!support)
      want = MPIX_CUDA_PATH_REFUSED;
    else if (strcmp(kCalls[i], "MPI_Send") == 0 || strcmp(kCalls[i], "MPI_Pack") == 0)
      want = global;  /* not a collective */
    else if (strcmp(kCalls[i], "MPI_Alltoallw") == 0)
      want = MPIX_CUDA_PATH_STAGED;
    MTEST_CHECK(asserted == want, "%s on a device-only communicator: path %d, not %d", kCalls[i],
                asserted, want);
  }
  int path = 7;
  MTEST_CHECK(class_of(MPIX_Comm_query_cuda_path(MPI_COMM_NULL, "MPI_Send", &path)) == MPI_ERR_COMM,
              "MPI_COMM_NULL accepted");
  MTEST_CHECK(class_of(MPIX_Comm_query_cuda_path(device_only, "MPI_Send", NULL)) == MPI_ERR_ARG,
              "null path accepted");
  MTEST_CHECK(class_of(MPIX_Comm_query_cuda_path(device_only, "MPI_Barrier", &path)) ==
                  MPI_ERR_ARG,
              "MPI_Barrier accepted");
  MTEST_CHECK(path == 7, "path written on error");
  MPI_Comm_free(&device_only);
}

/* Host buffers around a ring, and the sum through MPI_Reduce_local. */
static void check_host_paths(int rank, int size) {
  int out[64], in[64];
  for (int i = 0; i < 64; ++i) out[i] = rank * 1000 + i;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(out, 64, MPI_INT, next, 5, in, 64, MPI_INT, prev, 5, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 64; ++i)
    MTEST_CHECK(in[i] == prev * 1000 + i, "ring element %d is %d", i, in[i]);
  MPI_Reduce_local(out, in, 64, MPI_INT, MPI_SUM);
  MTEST_CHECK(in[3] == prev * 1000 + rank * 1000 + 6, "reduce_local gave %d", in[3]);
}

int main(int argc, char **argv) {
  /* Both may be asked before MPI_Init, and must agree with what comes after. */
  int before = MPIX_Query_cuda_support();
  int path_before = -1;
  MPIX_Query_cuda_path("MPI_Send", &path_before);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int support = MPIX_Query_cuda_support();
  MTEST_CHECK(support == 0 || support == 1, "MPIX_Query_cuda_support() = %d", support);
  MTEST_CHECK(support == before, "support %d after MPI_Init, %d before", support, before);
  int cuda = -1, ze = -1, hip = -1;
  MTEST_CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &cuda) == MPI_SUCCESS, "cuda");
  MTEST_CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &ze) == MPI_SUCCESS, "ze");
  MTEST_CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &hip) == MPI_SUCCESS, "hip");
  MTEST_CHECK(cuda == support && ze == 0 && hip == 0, "cuda %d ze %d hip %d", cuda, ze, hip);
  MTEST_CHECK(MPIX_Query_hip_support() == 0 && MPIX_Query_ze_support() == 0,
              "MPIX_Query_hip_support() %d, MPIX_Query_ze_support() %d", MPIX_Query_hip_support(),
              MPIX_Query_ze_support());
  if (!support)
    MTEST_CHECK(path_before == MPIX_CUDA_PATH_REFUSED, "path before init %d", path_before);
  check_paths(support);
  check_errors();
  check_comm_paths(support);
  check_host_paths(rank, size);
  if (rank == 0) printf("cuda support %d\n", support);
  return mtest_finalize();
}
