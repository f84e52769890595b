/* The second half of device_local.c: MPI_Reduce_local where it is staged through host memory,
 * managed memory, MPI_Pack/MPI_Unpack(_c) with device packed buffers, and the query's answers
 * for these calls. Every result is checked against the same call on host buffers. */
#ifndef MPI_TESTS_CUDA_DEVICE_LOCAL_MORE_H
#define MPI_TESTS_CUDA_DEVICE_LOCAL_MORE_H

#include "cuda_util.h"

static void *to_device(const void *host, size_t bytes) {
  void *dev = NULL;
  CUDA_CHECK(cudaMalloc(&dev, bytes));
  CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  return dev;
}

static void from_device(void *host, const void *dev, size_t bytes) {
  CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}

/* MPI_Reduce_local and MPI_Pack take device buffers (natively, or staged with a driver too old
 * for the kernels); the external forms convert on the host only. */
static void check_local_paths(void) {
  static const char *const kTaken[] = {"MPI_Reduce_local", "MPI_Reduce_local_c", "MPI_Pack",
                                       "MPI_Pack_c",       "MPI_Unpack",         "MPI_Unpack_c"};
  int path = -1;
  for (size_t i = 0; i < sizeof kTaken / sizeof *kTaken; ++i) {
    MTEST_CHECK(MPIX_Query_cuda_path(kTaken[i], &path) == MPI_SUCCESS, "query %s", kTaken[i]);
    MTEST_CHECK(path == MPIX_CUDA_PATH_NATIVE || path == MPIX_CUDA_PATH_STAGED,
                "%s: path %d with CUDA", kTaken[i], path);
  }
  MPIX_Query_cuda_path("MPI_Pack_external", &path);
  MTEST_CHECK(path == MPIX_CUDA_PATH_REFUSED, "MPI_Pack_external: path %d", path);
}

/* Reduces copies of `in` and `inout` (`bytes` each) on the device and on the host: the whole
 * inout buffers (gaps of the type included) must end up the same bits. */
static void reduce_vs_host(const void *in, const void *inout, size_t bytes, int count,
                           MPI_Datatype type, MPI_Op op, const char *what) {
  void *din = to_device(in, bytes), *dinout = to_device(inout, bytes);
  unsigned char *want = (unsigned char *)malloc(bytes), *got = (unsigned char *)malloc(bytes);
  memcpy(want, inout, bytes);
  int rc = MPI_Reduce_local(din, dinout, count, type, op);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Reduce_local of %s on device buffers: %d", what, rc);
  MPI_Reduce_local(in, want, count, type, op);
  from_device(got, dinout, bytes);
  MTEST_CHECK(memcmp(got, want, bytes) == 0, "device and host reductions of %s differ", what);
  free(want);
  free(got);
  CUDA_CHECK(cudaFree(din));
  CUDA_CHECK(cudaFree(dinout));
}

/* One operand in host memory, the other on the device, both ways round. */
static void reduce_mixed(void) {
  enum { n = 1000 };
  int in[n], inout[n], got[n];
  for (int i = 0; i < n; ++i) {
    in[i] = i;
    inout[i] = 3 * i + 1;
  }
  int *din = (int *)to_device(in, sizeof in), *dinout = (int *)to_device(inout, sizeof inout);
  int rc = MPI_Reduce_local(in, dinout, n, MPI_INT, MPI_SUM);
  from_device(got, dinout, sizeof got);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += got[i] != 4 * i + 1;
  MTEST_CHECK(rc == MPI_SUCCESS && wrong == 0, "host in, device inout: rc %d, %d wrong", rc, wrong);
  rc = MPI_Reduce_local(din, inout, n, MPI_INT, MPI_SUM);
  wrong = 0;
  for (int i = 0; i < n; ++i) wrong += inout[i] != 4 * i + 1;
  MTEST_CHECK(rc == MPI_SUCCESS && wrong == 0, "device in, host inout: rc %d, %d wrong", rc, wrong);
  CUDA_CHECK(cudaFree(din));
  CUDA_CHECK(cudaFree(dinout));
}

static void twice_plus(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] = ((int *)in)[i] + 2 * ((int *)inout)[i];
}

