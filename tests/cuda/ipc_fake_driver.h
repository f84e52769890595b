// A test double of the CUDA driver for the cuda_ipc unit tests: a few fake GPUs whose "device
// memory" is host memory, so that data can be checked, and whose imported mappings live at
// fake addresses that only the fake's copies understand, so that a transport that copies from
// the wrong address, or from a mapping it already dropped, is caught.
//
// What it models of the real driver:
// - allocations of three kinds (legacy cudaMalloc, VMM with a POSIX-fd handle type, pool
//   allocations from an exportable or a non-exportable pool), each with a buffer id;
// - memory stays allocated while any mapping of it lives, also after its owner freed it
//   (bytes_in_use() is what nvidia-smi would show);
// - exported fds are real memfds holding the allocation or pool id;
// - copies are asynchronous: they run when an event after them is queried twice, synchronized
//   or the stream synchronized, and fail (copy_faults()) when an address is no longer mapped;
// - contexts: a per-thread stack (push/pop), a primary context per device.
// Every method counts as a call (calls()), so tests can check that nothing touched CUDA.
// Thread-safe (one lock), so the two ranks of a test may run on two threads.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "cuda/ipc/driver.h"

namespace gpurun::cuda::ipc::testing {

enum class FakeKind { kLegacy, kVmm, kVmmNoFd, kPool, kDefaultPool };

class FakeDriver final : public Driver {
 public:
  explicit FakeDriver(int devices = 1);
  ~FakeDriver() override;

  // --- the test's side ---
  // A device allocation of `bytes` on `device`; its memory is host memory the test may touch.
  void* allocate(std::size_t bytes, int device = 0, FakeKind kind = FakeKind::kLegacy);
  void release(void* ptr);           // cudaFree / cuMemRelease+unmap by the owner
  std::size_t bytes_in_use() const;  // allocated device memory, freed-but-mapped included
  int open_mappings() const;         // imported mappings alive
  int copy_faults() const { return copy_faults_; }
  long calls() const { return calls_; }
  int fds_exported() const { return fds_exported_; }
  int range_queries() const { return range_queries_; }  // cuMemGetAddressRange calls
  int context_depth() const;                            // this thread's pushed contexts
  void set_peer_access(int a, int b, bool can);
  void fail_next_open(CUresult result) { fail_open_ = result; }
  void fail_next_export(CUresult result) { fail_export_ = result; }
  // The allocation at `ptr` is mapped inside a reservation `padding` bytes larger on each side
  // (pointer attributes' RANGE_START_ADDR and RANGE_SIZE then describe the reservation).
  void reserve_around(void* ptr, std::size_t padding);
  // The allocation at `ptr` is two mappings of one reservation, the first `bytes` long
  // (cuMemGetAddressRange of a pointer into it says so; the memory stays one block here).
  void split_mapping(void* ptr, std::size_t bytes);

