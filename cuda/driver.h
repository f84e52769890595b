// The CUDA driver, loaded at run time: gpurun links the CUDA runtime statically and never
// links libcuda, so one build runs on machines with and without a GPU or driver. The driver
// library is opened with dlopen and its entry points are looked up by name (the versioned
// names cuda.h maps each call to, so the types below are exactly the header's).
//
// A Driver that is not usable hands out no entry points (api() is null), so code that holds
// none cannot make a CUDA call: with GPURUN_CUDA=off, without a driver, with the toolkit's
// stub library or without a device, gpurun makes no CUDA call beyond the one that found out.
// No context is created here: loading calls cuInit, cuDriverGetVersion and cuDeviceGetCount
// only.
//
// Thread-safety: a Driver is immutable after construction; process() is thread-safe.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "cuda/params.h"
#include "runtime/base/status.h"

namespace gpurun::cuda {

// The entry points gpurun (cuda/ and the cuda_ipc transport) calls. On a usable driver every
// field is set except those under "optional", which drivers older than the header may lack
// (they are null then: check before calling).
struct DriverApi {
  decltype(&::cuInit) init;
  decltype(&::cuDriverGetVersion) driver_get_version;
  decltype(&::cuGetErrorName) get_error_name;
  decltype(&::cuGetErrorString) get_error_string;
  decltype(&::cuDeviceGetCount) device_get_count;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDeviceGetAttribute) device_get_attribute;
  decltype(&::cuDeviceGetPCIBusId) device_get_pci_bus_id;
  decltype(&::cuDeviceGetByPCIBusId) device_get_by_pci_bus_id;
  decltype(&::cuDeviceCanAccessPeer) device_can_access_peer;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain;
  decltype(&::cuDevicePrimaryCtxRelease) primary_ctx_release;
  decltype(&::cuDevicePrimaryCtxGetState) primary_ctx_get_state;
  decltype(&::cuCtxGetCurrent) ctx_get_current;
  decltype(&::cuCtxSetCurrent) ctx_set_current;
  decltype(&::cuCtxPushCurrent) ctx_push_current;
  decltype(&::cuCtxPopCurrent) ctx_pop_current;
  decltype(&::cuCtxGetDevice) ctx_get_device;
  decltype(&::cuCtxEnablePeerAccess) ctx_enable_peer_access;
  decltype(&::cuPointerGetAttribute) pointer_get_attribute;
  decltype(&::cuPointerGetAttributes) pointer_get_attributes;
  decltype(&::cuPointerSetAttribute) pointer_set_attribute;
  decltype(&::cuMemGetAddressRange) mem_get_address_range;
  decltype(&::cuMemAlloc) mem_alloc;
  decltype(&::cuMemFree) mem_free;
  decltype(&::cuMemAllocHost) mem_alloc_host;
  decltype(&::cuMemFreeHost) mem_free_host;
  decltype(&::cuMemHostRegister) mem_host_register;
  decltype(&::cuMemHostUnregister) mem_host_unregister;
  decltype(&::cuMemcpyAsync) memcpy_async;
  decltype(&::cuMemcpyPeerAsync) memcpy_peer_async;
  decltype(&::cuMemsetD8Async) memset_d8_async;
  decltype(&::cuStreamCreate) stream_create;
  decltype(&::cuStreamDestroy) stream_destroy;
  decltype(&::cuStreamSynchronize) stream_synchronize;
  decltype(&::cuStreamQuery) stream_query;
  decltype(&::cuStreamWaitEvent) stream_wait_event;
  decltype(&::cuStreamGetCtx) stream_get_ctx;
  decltype(&::cuEventCreate) event_create;
  decltype(&::cuEventDestroy) event_destroy;
  decltype(&::cuEventRecord) event_record;
  decltype(&::cuEventQuery) event_query;
  decltype(&::cuEventSynchronize) event_synchronize;
  decltype(&::cuIpcGetMemHandle) ipc_get_mem_handle;
  decltype(&::cuIpcOpenMemHandle) ipc_open_mem_handle;
  decltype(&::cuIpcCloseMemHandle) ipc_close_mem_handle;
  decltype(&::cuIpcGetEventHandle) ipc_get_event_handle;
  decltype(&::cuIpcOpenEventHandle) ipc_open_event_handle;
  // ---- optional: virtual memory management (CUDA 10.2) and stream-ordered pools (11.2) ----
  decltype(&::cuMemCreate) mem_create;
  decltype(&::cuMemRelease) mem_release;
  decltype(&::cuMemAddressReserve) mem_address_reserve;
  decltype(&::cuMemAddressFree) mem_address_free;
  decltype(&::cuMemMap) mem_map;
  decltype(&::cuMemUnmap) mem_unmap;
  decltype(&::cuMemSetAccess) mem_set_access;
  decltype(&::cuMemGetAllocationGranularity) mem_get_allocation_granularity;
  decltype(&::cuMemRetainAllocationHandle) mem_retain_allocation_handle;
  decltype(&::cuMemGetAllocationPropertiesFromHandle) mem_get_allocation_properties;
  decltype(&::cuMemExportToShareableHandle) mem_export_to_shareable_handle;
  decltype(&::cuMemImportFromShareableHandle) mem_import_from_shareable_handle;
  decltype(&::cuMemAllocAsync) mem_alloc_async;
  decltype(&::cuMemFreeAsync) mem_free_async;
  decltype(&::cuDeviceGetDefaultMemPool) device_get_default_mem_pool;
  decltype(&::cuMemPoolSetAccess) mem_pool_set_access;
  decltype(&::cuMemPoolExportToShareableHandle) mem_pool_export_to_shareable_handle;
  decltype(&::cuMemPoolImportFromShareableHandle) mem_pool_import_from_shareable_handle;
  decltype(&::cuMemPoolExportPointer) mem_pool_export_pointer;
  decltype(&::cuMemPoolImportPointer) mem_pool_import_pointer;
  // ---- optional: what enqueued operations order streams with (cuda/stream.h) ----
  decltype(&::cuMemHostAlloc) mem_host_alloc;
  decltype(&::cuMemHostGetDevicePointer) mem_host_get_device_pointer;
  decltype(&::cuStreamWriteValue32) stream_write_value32;
  decltype(&::cuStreamWaitValue32) stream_wait_value32;
  decltype(&::cuLaunchHostFunc) launch_host_func;
  decltype(&::cuStreamIsCapturing) stream_is_capturing;
};