/* What the device does not reduce: a user op, long double; and a strided type. */
static void reduce_staged_kinds(void) {
  enum { n = 3001 };
  int iin[n], iinout[n];
  for (int i = 0; i < n; ++i) {
    iin[i] = i % 97 - 40;
    iinout[i] = i % 13;
  }
  MPI_Op user;
  MPI_Op_create(twice_plus, 0, &user);
  reduce_vs_host(iin, iinout, sizeof iin, n, MPI_INT, user, "a user op on MPI_INT");
  MPI_Op_free(&user);

  long double *lin = (long double *)calloc(n, sizeof *lin);
  long double *linout = (long double *)calloc(n, sizeof *linout);
  for (int i = 0; i < n; ++i) {
    lin[i] = (long double)i / 3;
    linout[i] = (long double)(n - i) / 7;
  }
  reduce_vs_host(lin, linout, n * sizeof *lin, n, MPI_LONG_DOUBLE, MPI_SUM,
                 "MPI_SUM on MPI_LONG_DOUBLE");
  free(lin);
  free(linout);

  MPI_Datatype vec;
  MPI_Type_vector(100, 2, 5, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  double din[3 * 500], dinout[3 * 500];
  for (int i = 0; i < 3 * 500; ++i) {
    din[i] = (i * 37) % 101;
    dinout[i] = (i * 53) % 89;
  }
  /* 3 elements of extent 497 doubles, each with gaps that must come back as they were. */
  reduce_vs_host(din, dinout, sizeof din, 3, vec, MPI_MAX, "MPI_MAX on a vector of doubles");
  MPI_Type_free(&vec);
}

/* Managed memory, read and written by the host directly around the call. */
static void reduce_managed(void) {
  enum { n = 4096 };
  float *in = NULL, *inout = NULL;
  CUDA_CHECK(cudaMallocManaged((void **)&in, n * sizeof(float), cudaMemAttachGlobal));
  CUDA_CHECK(cudaMallocManaged((void **)&inout, n * sizeof(float), cudaMemAttachGlobal));
  for (int i = 0; i < n; ++i) {
    in[i] = (float)(i % 17);
    inout[i] = (float)(i % 29);
  }
  int rc = MPI_Reduce_local(in, inout, n, MPI_FLOAT, MPI_SUM);
  CUDA_CHECK(cudaDeviceSynchronize());
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += inout[i] != (float)(i % 17 + i % 29);
  MTEST_CHECK(rc == MPI_SUCCESS && wrong == 0, "managed MPI_SUM: rc %d, %d wrong", rc, wrong);
  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(inout));
}

/* A host int and a vector from device memory packed one after the other into a device packed
 * buffer (MPI_Pack_c), unpacked from it into a host int and device memory (MPI_Unpack_c):
 * positions and bytes as with host buffers, the gaps of the target untouched. */
static void pack_device_packed(void) {
  enum { n = 500 };
  MPI_Datatype vec;
  MPI_Type_vector(100, 2, 5, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  double host[n], gaps[n], got[n];
  for (int i = 0; i < n; ++i) {
    host[i] = i * 1.5;
    gaps[i] = -1;
  }
  int header = 4242, header_got = 0, isize = 0, vsize = 0;
  MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &isize);
  MPI_Pack_size(1, vec, MPI_COMM_WORLD, &vsize);
  MPI_Count total = isize + vsize, pos = 0;
  char *want = (char *)malloc((size_t)total), *packed = (char *)malloc((size_t)total);
  int ipos = 0;
  MPI_Pack(&header, 1, MPI_INT, want, (int)total, &ipos, MPI_COMM_WORLD);
  MPI_Pack(host, 1, vec, want, (int)total, &ipos, MPI_COMM_WORLD);
  void *dtyped = to_device(host, sizeof host), *dpacked = NULL;
  CUDA_CHECK(cudaMalloc(&dpacked, (size_t)total));
  /* One byte short of the vector's packed size. */
  int rc = MPI_Pack_c(dtyped, 1, vec, dpacked, (MPI_Count)vsize - 1, &pos, MPI_COMM_WORLD);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "short device outsize: class %d pos %lld", cls,
              (long long)pos);
  rc = MPI_Pack_c(&header, 1, MPI_INT, dpacked, total, &pos, MPI_COMM_WORLD);
  rc |= MPI_Pack_c(dtyped, 1, vec, dpacked, total, &pos, MPI_COMM_WORLD);
  from_device(packed, dpacked, (size_t)total);
  MTEST_CHECK(rc == MPI_SUCCESS && pos == total && memcmp(packed, want, (size_t)total) == 0,
              "MPI_Pack_c into device memory: rc %d, position %lld of %lld, or bytes differ", rc,
              (long long)pos, (long long)total);
  void *dtarget = to_device(gaps, sizeof gaps);
  MPI_Count upos = 0;
  rc = MPI_Unpack_c(dpacked, total, &upos, &header_got, 1, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Unpack_c(dpacked, total, &upos, dtarget, 1, vec, MPI_COMM_WORLD);
  from_device(got, dtarget, sizeof got);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += got[i] != (i % 5 < 2 ? host[i] : -1);
  MTEST_CHECK(rc == MPI_SUCCESS && upos == total && header_got == header && wrong == 0,
              "MPI_Unpack_c from device memory: rc %d, position %lld, header %d, %d wrong", rc,
              (long long)upos, header_got, wrong);
  free(want);
  free(packed);
  CUDA_CHECK(cudaFree(dtyped));
  CUDA_CHECK(cudaFree(dpacked));
  CUDA_CHECK(cudaFree(dtarget));
  MPI_Type_free(&vec);
}

#endif
