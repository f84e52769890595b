/* A stand-in for libcuda.so.1 of an older driver, for the cuda_ipc loader's test
 * (ipc_old_driver_test.cc): it says it is CUDA 12.4 and, like a real driver, its
 * cuGetProcAddress finds nothing when asked for a newer CUDA version than its own. It has one
 * device and no memory; every entry point but the few below is unknown to it. */
#include <cuda.h>
#include <string.h>

enum { kVersion = 12040 };

CUresult cuDriverGetVersion(int *version) {
  *version = kVersion;
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_SUCCESS;
}

static CUresult device_count(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  (void)error;
  *name = "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  (void)error;
  *text = "an error of the fake CUDA 12.4 driver";
  return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status) {
  (void)flags;
  *pfn = NULL;
  if (cuda_version > kVersion) {
    if (status) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (strcmp(symbol, "cuInit") == 0) *pfn = (void *)cuInit;
  if (strcmp(symbol, "cuDeviceGetCount") == 0) *pfn = (void *)device_count;
  if (strcmp(symbol, "cuGetErrorName") == 0) *pfn = (void *)cuGetErrorName;
  if (strcmp(symbol, "cuGetErrorString") == 0) *pfn = (void *)cuGetErrorString;
  if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
