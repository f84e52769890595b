/* Device memory from every allocator through MPI between pairs of ranks sharing the host's
 * GPUs: cudaMalloc (legacy IPC), cuMemCreate with a POSIX fd handle type (VMM, fd over the
 * socket), a stream-ordered pool made for sharing (pool IPC), cudaMallocAsync's default pool
 * (staged), managed and pinned host memory. Each kind is sent and received. */
#include <cuda.h>
#include <stdlib.h>

#include "gpu.h"
#include "mtest.h"

enum { kBytes = 4 << 20 };

/* --- VMM through the driver's entry points (the program links only the runtime) --- */
static size_t vmm_size;
static CUmemGenericAllocationHandle vmm_handle;

static void *entry(const char *name) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return NULL;
  return fn;
}

static void *vmm_alloc(size_t n) {
  CUresult (*granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags) =
      entry("cuMemGetAllocationGranularity");
  CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                     unsigned long long) = entry("cuMemCreate");
  CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long) =
      entry("cuMemAddressReserve");
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) =
      entry("cuMemMap");
  CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t) =
      entry("cuMemSetAccess");
  if (!granularity || !create || !reserve || !map || !access) return NULL;
  int device = 0;
  cudaGetDevice(&device);
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t g = 0;
  if (granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return NULL;
  vmm_size = (n + g - 1) / g * g;
  CUdeviceptr ptr = 0;
  if (create(&vmm_handle, vmm_size, &prop, 0) != CUDA_SUCCESS) return NULL;
  if (reserve(&ptr, vmm_size, 0, 0, 0) != CUDA_SUCCESS) return NULL;
  if (map(ptr, vmm_size, 0, vmm_handle, 0) != CUDA_SUCCESS) return NULL;
  CUmemAccessDesc desc;
  memset(&desc, 0, sizeof desc);
  desc.location = prop.location;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (access(ptr, vmm_size, &desc, 1) != CUDA_SUCCESS) return NULL;
  return (void *)ptr;
}

static void vmm_free(void *p) {
  CUresult (*unmap)(CUdeviceptr, size_t) = entry("cuMemUnmap");
  CUresult (*address_free)(CUdeviceptr, size_t) = entry("cuMemAddressFree");
  CUresult (*release)(CUmemGenericAllocationHandle) = entry("cuMemRelease");
  if (unmap) unmap((CUdeviceptr)p, vmm_size);
  if (address_free) address_free((CUdeviceptr)p, vmm_size);
  if (release) release(vmm_handle);
}

/* --- the other allocators --- */
static cudaMemPool_t shared_pool;

static void *plain_alloc(size_t n) {
  void *p = NULL;
  return cudaMalloc(&p, n) == cudaSuccess ? p : NULL;
}
static void plain_free(void *p) { cudaFree(p); }

static void *pool_alloc(size_t n) {
  int device = 0;
  cudaGetDevice(&device);
  struct cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  void *p = NULL;
  if (cudaMemPoolCreate(&shared_pool, &props) != cudaSuccess) return NULL;
  if (cudaMallocFromPoolAsync(&p, n, shared_pool, 0) != cudaSuccess) return NULL;
  return cudaStreamSynchronize(0) == cudaSuccess ? p : NULL;
}
static void pool_free(void *p) {
  cudaFreeAsync(p, 0);
  cudaStreamSynchronize(0);
  cudaMemPoolDestroy(shared_pool);
}

static void *async_alloc(size_t n) {
  void *p = NULL;
  if (cudaMallocAsync(&p, n, 0) != cudaSuccess) return NULL;
  return cudaStreamSynchronize(0) == cudaSuccess ? p : NULL;
}
static void async_free(void *p) {
  cudaFreeAsync(p, 0);
  cudaStreamSynchronize(0);
}

static void *managed_alloc(size_t n) {
  void *p = NULL;
  return cudaMallocManaged(&p, n, cudaMemAttachGlobal) == cudaSuccess ? p : NULL;
}

static void *pinned_alloc(size_t n) {
  void *p = NULL;
  return cudaMallocHost(&p, n) == cudaSuccess ? p : NULL;
}
static void pinned_free(void *p) { cudaFreeHost(p); }

struct allocator {
  const char *name;
  void *(*alloc)(size_t);
  void (*free)(void *);
};
static const struct allocator kAllocators[] = {
    {"cudaMalloc", plain_alloc, plain_free}, {"vmm", vmm_alloc, vmm_free},
    {"shared pool", pool_alloc, pool_free},  {"cudaMallocAsync", async_alloc, async_free},
    {"managed", managed_alloc, plain_free},  {"pinned host", pinned_alloc, pinned_free},
};

/* The even rank sends from `from`, the odd one receives into `to`. */
static void round_trip(int rank, const struct allocator *from, const struct allocator *to,
                       int seed) {
  int sender = rank % 2 == 0;
  const struct allocator *a = sender ? from : to;
  void *buf = a->alloc(kBytes);
  MTEST_CHECK(buf != NULL, "%s allocation", a->name);
  unsigned char *host = malloc(kBytes);
  if (sender) {
    for (size_t i = 0; i < kBytes; i++) host[i] = gpu_pattern(i, seed);
    if (buf) cudaMemcpy(buf, host, kBytes, cudaMemcpyDefault);
    MPI_Send(buf, kBytes, MPI_BYTE, rank ^ 1, 9, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, kBytes, MPI_BYTE, rank ^ 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (buf) cudaMemcpy(host, buf, kBytes, cudaMemcpyDefault);
    size_t bad = kBytes;
    for (size_t i = 0; i < kBytes && bad == kBytes; i++)
      if (host[i] != gpu_pattern(i, seed)) bad = i;
    MTEST_CHECK(bad == kBytes, "%s -> %s: byte %zu wrong", from->name, to->name, bad);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* the peer has read it before it is freed */
  if (buf) a->free(buf);
  free(host);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, local_rank, local_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (gpu_setup(&local_rank, &local_size) == 0) return gpu_skip();
  MTEST_CHECK(size % 2 == 0, "needs an even number of ranks, got %d", size);
  int n = (int)(sizeof kAllocators / sizeof kAllocators[0]);
  for (int k = 0; k < n; k++) {
    round_trip(rank, &kAllocators[k], &kAllocators[0], 2 * k);
    round_trip(rank, &kAllocators[0], &kAllocators[k], 2 * k + 1);
  }
  return mtest_finalize();
}
