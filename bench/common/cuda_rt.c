/* dlopen'ed CUDA runtime. The few prototypes are declared here (cudaError_t is an int,
 * cudaMemcpyKind an enum whose values are interface facts), so no CUDA header is needed. */
#include "cuda_rt.h"

#include <dlfcn.h>
#include <stdio.h>

enum { kCudaSuccess = 0, kCudaMemcpyHostToDevice = 1, kCudaMemcpyDeviceToHost = 2 };

struct cuda_api {
  void *lib;
  int (*get_device_count)(int *);
  int (*set_device)(int);
  int (*malloc)(void **, size_t);
  int (*free)(void *);
  int (*memcpy)(void *, const void *, size_t, int);
  int (*synchronize)(void);
  const char *(*error_string)(int);
  int (*stream_create)(void **, unsigned);
  int (*stream_synchronize)(void *);
  int (*stream_destroy)(void *);
};

static struct cuda_api cuda;

static const char *const kLibNames[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                        "libcudart.so.11.0"};

static int load_symbols(char *why, size_t why_len) {
  struct {
    void **slot;
    const char *name;
  } syms[] = {
      {(void **)&cuda.get_device_count, "cudaGetDeviceCount"},
      {(void **)&cuda.set_device, "cudaSetDevice"},
      {(void **)&cuda.malloc, "cudaMalloc"},
      {(void **)&cuda.free, "cudaFree"},
      {(void **)&cuda.memcpy, "cudaMemcpy"},
      {(void **)&cuda.synchronize, "cudaDeviceSynchronize"},
      {(void **)&cuda.error_string, "cudaGetErrorString"},
      {(void **)&cuda.stream_create, "cudaStreamCreateWithFlags"},
      {(void **)&cuda.stream_synchronize, "cudaStreamSynchronize"},
      {(void **)&cuda.stream_destroy, "cudaStreamDestroy"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    *syms[i].slot = dlsym(cuda.lib, syms[i].name);
    if (!*syms[i].slot) {
      snprintf(why, why_len, "the CUDA runtime has no %s", syms[i].name);
      return -1;
    }
  }
  return 0;
}

static int load(char *why, size_t why_len) {
  if (cuda.lib) return 0;
  for (size_t i = 0; i < sizeof kLibNames / sizeof kLibNames[0] && !cuda.lib; i++)
    cuda.lib = dlopen(kLibNames[i], RTLD_NOW | RTLD_LOCAL);
  if (!cuda.lib) {
    snprintf(why, why_len,
             "cannot load the CUDA runtime (libcudart.so): install CUDA or add its lib "
             "directory to LD_LIBRARY_PATH");
    return -1;
  }
  return load_symbols(why, why_len);
}

static int check(int err, const char *what, char *why, size_t why_len) {
  if (err == kCudaSuccess) return 0;
  snprintf(why, why_len, "%s failed: error %d (%s)", what, err, cuda.error_string(err));
  return -1;
}

int bench_cuda_open(int local_rank, int *device, char *why, size_t why_len) {
  if (load(why, why_len) != 0) return -1;
  int count = 0;
  int err = cuda.get_device_count(&count);
  if (err != kCudaSuccess || count <= 0) {
    snprintf(why, why_len, "no CUDA device: cudaGetDeviceCount returned %d (%s), count %d", err,
             err != kCudaSuccess ? cuda.error_string(err) : "no error", err ? 0 : count);
    return -1;
  }
  *device = local_rank % count;
  return check(cuda.set_device(*device), "cudaSetDevice", why, why_len);
}

int bench_cuda_malloc(void **p, size_t bytes, char *why, size_t why_len) {
  return check(cuda.malloc(p, bytes ? bytes : 1), "cudaMalloc", why, why_len);
}

void bench_cuda_free(void *p) {
  if (p && cuda.free) cuda.free(p);
}

/* cudaMemcpy from pageable memory may return before the data has reached the device: the
 * synchronization makes it visible to work on every stream (the MPI's own, -q stream's). */
int bench_cuda_to_device(void *dst, const void *src, size_t bytes, char *why, size_t why_len) {
  if (!bytes) return 0;
  if (check(cuda.memcpy(dst, src, bytes, kCudaMemcpyHostToDevice), "cudaMemcpy to device", why,
            why_len) != 0)
    return -1;
  return check(cuda.synchronize(), "cudaDeviceSynchronize", why, why_len);
}

int bench_cuda_to_host(void *dst, const void *src, size_t bytes, char *why, size_t why_len) {
  if (!bytes) return 0;
  if (check(cuda.synchronize(), "cudaDeviceSynchronize", why, why_len) != 0) return -1;
  return check(cuda.memcpy(dst, src, bytes, kCudaMemcpyDeviceToHost), "cudaMemcpy to host", why,
               why_len);
}

int bench_cuda_stream_create(void **stream, char *why, size_t why_len) {
  enum { kCudaStreamNonBlocking = 1 };
  return check(cuda.stream_create(stream, kCudaStreamNonBlocking), "cudaStreamCreateWithFlags", why,
               why_len);
}

int bench_cuda_stream_synchronize(void *stream, char *why, size_t why_len) {
  return check(cuda.stream_synchronize(stream), "cudaStreamSynchronize", why, why_len);
}

void bench_cuda_stream_destroy(void *stream) {
  if (stream && cuda.stream_destroy) cuda.stream_destroy(stream);
}