// Why CUDA is usable or not.
enum class Availability : std::uint8_t {
  kUsable,
  kDisabled,    // GPURUN_CUDA=off
  kNoDriver,    // the library cannot be loaded
  kStub,        // the toolkit's link stub stands in for the driver (CUDA_ERROR_STUB_LIBRARY)
  kTooOld,      // the library lacks a required entry point
  kInitFailed,  // cuInit failed otherwise (CUDA_ERROR_NO_DEVICE included)
  kNoDevice,    // cuInit worked but there is no device
};
std::string_view availability_name(Availability availability);

struct DriverOptions {
  Mode mode = Mode::kAuto;
  std::string library = "libcuda.so.1";  // a name the loader searches, or a path
};

class Driver {
 public:
  // Loads the driver as `options` say (never when the mode is off). Never fails: an unusable
  // driver says why. The library stays loaded for the life of the process (the CUDA runtime
  // may hold it too).
  explicit Driver(const DriverOptions& options);
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  bool usable() const { return availability_ == Availability::kUsable; }
  Availability availability() const { return availability_; }
  // Why CUDA is unusable, in words for a log line (empty when usable).
  const std::string& reason() const { return reason_; }
  // The entry points, or nullptr when unusable.
  const DriverApi* api() const { return usable() ? &api_ : nullptr; }
  int device_count() const { return device_count_; }
  int version() const { return version_; }  // cuDriverGetVersion (13000 for 13.0); 0: unknown
  // Whether the kernels of this build can run: the CUDA runtime linked into gpurun needs a
  // driver of the toolkit's major version or newer (CUDA's minor version compatibility: a 13.2
  // build runs on a 13.0 driver, a 13.x build on no 12.x one).
  bool kernels_usable() const { return usable() && kernels_run_on(version_); }
  static bool kernels_run_on(int driver_version) {
    return driver_version / 1000 >= CUDA_VERSION / 1000;
  }
  // Driver calls made while loading (cuInit, cuDriverGetVersion, cuDeviceGetCount).
  int calls_made() const { return calls_; }
  // Whether the library was opened at all.
  bool loaded() const { return library_ != nullptr; }

  // The process's driver, loaded on first use as GPURUN_CUDA and GPURUN_CUDA_LIBRARY say.
  static const Driver& process();

 private:
  void load(const DriverOptions& options);
  void start();
  void refuse(Availability availability, std::string reason);

  DriverApi api_{};
  void* library_ = nullptr;
  Availability availability_ = Availability::kNoDriver;
  std::string reason_;
  int device_count_ = 0;
  int version_ = 0;
  int calls_ = 0;
};

// Logs (info, subsystem cuda) whether `driver` is usable, and why not. MPI_Init calls it once
// (through create_accelerator), after logging is configured.
void log_availability(const Driver& driver);

// The Status of a failed driver call: kIo, "<what>: CUDA_ERROR_NAME (rc): description".
Status driver_error(const DriverApi& api, std::string_view what, CUresult rc);

}  // namespace gpurun::cuda
