/* Local work on device buffers (label gpu): MPI_Reduce_local with every kind of type the
 * device reduces (floating point, half and bfloat16, integers, logical, pairs) checked against
 * the same reduction on host buffers, and MPI_Pack/MPI_Unpack of a derived type between device
 * memory and host memory. Then what is staged through host memory (user ops, long double,
 * strided types, host/device mixes, managed memory), packing into and out of device packed
 * buffers with positions (MPI_Pack_c, MPI_Unpack_c), and the query's answers for these calls. */
#include "cuda_util.h"

enum { kCount = 4099 };

/* Reduces `count` elements of `type` with `op` on the device and on the host; the results must
 * be the same bits. */
static void reduce_both(MPI_Op op, MPI_Datatype type, size_t extent, const char *what) {
  size_t bytes = extent * kCount;
  unsigned char *in = (unsigned char *)malloc(bytes), *inout = (unsigned char *)malloc(bytes);
  /* Bytes 0..3: never a NaN or an infinity, many ties. */
  for (size_t i = 0; i < bytes; ++i) {
    in[i] = (unsigned char)((i * 7 + 1) % 4);
    inout[i] = (unsigned char)((i * 13 + 2) % 4);
  }
  void *din = NULL, *dinout = NULL;
  CUDA_CHECK(cudaMalloc(&din, bytes));
  CUDA_CHECK(cudaMalloc(&dinout, bytes));
  CUDA_CHECK(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dinout, inout, bytes, cudaMemcpyHostToDevice));
  int rc = MPI_Reduce_local(din, dinout, kCount, type, op);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Reduce_local of %s on device buffers failed", what);
  MPI_Reduce_local(in, inout, kCount, type, op);
  unsigned char *got = (unsigned char *)malloc(bytes);
  CUDA_CHECK(cudaMemcpy(got, dinout, bytes, cudaMemcpyDeviceToHost));
  MTEST_CHECK(memcmp(got, inout, bytes) == 0, "device and host reductions of %s differ", what);
  free(got);
  free(in);
  free(inout);
  CUDA_CHECK(cudaFree(din));
  CUDA_CHECK(cudaFree(dinout));
}

static void pack_both(void) {
  MPI_Datatype vec;
  MPI_Type_vector(257, 3, 7, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  size_t n = 257 * 7;
  int *host = (int *)malloc(n * sizeof(int));
  for (size_t i = 0; i < n; ++i) host[i] = (int)i;
  int *dev = NULL;
  CUDA_CHECK(cudaMalloc((void **)&dev, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dev, host, n * sizeof(int), cudaMemcpyHostToDevice));
  int size = 0;
  MPI_Pack_size(1, vec, MPI_COMM_WORLD, &size);
  char *want = (char *)malloc((size_t)size), *got = (char *)malloc((size_t)size);
  int pos = 0;
  MPI_Pack(host, 1, vec, want, size, &pos, MPI_COMM_WORLD);
  pos = 0;
  int rc = MPI_Pack(dev, 1, vec, got, size, &pos, MPI_COMM_WORLD);
  MTEST_CHECK(rc == MPI_SUCCESS && memcmp(got, want, (size_t)pos) == 0,
              "MPI_Pack from device memory differs from the host's");
  CUDA_CHECK(cudaMemset(dev, 0, n * sizeof(int)));
  pos = 0;
  rc = MPI_Unpack(want, size, &pos, dev, 1, vec, MPI_COMM_WORLD);
  CUDA_CHECK(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += host[i] != ((i % 7) < 3 ? (int)i : 0);
  MTEST_CHECK(rc == MPI_SUCCESS && wrong == 0, "MPI_Unpack into device memory: %d wrong", wrong);
  MPI_Aint ext_pos = 0;
  rc = MPI_Pack_external("external32", dev, 1, vec, want, size, &ext_pos);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION && ext_pos == 0,
              "MPI_Pack_external from device memory: class %d, not a clear refusal", cls);
  free(want);
  free(got);
  free(host);
  CUDA_CHECK(cudaFree(dev));
  MPI_Type_free(&vec);
}

#include "device_local_more.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!cuda_test_setup()) {
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  reduce_both(MPI_SUM, MPI_FLOAT, 4, "MPI_SUM on MPI_FLOAT");
  reduce_both(MPI_PROD, MPI_DOUBLE, 8, "MPI_PROD on MPI_DOUBLE");
  reduce_both(MPI_SUM, MPIX_C_FLOAT16, 2, "MPI_SUM on MPIX_C_FLOAT16");
  reduce_both(MPI_MAX, MPIX_BFLOAT16, 2, "MPI_MAX on MPIX_BFLOAT16");
  reduce_both(MPI_SUM, MPIX_BFLOAT16, 2, "MPI_SUM on MPIX_BFLOAT16");
  reduce_both(MPI_BXOR, MPI_UNSIGNED_LONG, 8, "MPI_BXOR on MPI_UNSIGNED_LONG");
  reduce_both(MPI_LAND, MPI_C_BOOL, 1, "MPI_LAND on MPI_C_BOOL");
  reduce_both(MPI_PROD, MPI_C_DOUBLE_COMPLEX, 16, "MPI_PROD on MPI_C_DOUBLE_COMPLEX");
  reduce_both(MPI_MINLOC, MPI_DOUBLE_INT, 16, "MPI_MINLOC on MPI_DOUBLE_INT");
  reduce_both(MPI_MAXLOC, MPI_2INT, 8, "MPI_MAXLOC on MPI_2INT");
  pack_both();
  check_local_paths();
  reduce_mixed();
  reduce_staged_kinds();
  reduce_managed();
  pack_device_packed();
  return mtest_finalize();
}