  // --- Driver ---
  std::string error_string(CUresult result) override;
  CUresult pointer_attributes(CUdeviceptr ptr, PointerAttributes* out) override;
  CUresult mem_get_address_range(CUdeviceptr* base, std::size_t* size, CUdeviceptr ptr) override;
  CUresult device_get(CUdevice* device, int ordinal) override;
  CUresult device_get_count(int* count) override;
  CUresult device_get_uuid(CUuuid* uuid, CUdevice device) override;
  CUresult device_can_access_peer(int* can, CUdevice device, CUdevice peer) override;
  CUresult device_primary_ctx_retain(CUcontext* ctx, CUdevice device) override;
  CUresult device_primary_ctx_release(CUdevice device) override;
  CUresult ctx_get_current(CUcontext* ctx) override;
  CUresult ctx_push_current(CUcontext ctx) override;
  CUresult ctx_pop_current() override;
  CUresult ctx_get_device(CUdevice* device) override;
  CUresult ipc_get_mem_handle(CUipcMemHandle* handle, CUdeviceptr ptr) override;
  CUresult ipc_open_mem_handle(CUdeviceptr* ptr, CUipcMemHandle handle, unsigned flags) override;
  CUresult ipc_close_mem_handle(CUdeviceptr ptr) override;
  CUresult mem_retain_allocation_handle(CUmemGenericAllocationHandle* handle, void* addr) override;
  CUresult mem_export_to_fd(int* fd, CUmemGenericAllocationHandle handle) override;
  CUresult mem_import_from_fd(CUmemGenericAllocationHandle* handle, int fd) override;
  CUresult mem_release(CUmemGenericAllocationHandle handle) override;
  CUresult mem_address_reserve(CUdeviceptr* ptr, std::size_t size) override;
  CUresult mem_address_free(CUdeviceptr ptr, std::size_t size) override;
  CUresult mem_map(CUdeviceptr ptr, std::size_t size, CUmemGenericAllocationHandle handle) override;
  CUresult mem_unmap(CUdeviceptr ptr, std::size_t size) override;
  CUresult mem_set_access(CUdeviceptr ptr, std::size_t size, CUdevice device) override;
  CUresult mem_pool_export_to_fd(int* fd, CUmemoryPool pool) override;
  CUresult mem_pool_import_from_fd(CUmemoryPool* pool, int fd) override;
  CUresult mem_pool_export_pointer(CUmemPoolPtrExportData* data, CUdeviceptr ptr) override;
  CUresult mem_pool_import_pointer(CUdeviceptr* ptr, CUmemoryPool pool,
                                   CUmemPoolPtrExportData* data) override;
  CUresult mem_pool_set_access(CUmemoryPool pool, CUdevice device) override;
  CUresult mem_pool_destroy(CUmemoryPool pool) override;
  CUresult mem_free(CUdeviceptr ptr) override;
  CUresult stream_create(CUstream* stream) override;
  CUresult stream_destroy(CUstream stream) override;
  CUresult stream_synchronize(CUstream stream) override;
  CUresult event_create(CUevent* event) override;
  CUresult event_destroy(CUevent event) override;
  CUresult event_record(CUevent event, CUstream stream) override;
  CUresult event_query(CUevent event) override;
  CUresult event_synchronize(CUevent event) override;
  CUresult memcpy_async(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                        CUstream stream) override;
  CUresult mem_host_alloc(void** ptr, std::size_t bytes) override;
  CUresult mem_free_host(void* ptr) override;

 private:
  struct Allocation {
    std::uint64_t id;
    std::vector<std::byte> memory;
    int device;
    FakeKind kind;
    bool alive = true;
    int mappings = 0;                 // imported mappings of it
    std::size_t reserved_around = 0;  // reserve_around()
    std::size_t first_mapping = 0;    // split_mapping(); 0: one mapping
  };
  struct Mapping {  // an imported view at a fake address
    std::uint64_t allocation;
    std::size_t size;
    bool mapped;  // VMM: reserved but not yet mapped
  };
  struct Copy {
    CUdeviceptr dst, src;
    std::size_t bytes;
  };
  struct Event {
    CUstream stream = nullptr;
    std::uint64_t position = 0;  // copies queued on the stream before it
    int queries = 0;
  };
  struct Stream {
    std::deque<Copy> queue;
    std::uint64_t done = 0;  // copies run so far
  };

  Allocation* find_alive(CUdeviceptr ptr, CUdeviceptr* base);
  Allocation* by_id(std::uint64_t id);
  std::byte* translate(CUdeviceptr address, std::size_t bytes);
  CUdeviceptr new_fake_address(std::size_t size);
  void run_until(Stream& stream, std::uint64_t position);
  void drop_mapping(CUdeviceptr address);
  void collect(std::uint64_t id);

  mutable std::mutex mutex_;
  int devices_;
  std::map<std::uint64_t, Allocation> allocations_;  // by id
  std::map<CUdeviceptr, std::uint64_t> by_base_;     // alive allocations by base address
  std::map<CUdeviceptr, Mapping> mappings_;          // fake addresses
  std::set<std::pair<int, int>> no_peer_access_;
  std::map<CUstream, Stream> streams_;
  std::map<CUevent, Event> events_;
  std::uint64_t next_id_ = 1;
  CUdeviceptr next_fake_ = 0x7e0000000000ull;
  std::uintptr_t next_handle_ = 0x1000;
  long calls_ = 0;
  int copy_faults_ = 0;
  int fds_exported_ = 0;
  CUresult fail_open_ = CUDA_SUCCESS;
  CUresult fail_export_ = CUDA_SUCCESS;
  int range_queries_ = 0;
};

}  // namespace gpurun::cuda::ipc::testing
