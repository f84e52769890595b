// The CUDA driver calls that the cuda_ipc transport makes, behind an interface of its own so
// that unit tests can stand a fake GPU in for the driver. The real implementation looks every
// entry point up at run time in libcuda.so.1 (never linked: the same library runs where no
// driver exists). Types and constants come from the toolkit's <cuda.h>.
//
// Each method mirrors one driver call (named after it) and returns its CUresult; outputs are
// written only on CUDA_SUCCESS. Thread-safety is the driver's: every call may be made from any
// thread.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::cuda::ipc {

// What the driver says about a pointer (one cuPointerGetAttributes call).
struct PointerAttributes {
  CUmemorytype memory_type{};  // 0: not a pointer the driver knows
  bool managed = false;
  std::uint64_t buffer_id = 0;  // process-wide unique per allocation; 0 when unknown
  int device = -1;              // ordinal of the owning device
  CUdeviceptr range_start = 0;  // the allocation (cudaMalloc) or mapping (VMM) holding ptr
  std::size_t range_size = 0;
  bool legacy_ipc_capable = false;         // cuIpcGetMemHandle works on it
  std::uint64_t allowed_handle_types = 0;  // CUmemAllocationHandleType bits (VMM allocations)
  CUmemoryPool pool = nullptr;             // the stream-ordered pool it came from, if any
  CUcontext context = nullptr;             // the context it was allocated in (null for VMM/pools)
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual std::string error_string(CUresult result) = 0;

  // --- pointers, devices, contexts ---
  virtual CUresult pointer_attributes(CUdeviceptr ptr, PointerAttributes* out) = 0;
  // The mapped allocation holding `ptr` (for VMM memory, not the reservation around it).
  virtual CUresult mem_get_address_range(CUdeviceptr* base, std::size_t* size, CUdeviceptr ptr) = 0;
  virtual CUresult device_get(CUdevice* device, int ordinal) = 0;
  virtual CUresult device_get_count(int* count) = 0;
  virtual CUresult device_get_uuid(CUuuid* uuid, CUdevice device) = 0;
  virtual CUresult device_can_access_peer(int* can, CUdevice device, CUdevice peer) = 0;
  virtual CUresult device_primary_ctx_retain(CUcontext* ctx, CUdevice device) = 0;
  virtual CUresult device_primary_ctx_release(CUdevice device) = 0;
  virtual CUresult ctx_get_current(CUcontext* ctx) = 0;
  virtual CUresult ctx_push_current(CUcontext ctx) = 0;
  virtual CUresult ctx_pop_current() = 0;
  virtual CUresult ctx_get_device(CUdevice* device) = 0;

  // --- legacy IPC (cudaMalloc memory) ---
  virtual CUresult ipc_get_mem_handle(CUipcMemHandle* handle, CUdeviceptr ptr) = 0;
  virtual CUresult ipc_open_mem_handle(CUdeviceptr* ptr, CUipcMemHandle handle, unsigned flags) = 0;
  virtual CUresult ipc_close_mem_handle(CUdeviceptr ptr) = 0;

  // --- virtual memory management (cuMemCreate allocations) ---
  virtual CUresult mem_retain_allocation_handle(CUmemGenericAllocationHandle* handle,
                                                void* addr) = 0;
  virtual CUresult mem_export_to_fd(int* fd, CUmemGenericAllocationHandle handle) = 0;
  virtual CUresult mem_import_from_fd(CUmemGenericAllocationHandle* handle, int fd) = 0;
  virtual CUresult mem_release(CUmemGenericAllocationHandle handle) = 0;
  virtual CUresult mem_address_reserve(CUdeviceptr* ptr, std::size_t size) = 0;
  virtual CUresult mem_address_free(CUdeviceptr ptr, std::size_t size) = 0;
  virtual CUresult mem_map(CUdeviceptr ptr, std::size_t size,
                           CUmemGenericAllocationHandle handle) = 0;
  virtual CUresult mem_unmap(CUdeviceptr ptr, std::size_t size) = 0;
  // Read-write access to [ptr, ptr + size) from `device`.
  virtual CUresult mem_set_access(CUdeviceptr ptr, std::size_t size, CUdevice device) = 0;

  // --- stream-ordered pools (cudaMallocAsync memory) ---
  virtual CUresult mem_pool_export_to_fd(int* fd, CUmemoryPool pool) = 0;
  virtual CUresult mem_pool_import_from_fd(CUmemoryPool* pool, int fd) = 0;
  virtual CUresult mem_pool_export_pointer(CUmemPoolPtrExportData* data, CUdeviceptr ptr) = 0;
  virtual CUresult mem_pool_import_pointer(CUdeviceptr* ptr, CUmemoryPool pool,
                                           CUmemPoolPtrExportData* data) = 0;
  // Read-write access to the pool's memory from `device`.
  virtual CUresult mem_pool_set_access(CUmemoryPool pool, CUdevice device) = 0;
  virtual CUresult mem_pool_destroy(CUmemoryPool pool) = 0;
  virtual CUresult mem_free(CUdeviceptr ptr) = 0;

  // --- copies ---
  virtual CUresult stream_create(CUstream* stream) = 0;  // CU_STREAM_NON_BLOCKING
  virtual CUresult stream_destroy(CUstream stream) = 0;
  virtual CUresult stream_synchronize(CUstream stream) = 0;
  virtual CUresult event_create(CUevent* event) = 0;  // CU_EVENT_DISABLE_TIMING
  virtual CUresult event_destroy(CUevent event) = 0;
  virtual CUresult event_record(CUevent event, CUstream stream) = 0;
  virtual CUresult event_query(CUevent event) = 0;  // CUDA_ERROR_NOT_READY while pending
  virtual CUresult event_synchronize(CUevent event) = 0;
  virtual CUresult memcpy_async(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                                CUstream stream) = 0;
  virtual CUresult mem_host_alloc(void** ptr, std::size_t bytes) = 0;  // pinned, portable
  virtual CUresult mem_free_host(void* ptr) = 0;
};

// The driver of this machine: libcuda.so.1 loaded and cuInit'ed on first call (thread-safe).
// kUnsupported, with the reason, when there is no usable driver (no library, a stub, no
// device); the answer is the same for the life of the process.
Result<Driver*> system_driver();

// "cuIpcOpenMemHandle: CUDA_ERROR_INVALID_VALUE (invalid argument)" as a Status (kIo), for
// errors the caller reports.
Status cuda_status(Driver& driver, const char* call, CUresult result);

}  // namespace gpurun::cuda::ipc
