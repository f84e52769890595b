// The real Driver: entry points of libcuda.so.1 looked up at run time with cuGetProcAddress,
// at the versions of the toolkit this was built with, or of the driver where it is older (asked
// for a version newer than its own, cuGetProcAddress finds nothing; every call used here kept
// its form from CUDA 12.0 on). No -lcuda: where no driver exists, nothing breaks at start.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include "cuda/ipc/driver.h"
#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {
namespace {

// Every entry point used, by its base name (cuda.h maps some names to _v2 versions: decltype
// follows the mapping, the looked-up name does not).
// clang-format off
#define GPURUN_CUDA_ENTRY_POINTS(X)                                                                \
  X(cuInit) X(cuGetErrorString) X(cuGetErrorName) X(cuPointerGetAttributes) X(cuMemGetAddressRange) X(cuDeviceGet)         \
  X(cuDeviceGetCount) X(cuDeviceGetUuid) X(cuDeviceCanAccessPeer) X(cuDevicePrimaryCtxRetain)      \
  X(cuDevicePrimaryCtxRelease) X(cuCtxGetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent)           \
  X(cuCtxGetDevice) X(cuIpcGetMemHandle) X(cuIpcOpenMemHandle) X(cuIpcCloseMemHandle)              \
  X(cuMemRetainAllocationHandle) X(cuMemExportToShareableHandle)                                   \
  X(cuMemImportFromShareableHandle) X(cuMemRelease) X(cuMemAddressReserve) X(cuMemAddressFree)     \
  X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess) X(cuMemPoolExportToShareableHandle)                  \
  X(cuMemPoolImportFromShareableHandle) X(cuMemPoolExportPointer) X(cuMemPoolImportPointer)        \
  X(cuMemPoolSetAccess) X(cuMemPoolDestroy) X(cuMemFree) X(cuStreamCreate) X(cuStreamDestroy)      \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery)       \
  X(cuEventSynchronize) X(cuMemcpyAsync) X(cuMemHostAlloc) X(cuMemFreeHost)
// clang-format on

struct EntryPoints {
#define GPURUN_DECLARE_ENTRY(f) decltype(&::f) f##_ = nullptr;
  GPURUN_CUDA_ENTRY_POINTS(GPURUN_DECLARE_ENTRY)
#undef GPURUN_DECLARE_ENTRY
};

// A missing entry point (a driver older than the call) answers "not supported".
#define GPURUN_CALL(f, ...) (e_.f##_ != nullptr ? e_.f##_(__VA_ARGS__) : CUDA_ERROR_NOT_SUPPORTED)

CUmemAccessDesc access_for(CUdevice device) {
  CUmemAccessDesc desc{};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = device;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return desc;
}

class DlDriver final : public Driver {
 public:
  explicit DlDriver(EntryPoints e) : e_(e) {}

  std::string error_string(CUresult result) override {
    const char* name = nullptr;
    const char* text = nullptr;
    if (e_.cuGetErrorName_) e_.cuGetErrorName_(result, &name);
    if (e_.cuGetErrorString_) e_.cuGetErrorString_(result, &text);
    if (name == nullptr && result == CUDA_ERROR_STUB_LIBRARY)
      return "CUDA_ERROR_STUB_LIBRARY (the toolkit's stub libcuda.so stands in for a driver)";
    std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
    if (text) out += std::string(" (") + text + ")";
    return out;
  }

  CUresult pointer_attributes(CUdeviceptr ptr, PointerAttributes* out) override;

