#include "cuda/driver.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "runtime/base/log.h"

namespace gpurun::cuda {
namespace {

// The symbol cuda.h maps a call to ("cuMemGetAddressRange" -> "cuMemGetAddressRange_v2"):
// the argument is macro-expanded before it is turned into a string.
#define GPURUN_CU_NAME_(fn) #fn
#define GPURUN_CU_NAME(fn) GPURUN_CU_NAME_(fn)

// Looks entry points up; remembers the first required one that is missing.
struct Binder {
  void* library;
  std::string missing;

  template <class F>
  void bind(F& out, const char* symbol, bool required) {
    out = reinterpret_cast<F>(dlsym(library, symbol));
    if (out == nullptr && required && missing.empty()) missing = symbol;
  }
};

#define GPURUN_CU_BIND(field, fn) binder.bind(api.field, GPURUN_CU_NAME(fn), true)
#define GPURUN_CU_BIND_OPTIONAL(field, fn) binder.bind(api.field, GPURUN_CU_NAME(fn), false)

void bind_context_and_device(Binder& binder, DriverApi& api) {
  GPURUN_CU_BIND(init, cuInit);
  GPURUN_CU_BIND(driver_get_version, cuDriverGetVersion);
  GPURUN_CU_BIND(get_error_name, cuGetErrorName);
  GPURUN_CU_BIND(get_error_string, cuGetErrorString);
  GPURUN_CU_BIND(device_get_count, cuDeviceGetCount);
  GPURUN_CU_BIND(device_get, cuDeviceGet);
  GPURUN_CU_BIND(device_get_attribute, cuDeviceGetAttribute);
  GPURUN_CU_BIND(device_get_pci_bus_id, cuDeviceGetPCIBusId);
  GPURUN_CU_BIND(device_get_by_pci_bus_id, cuDeviceGetByPCIBusId);
  GPURUN_CU_BIND(device_can_access_peer, cuDeviceCanAccessPeer);
  GPURUN_CU_BIND(primary_ctx_retain, cuDevicePrimaryCtxRetain);
  GPURUN_CU_BIND(primary_ctx_release, cuDevicePrimaryCtxRelease);
  GPURUN_CU_BIND(primary_ctx_get_state, cuDevicePrimaryCtxGetState);
  GPURUN_CU_BIND(ctx_get_current, cuCtxGetCurrent);
  GPURUN_CU_BIND(ctx_set_current, cuCtxSetCurrent);
  GPURUN_CU_BIND(ctx_push_current, cuCtxPushCurrent);
  GPURUN_CU_BIND(ctx_pop_current, cuCtxPopCurrent);
  GPURUN_CU_BIND(ctx_get_device, cuCtxGetDevice);
  GPURUN_CU_BIND(ctx_enable_peer_access, cuCtxEnablePeerAccess);
}

void bind_memory_and_streams(Binder& binder, DriverApi& api) {
  GPURUN_CU_BIND(pointer_get_attribute, cuPointerGetAttribute);
  GPURUN_CU_BIND(pointer_get_attributes, cuPointerGetAttributes);
  GPURUN_CU_BIND(pointer_set_attribute, cuPointerSetAttribute);
  GPURUN_CU_BIND(mem_get_address_range, cuMemGetAddressRange);
  GPURUN_CU_BIND(mem_alloc, cuMemAlloc);
  GPURUN_CU_BIND(mem_free, cuMemFree);
  GPURUN_CU_BIND(mem_alloc_host, cuMemAllocHost);
  GPURUN_CU_BIND(mem_free_host, cuMemFreeHost);
  GPURUN_CU_BIND(mem_host_register, cuMemHostRegister);
  GPURUN_CU_BIND(mem_host_unregister, cuMemHostUnregister);
  GPURUN_CU_BIND(memcpy_async, cuMemcpyAsync);
  GPURUN_CU_BIND(memcpy_peer_async, cuMemcpyPeerAsync);
  GPURUN_CU_BIND(memset_d8_async, cuMemsetD8Async);
  GPURUN_CU_BIND(stream_create, cuStreamCreate);
  GPURUN_CU_BIND(stream_destroy, cuStreamDestroy);
  GPURUN_CU_BIND(stream_synchronize, cuStreamSynchronize);
  GPURUN_CU_BIND(stream_query, cuStreamQuery);
  GPURUN_CU_BIND(stream_wait_event, cuStreamWaitEvent);
  GPURUN_CU_BIND(stream_get_ctx, cuStreamGetCtx);
  GPURUN_CU_BIND(event_create, cuEventCreate);
  GPURUN_CU_BIND(event_destroy, cuEventDestroy);
  GPURUN_CU_BIND(event_record, cuEventRecord);
  GPURUN_CU_BIND(event_query, cuEventQuery);
  GPURUN_CU_BIND(event_synchronize, cuEventSynchronize);
  GPURUN_CU_BIND(ipc_get_mem_handle, cuIpcGetMemHandle);
  GPURUN_CU_BIND(ipc_open_mem_handle, cuIpcOpenMemHandle);
  GPURUN_CU_BIND(ipc_close_mem_handle, cuIpcCloseMemHandle);
  GPURUN_CU_BIND(ipc_get_event_handle, cuIpcGetEventHandle);
  GPURUN_CU_BIND(ipc_open_event_handle, cuIpcOpenEventHandle);
}

void bind_optional(Binder& binder, DriverApi& api) {
  GPURUN_CU_BIND_OPTIONAL(mem_create, cuMemCreate);
  GPURUN_CU_BIND_OPTIONAL(mem_release, cuMemRelease);
  GPURUN_CU_BIND_OPTIONAL(mem_address_reserve, cuMemAddressReserve);
  GPURUN_CU_BIND_OPTIONAL(mem_address_free, cuMemAddressFree);
  GPURUN_CU_BIND_OPTIONAL(mem_map, cuMemMap);
  GPURUN_CU_BIND_OPTIONAL(mem_unmap, cuMemUnmap);
  GPURUN_CU_BIND_OPTIONAL(mem_set_access, cuMemSetAccess);
  GPURUN_CU_BIND_OPTIONAL(mem_get_allocation_granularity, cuMemGetAllocationGranularity);
  GPURUN_CU_BIND_OPTIONAL(mem_retain_allocation_handle, cuMemRetainAllocationHandle);
  GPURUN_CU_BIND_OPTIONAL(mem_get_allocation_properties, cuMemGetAllocationPropertiesFromHandle);
  GPURUN_CU_BIND_OPTIONAL(mem_export_to_shareable_handle, cuMemExportToShareableHandle);
  GPURUN_CU_BIND_OPTIONAL(mem_import_from_shareable_handle, cuMemImportFromShareableHandle);
  GPURUN_CU_BIND_OPTIONAL(mem_alloc_async, cuMemAllocAsync);
  GPURUN_CU_BIND_OPTIONAL(mem_free_async, cuMemFreeAsync);
  GPURUN_CU_BIND_OPTIONAL(device_get_default_mem_pool, cuDeviceGetDefaultMemPool);
  GPURUN_CU_BIND_OPTIONAL(mem_pool_set_access, cuMemPoolSetAccess);
  GPURUN_CU_BIND_OPTIONAL(mem_pool_export_to_shareable_handle, cuMemPoolExportToShareableHandle);
  GPURUN_CU_BIND_OPTIONAL(mem_pool_import_from_shareable_handle,
                          cuMemPoolImportFromShareableHandle);
  GPURUN_CU_BIND_OPTIONAL(mem_pool_export_pointer, cuMemPoolExportPointer);
  GPURUN_CU_BIND_OPTIONAL(mem_pool_import_pointer, cuMemPoolImportPointer);
  GPURUN_CU_BIND_OPTIONAL(mem_host_alloc, cuMemHostAlloc);
  GPURUN_CU_BIND_OPTIONAL(mem_host_get_device_pointer, cuMemHostGetDevicePointer);
  GPURUN_CU_BIND_OPTIONAL(stream_write_value32, cuStreamWriteValue32);
  GPURUN_CU_BIND_OPTIONAL(stream_wait_value32, cuStreamWaitValue32);
  GPURUN_CU_BIND_OPTIONAL(launch_host_func, cuLaunchHostFunc);
  GPURUN_CU_BIND_OPTIONAL(stream_is_capturing, cuStreamIsCapturing);
}

#undef GPURUN_CU_BIND
#undef GPURUN_CU_BIND_OPTIONAL

// The file the loader took `symbol` from (the stub's path tells users what happened).
std::string file_of(void* symbol) {
  Dl_info info{};
  if (symbol != nullptr && dladdr(symbol, &info) != 0 && info.dli_fname != nullptr)
    return info.dli_fname;
  return "?";
}

std::string code_text(const DriverApi& api, CUresult rc) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.get_error_name == nullptr || api.get_error_name(rc, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (api.get_error_string == nullptr || api.get_error_string(rc, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = name != nullptr ? name : "CUDA error";
  out += " (" + std::to_string(static_cast<int>(rc)) + ")";
  if (text != nullptr) out += std::string(": ") + text;
  return out;
}

}  // namespace

std::string_view availability_name(Availability availability) {
  switch (availability) {
    case Availability::kUsable:
      return "usable";
    case Availability::kDisabled:
      return "disabled";
    case Availability::kNoDriver:
      return "no driver";
    case Availability::kStub:
      return "stub library";
    case Availability::kTooOld:
      return "driver too old";
    case Availability::kInitFailed:
      return "cuInit failed";
    case Availability::kNoDevice:
      return "no device";
  }
  return "?";
}

Driver::Driver(const DriverOptions& options) {
  if (options.mode == Mode::kOff) {
    refuse(Availability::kDisabled, "disabled by GPURUN_CUDA=off");
    return;
  }
  load(options);
}

void Driver::refuse(Availability availability, std::string reason) {
  availability_ = availability;
  reason_ = std::string(availability_name(availability)) + ": " + std::move(reason);
}

void Driver::load(const DriverOptions& options) {
  library_ = dlopen(options.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    refuse(Availability::kNoDriver, "cannot load " + options.library + " (" +
                                        (why != nullptr ? why : "unknown error") +
                                        "): no NVIDIA driver on this machine");
    return;
  }
  Binder binder{library_, {}};
  bind_context_and_device(binder, api_);
  bind_memory_and_streams(binder, api_);
  bind_optional(binder, api_);
  if (!binder.missing.empty()) {
    refuse(Availability::kTooOld, file_of(reinterpret_cast<void*>(api_.init)) + " has no " +
                                      binder.missing + "; update the NVIDIA driver");
    return;
  }
  start();
}

void Driver::start() {
  ++calls_;
  CUresult rc = api_.init(0);
  if (rc == CUDA_ERROR_STUB_LIBRARY) {
    refuse(Availability::kStub, file_of(reinterpret_cast<void*>(api_.init)) +
                                    " is the CUDA toolkit's link stub, not a driver; install "
                                    "the NVIDIA driver or take the stubs directory off "
                                    "LD_LIBRARY_PATH");
    return;
  }
  if (rc != CUDA_SUCCESS) {
    refuse(Availability::kInitFailed, "cuInit: " + code_text(api_, rc));
    return;
  }
  ++calls_;
  if (api_.driver_get_version(&version_) != CUDA_SUCCESS) version_ = 0;
  ++calls_;
  rc = api_.device_get_count(&device_count_);
  if (rc != CUDA_SUCCESS || device_count_ <= 0) {
    device_count_ = 0;
    refuse(Availability::kNoDevice,
           rc != CUDA_SUCCESS ? "cuDeviceGetCount: " + code_text(api_, rc) : "no CUDA device");
    return;
  }
  availability_ = Availability::kUsable;
  reason_.clear();
}

const Driver& Driver::process() {
  static const Driver* driver =
      new Driver(DriverOptions{.mode = params::mode().get(), .library = params::library().get()});
  return *driver;
}

void log_availability(const Driver& d) {
  if (d.usable()) {
    GPURUN_LOG(info, cuda, "cuda usable: driver %d.%d, devices %d%s", d.version() / 1000,
               d.version() % 1000 / 10, d.device_count(),
               d.kernels_usable()
                   ? ""
                   : ", kernels unusable (a driver of an older major version than the toolkit)");
  } else {
    GPURUN_LOG(info, cuda, "cuda unusable: %s", d.reason().c_str());
  }
}

Status driver_error(const DriverApi& api, std::string_view what, CUresult rc) {
  return Status(ErrorCode::kIo, std::string(what) + ": " + code_text(api, rc));
}

}  // namespace gpurun::cuda