  CUresult device_get(CUdevice* d, int ordinal) override {
    return GPURUN_CALL(cuDeviceGet, d, ordinal);
  }
  CUresult device_get_count(int* n) override { return GPURUN_CALL(cuDeviceGetCount, n); }
  CUresult device_get_uuid(CUuuid* u, CUdevice d) override {
    return GPURUN_CALL(cuDeviceGetUuid, u, d);
  }
  CUresult device_can_access_peer(int* can, CUdevice d, CUdevice p) override {
    return GPURUN_CALL(cuDeviceCanAccessPeer, can, d, p);
  }
  CUresult device_primary_ctx_retain(CUcontext* c, CUdevice d) override {
    return GPURUN_CALL(cuDevicePrimaryCtxRetain, c, d);
  }
  CUresult device_primary_ctx_release(CUdevice d) override {
    return GPURUN_CALL(cuDevicePrimaryCtxRelease, d);
  }
  CUresult ctx_get_current(CUcontext* c) override { return GPURUN_CALL(cuCtxGetCurrent, c); }
  CUresult ctx_push_current(CUcontext c) override { return GPURUN_CALL(cuCtxPushCurrent, c); }
  CUresult ctx_pop_current() override {
    CUcontext popped = nullptr;
    return GPURUN_CALL(cuCtxPopCurrent, &popped);
  }
  CUresult ctx_get_device(CUdevice* d) override { return GPURUN_CALL(cuCtxGetDevice, d); }

  CUresult ipc_get_mem_handle(CUipcMemHandle* h, CUdeviceptr p) override {
    return GPURUN_CALL(cuIpcGetMemHandle, h, p);
  }
  CUresult ipc_open_mem_handle(CUdeviceptr* p, CUipcMemHandle h, unsigned flags) override {
    return GPURUN_CALL(cuIpcOpenMemHandle, p, h, flags);
  }
  CUresult ipc_close_mem_handle(CUdeviceptr p) override {
    return GPURUN_CALL(cuIpcCloseMemHandle, p);
  }

  CUresult mem_get_address_range(CUdeviceptr* base, std::size_t* size, CUdeviceptr p) override {
    return GPURUN_CALL(cuMemGetAddressRange, base, size, p);
  }
  CUresult mem_retain_allocation_handle(CUmemGenericAllocationHandle* h, void* a) override {
    return GPURUN_CALL(cuMemRetainAllocationHandle, h, a);
  }
  CUresult mem_export_to_fd(int* fd, CUmemGenericAllocationHandle h) override {
    return GPURUN_CALL(cuMemExportToShareableHandle, fd, h,
                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  }
  CUresult mem_import_from_fd(CUmemGenericAllocationHandle* h, int fd) override {
    return GPURUN_CALL(cuMemImportFromShareableHandle, h,
                       reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  }
  CUresult mem_release(CUmemGenericAllocationHandle h) override {
    return GPURUN_CALL(cuMemRelease, h);
  }
  CUresult mem_address_reserve(CUdeviceptr* p, std::size_t size) override {
    return GPURUN_CALL(cuMemAddressReserve, p, size, 0, 0, 0);
  }
  CUresult mem_address_free(CUdeviceptr p, std::size_t size) override {
    return GPURUN_CALL(cuMemAddressFree, p, size);
  }
  CUresult mem_map(CUdeviceptr p, std::size_t size, CUmemGenericAllocationHandle h) override {
    return GPURUN_CALL(cuMemMap, p, size, 0, h, 0);
  }
  CUresult mem_unmap(CUdeviceptr p, std::size_t size) override {
    return GPURUN_CALL(cuMemUnmap, p, size);
  }
  CUresult mem_set_access(CUdeviceptr p, std::size_t size, CUdevice d) override {
    CUmemAccessDesc desc = access_for(d);
    return GPURUN_CALL(cuMemSetAccess, p, size, &desc, 1);
  }

  CUresult mem_pool_export_to_fd(int* fd, CUmemoryPool pool) override {
    return GPURUN_CALL(cuMemPoolExportToShareableHandle, fd, pool,
                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  }
  CUresult mem_pool_import_from_fd(CUmemoryPool* pool, int fd) override {
    return GPURUN_CALL(cuMemPoolImportFromShareableHandle, pool,
                       reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  }
  CUresult mem_pool_export_pointer(CUmemPoolPtrExportData* d, CUdeviceptr p) override {
    return GPURUN_CALL(cuMemPoolExportPointer, d, p);
  }
  CUresult mem_pool_import_pointer(CUdeviceptr* p, CUmemoryPool pool,
                                   CUmemPoolPtrExportData* d) override {
    return GPURUN_CALL(cuMemPoolImportPointer, p, pool, d);
  }
  CUresult mem_pool_set_access(CUmemoryPool pool, CUdevice d) override {
    CUmemAccessDesc desc = access_for(d);
    return GPURUN_CALL(cuMemPoolSetAccess, pool, &desc, 1);
  }
  CUresult mem_pool_destroy(CUmemoryPool pool) override {
    return GPURUN_CALL(cuMemPoolDestroy, pool);
  }
  CUresult mem_free(CUdeviceptr p) override { return GPURUN_CALL(cuMemFree, p); }

  CUresult stream_create(CUstream* s) override {
    return GPURUN_CALL(cuStreamCreate, s, CU_STREAM_NON_BLOCKING);
  }
  CUresult stream_destroy(CUstream s) override { return GPURUN_CALL(cuStreamDestroy, s); }
  CUresult stream_synchronize(CUstream s) override { return GPURUN_CALL(cuStreamSynchronize, s); }
  CUresult event_create(CUevent* e) override {
    return GPURUN_CALL(cuEventCreate, e, CU_EVENT_DISABLE_TIMING);
  }
  CUresult event_destroy(CUevent e) override { return GPURUN_CALL(cuEventDestroy, e); }
  CUresult event_record(CUevent e, CUstream s) override { return GPURUN_CALL(cuEventRecord, e, s); }
  CUresult event_query(CUevent e) override { return GPURUN_CALL(cuEventQuery, e); }
  CUresult event_synchronize(CUevent e) override { return GPURUN_CALL(cuEventSynchronize, e); }
  CUresult memcpy_async(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream s) override {
    return GPURUN_CALL(cuMemcpyAsync, dst, src, n, s);
  }
  CUresult mem_host_alloc(void** p, std::size_t n) override {
    return GPURUN_CALL(cuMemHostAlloc, p, n, CU_MEMHOSTALLOC_PORTABLE);
  }
  CUresult mem_free_host(void* p) override { return GPURUN_CALL(cuMemFreeHost, p); }

 private:
  EntryPoints e_;
};

CUresult DlDriver::pointer_attributes(CUdeviceptr ptr, PointerAttributes* out) {
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                 CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
                                 CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
                                 CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
                                 CU_POINTER_ATTRIBUTE_CONTEXT};
  constexpr unsigned kCount = sizeof attrs / sizeof attrs[0];
  // Zeroed 8-byte cells: each attribute writes its own width (1, 4 or 8 bytes).
  unsigned long long cells[kCount] = {};
  void* data[kCount];
  for (unsigned i = 0; i < kCount; ++i) data[i] = &cells[i];
  CUresult r = GPURUN_CALL(cuPointerGetAttributes, kCount, attrs, data, ptr);
  if (r != CUDA_SUCCESS) return r;
  PointerAttributes a;
  a.memory_type = static_cast<CUmemorytype>(static_cast<unsigned>(cells[0]));
  a.managed = static_cast<std::uint32_t>(cells[1]) != 0;
  a.buffer_id = cells[2];
  a.device = static_cast<std::int32_t>(static_cast<std::uint32_t>(cells[3]));
  a.range_start = static_cast<CUdeviceptr>(cells[4]);
  a.range_size = static_cast<std::size_t>(cells[5]);
  a.legacy_ipc_capable = static_cast<std::uint32_t>(cells[6]) != 0;
  a.allowed_handle_types = cells[7];
  std::memcpy(&a.pool, &cells[8], sizeof a.pool);
  std::memcpy(&a.context, &cells[9], sizeof a.context);
  *out = a;
  return CUDA_SUCCESS;
}

#undef GPURUN_CALL

// The CUDA version to look entry points up at: the toolkit's, or the driver's where it is older
// (but at least 12.0). A driver that cannot tell (the toolkit's stub) is asked at the toolkit's,
// and its cuInit then says what it is.
Result<int> lookup_version(void* lib) {
  auto get_version =
      reinterpret_cast<decltype(&::cuDriverGetVersion)>(dlsym(lib, "cuDriverGetVersion"));
  int driver = 0;
  if (get_version == nullptr || get_version(&driver) != CUDA_SUCCESS || driver <= 0)
    return CUDA_VERSION;
  if (driver < 12000)
    return Status(ErrorCode::kUnsupported, "the CUDA driver is older than CUDA 12 (it is " +
                                               std::to_string(driver / 1000) + "." +
                                               std::to_string(driver % 1000 / 10) + ")");
  return std::min(driver, CUDA_VERSION);
}

Result<Driver*> load() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr)
    return Status(ErrorCode::kUnsupported, std::string("no CUDA driver: ") + dlerror());
  auto get_proc =
      reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(dlsym(lib, "cuGetProcAddress_v2"));
  if (get_proc == nullptr)
    return Status(ErrorCode::kUnsupported,
                  "the CUDA driver is older than CUDA 12 (no cuGetProcAddress_v2)");
  Result<int> version = lookup_version(lib);
  if (!version.ok()) return version.status();
  EntryPoints e;
#define GPURUN_LOOKUP_ENTRY(f)                                                              \
  {                                                                                         \
    void* fn = nullptr;                                                                     \
    CUdriverProcAddressQueryResult found{};                                                 \
    if (get_proc(#f, &fn, *version, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS && \
        found == CU_GET_PROC_ADDRESS_SUCCESS)                                               \
      e.f##_ = reinterpret_cast<decltype(e.f##_)>(fn);                                      \
  }
  GPURUN_CUDA_ENTRY_POINTS(GPURUN_LOOKUP_ENTRY)
#undef GPURUN_LOOKUP_ENTRY
  // These three have one version only: a library whose cuGetProcAddress fails (the toolkit's
  // stub) still says why through them.
  if (e.cuInit_ == nullptr) e.cuInit_ = reinterpret_cast<decltype(e.cuInit_)>(dlsym(lib, "cuInit"));
  if (e.cuGetErrorName_ == nullptr)
    e.cuGetErrorName_ = reinterpret_cast<decltype(e.cuGetErrorName_)>(dlsym(lib, "cuGetErrorName"));
  if (e.cuGetErrorString_ == nullptr)
    e.cuGetErrorString_ =
        reinterpret_cast<decltype(e.cuGetErrorString_)>(dlsym(lib, "cuGetErrorString"));
  if (e.cuInit_ == nullptr) return Status(ErrorCode::kUnsupported, "cuInit not found in libcuda");
  static DlDriver driver(e);
  CUresult r = e.cuInit_(0);
  if (r != CUDA_SUCCESS)
    return Status(ErrorCode::kUnsupported, "cuInit failed: " + driver.error_string(r));
  int count = 0;
  if (driver.device_get_count(&count) != CUDA_SUCCESS || count == 0)
    return Status(ErrorCode::kUnsupported, "no CUDA device");
  return static_cast<Driver*>(&driver);
}

}  // namespace

Result<Driver*> system_driver() {
  static Result<Driver*> driver = [] {
    Result<Driver*> loaded = load();
    if (!loaded.ok()) GPURUN_LOG(debug, cuda, "cuda_ipc: %s", loaded.status().to_string().c_str());
    return loaded;
  }();
  return driver;
}

Status cuda_status(Driver& driver, const char* call, CUresult result) {
  return Status(ErrorCode::kIo, std::string(call) + ": " + driver.error_string(result));
}

}  // namespace gpurun::cuda::ipc
