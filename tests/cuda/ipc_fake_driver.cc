#include "tests/cuda/ipc_fake_driver.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iterator>

namespace gpurun::cuda::ipc::testing {
namespace {

constexpr std::uint64_t kHandleMagic = 0xfeedfacecafe0001ull;
thread_local std::vector<CUcontext> t_contexts;

CUcontext primary_of(int device) {
  return reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(0x9000 + device));
}

CUmemoryPool pool_of(int device, bool exportable) {
  return reinterpret_cast<CUmemoryPool>(
      static_cast<std::uintptr_t>(0x5000 + device * 16 + (exportable ? 1 : 0)));
}

int memfd_with(std::uint64_t value) {
  int fd = memfd_create("fake-cuda-handle", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (pwrite(fd, &value, sizeof value, 0) != sizeof value) {
    close(fd);
    return -1;
  }
  return fd;
}

bool read_fd(int fd, std::uint64_t& value) {
  return pread(fd, &value, sizeof value, 0) == sizeof value;
}

}  // namespace

#define FAKE_CALL()             \
  std::lock_guard lock(mutex_); \
  ++calls_

FakeDriver::FakeDriver(int devices) : devices_(devices) {}

FakeDriver::~FakeDriver() = default;

void* FakeDriver::allocate(std::size_t bytes, int device, FakeKind kind) {
  std::lock_guard lock(mutex_);
  std::uint64_t id = next_id_++;
  Allocation& a = allocations_[id];
  a.id = id;
  a.memory.resize(bytes);
  a.device = device;
  a.kind = kind;
  auto base = reinterpret_cast<CUdeviceptr>(a.memory.data());
  by_base_[base] = id;
  return a.memory.data();
}

void FakeDriver::release(void* ptr) {
  std::lock_guard lock(mutex_);
  auto it = by_base_.find(reinterpret_cast<CUdeviceptr>(ptr));
  if (it == by_base_.end()) return;
  std::uint64_t id = it->second;
  by_base_.erase(it);
  allocations_.at(id).alive = false;
  collect(id);
}

void FakeDriver::collect(std::uint64_t id) {
  auto it = allocations_.find(id);
  if (it != allocations_.end() && !it->second.alive && it->second.mappings == 0)
    allocations_.erase(it);
}

std::size_t FakeDriver::bytes_in_use() const {
  std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (const auto& [id, a] : allocations_) total += a.memory.size();
  return total;
}

int FakeDriver::open_mappings() const {
  std::lock_guard lock(mutex_);
  int n = 0;
  for (const auto& [address, m] : mappings_) n += m.mapped ? 1 : 0;
  return n;
}

int FakeDriver::context_depth() const { return static_cast<int>(t_contexts.size()); }

void FakeDriver::set_peer_access(int a, int b, bool can) {
  std::lock_guard lock(mutex_);
  if (can) {
    no_peer_access_.erase({a, b});
  } else {
    no_peer_access_.insert({a, b});
  }
}

FakeDriver::Allocation* FakeDriver::find_alive(CUdeviceptr ptr, CUdeviceptr* base) {
  auto it = by_base_.upper_bound(ptr);
  if (it == by_base_.begin()) return nullptr;
  --it;
  Allocation& a = allocations_.at(it->second);
  if (ptr >= it->first + a.memory.size()) return nullptr;
  if (base) *base = it->first;
  return &a;
}

FakeDriver::Allocation* FakeDriver::by_id(std::uint64_t id) {
  auto it = allocations_.find(id);
  return it == allocations_.end() ? nullptr : &it->second;
}

CUdeviceptr FakeDriver::new_fake_address(std::size_t size) {
  CUdeviceptr p = next_fake_;
  next_fake_ += (size + 0xfffff) / 0x100000 * 0x100000 + 0x100000;
  return p;
}

// A fake (imported) address as the memory behind it, or a real pointer as itself; nullptr when
// a fake address is not mapped (the mapping went before the copy ran).
std::byte* FakeDriver::translate(CUdeviceptr address, std::size_t bytes) {
  if (address < 0x7e0000000000ull || address >= next_fake_)
    return reinterpret_cast<std::byte*>(address);
  auto it = mappings_.upper_bound(address);
  if (it == mappings_.begin()) return nullptr;
  --it;
  const Mapping& m = it->second;
  if (!m.mapped || address + bytes > it->first + m.size) return nullptr;
  Allocation* a = by_id(m.allocation);
  if (a == nullptr || address - it->first + bytes > a->memory.size()) return nullptr;
  return a->memory.data() + (address - it->first);
}

void FakeDriver::drop_mapping(CUdeviceptr address) {
  auto it = mappings_.find(address);
  if (it == mappings_.end()) return;
  std::uint64_t id = it->second.allocation;
  bool mapped = it->second.mapped;
  mappings_.erase(it);
  if (!mapped) return;
  if (Allocation* a = by_id(id)) --a->mappings;
  collect(id);
}

std::string FakeDriver::error_string(CUresult result) {
  return "FAKE_ERROR_" + std::to_string(static_cast<int>(result));
}

CUresult FakeDriver::pointer_attributes(CUdeviceptr ptr, PointerAttributes* out) {
  FAKE_CALL();
  PointerAttributes attrs;
  CUdeviceptr base = 0;
  if (Allocation* a = find_alive(ptr, &base)) {
    attrs.memory_type = CU_MEMORYTYPE_DEVICE;
    attrs.buffer_id = a->id;
    attrs.device = a->device;
    attrs.range_start = base - a->reserved_around;
    attrs.range_size = a->memory.size() + 2 * a->reserved_around;
    attrs.legacy_ipc_capable = a->kind == FakeKind::kLegacy;
    if (a->kind == FakeKind::kVmm)
      attrs.allowed_handle_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if (a->kind == FakeKind::kPool || a->kind == FakeKind::kDefaultPool)
      attrs.pool = pool_of(a->device, a->kind == FakeKind::kPool);
    if (a->kind == FakeKind::kLegacy) attrs.context = primary_of(a->device);
  }
  *out = attrs;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_get_address_range(CUdeviceptr* base, std::size_t* size, CUdeviceptr ptr) {
  FAKE_CALL();
  ++range_queries_;
  Allocation* a = find_alive(ptr, base);
  if (a == nullptr) return CUDA_ERROR_NOT_FOUND;
  *size = a->memory.size();
  if (a->first_mapping != 0) {  // two mappings: the one holding ptr
    if (ptr - *base < a->first_mapping) {
      *size = a->first_mapping;
    } else {
      *base += a->first_mapping;
      *size -= a->first_mapping;
    }
  }
  return CUDA_SUCCESS;
}

void FakeDriver::split_mapping(void* ptr, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (Allocation* a = find_alive(reinterpret_cast<CUdeviceptr>(ptr), nullptr))
    a->first_mapping = bytes;
}

void FakeDriver::reserve_around(void* ptr, std::size_t padding) {
  std::lock_guard lock(mutex_);
  if (Allocation* a = find_alive(reinterpret_cast<CUdeviceptr>(ptr), nullptr))
    a->reserved_around = padding;
}

CUresult FakeDriver::device_get(CUdevice* device, int ordinal) {
  FAKE_CALL();
  if (ordinal < 0 || ordinal >= devices_) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::device_get_count(int* count) {
  FAKE_CALL();
  *count = devices_;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::device_get_uuid(CUuuid* uuid, CUdevice device) {
  FAKE_CALL();
  if (device < 0 || device >= devices_) return CUDA_ERROR_INVALID_DEVICE;
  std::memset(uuid->bytes, 0x42, sizeof uuid->bytes);
  uuid->bytes[0] = static_cast<char>(0xa0 + device);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::device_can_access_peer(int* can, CUdevice device, CUdevice peer) {
  FAKE_CALL();
  *can = no_peer_access_.count({device, peer}) ? 0 : 1;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::device_primary_ctx_retain(CUcontext* ctx, CUdevice device) {
  FAKE_CALL();
  if (device < 0 || device >= devices_) return CUDA_ERROR_INVALID_DEVICE;
  *ctx = primary_of(device);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::device_primary_ctx_release(CUdevice) {
  FAKE_CALL();
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ctx_get_current(CUcontext* ctx) {
  FAKE_CALL();
  *ctx = t_contexts.empty() ? nullptr : t_contexts.back();
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ctx_push_current(CUcontext ctx) {
  FAKE_CALL();
  t_contexts.push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ctx_pop_current() {
  FAKE_CALL();
  if (t_contexts.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  t_contexts.pop_back();
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ctx_get_device(CUdevice* device) {
  FAKE_CALL();
  if (t_contexts.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  *device = static_cast<CUdevice>(reinterpret_cast<std::uintptr_t>(t_contexts.back()) - 0x9000);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ipc_get_mem_handle(CUipcMemHandle* handle, CUdeviceptr ptr) {
  FAKE_CALL();
  CUdeviceptr base = 0;
  Allocation* a = find_alive(ptr, &base);
  if (a == nullptr || a->kind != FakeKind::kLegacy) return CUDA_ERROR_INVALID_VALUE;
  std::memset(handle, 0, sizeof *handle);
  std::memcpy(handle->reserved, &kHandleMagic, 8);
  std::memcpy(handle->reserved + 8, &a->id, 8);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ipc_open_mem_handle(CUdeviceptr* ptr, CUipcMemHandle handle, unsigned) {
  FAKE_CALL();
  if (fail_open_ != CUDA_SUCCESS) {
    CUresult r = fail_open_;
    fail_open_ = CUDA_SUCCESS;
    return r;
  }
  std::uint64_t magic, id;
  std::memcpy(&magic, handle.reserved, 8);
  std::memcpy(&id, handle.reserved + 8, 8);
  Allocation* a = by_id(id);
  if (magic != kHandleMagic || a == nullptr || !a->alive) return CUDA_ERROR_INVALID_VALUE;
  CUdeviceptr p = new_fake_address(a->memory.size());
  mappings_[p] = Mapping{id, a->memory.size(), true};
  ++a->mappings;
  *ptr = p;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::ipc_close_mem_handle(CUdeviceptr ptr) {
  FAKE_CALL();
  if (!mappings_.count(ptr)) return CUDA_ERROR_INVALID_VALUE;
  drop_mapping(ptr);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_retain_allocation_handle(CUmemGenericAllocationHandle* handle,
                                                  void* addr) {
  FAKE_CALL();
  CUdeviceptr base = 0;
  Allocation* a = find_alive(reinterpret_cast<CUdeviceptr>(addr), &base);
  if (a == nullptr || (a->kind != FakeKind::kVmm && a->kind != FakeKind::kVmmNoFd))
    return CUDA_ERROR_INVALID_VALUE;
  *handle = a->id;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_export_to_fd(int* fd, CUmemGenericAllocationHandle handle) {
  FAKE_CALL();
  if (fail_export_ != CUDA_SUCCESS) {
    CUresult r = fail_export_;
    fail_export_ = CUDA_SUCCESS;
    return r;
  }
  Allocation* a = by_id(handle);
  if (a == nullptr || a->kind != FakeKind::kVmm) return CUDA_ERROR_NOT_PERMITTED;
  *fd = memfd_with(a->id);
  ++fds_exported_;
  return *fd < 0 ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS;
}

CUresult FakeDriver::mem_import_from_fd(CUmemGenericAllocationHandle* handle, int fd) {
  FAKE_CALL();
  std::uint64_t id;
  if (!read_fd(fd, id) || by_id(id) == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *handle = id;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_release(CUmemGenericAllocationHandle) {
  FAKE_CALL();
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_address_reserve(CUdeviceptr* ptr, std::size_t size) {
  FAKE_CALL();
  CUdeviceptr p = new_fake_address(size);
  mappings_[p] = Mapping{0, size, false};
  *ptr = p;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_address_free(CUdeviceptr ptr, std::size_t) {
  FAKE_CALL();
  auto it = mappings_.find(ptr);
  if (it == mappings_.end() || it->second.mapped) return CUDA_ERROR_INVALID_VALUE;
  mappings_.erase(it);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_map(CUdeviceptr ptr, std::size_t size,
                             CUmemGenericAllocationHandle handle) {
  FAKE_CALL();
  auto it = mappings_.find(ptr);
  Allocation* a = by_id(handle);
  if (it == mappings_.end() || it->second.mapped || a == nullptr || size > it->second.size ||
      size != a->memory.size())
    return CUDA_ERROR_INVALID_VALUE;
  it->second.allocation = handle;
  it->second.mapped = true;
  ++a->mappings;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_unmap(CUdeviceptr ptr, std::size_t) {
  FAKE_CALL();
  auto it = mappings_.find(ptr);
  if (it == mappings_.end() || !it->second.mapped) return CUDA_ERROR_INVALID_VALUE;
  it->second.mapped = false;
  std::uint64_t id = it->second.allocation;
  if (Allocation* a = by_id(id)) --a->mappings;
  collect(id);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_set_access(CUdeviceptr ptr, std::size_t, CUdevice) {
  FAKE_CALL();
  auto it = mappings_.find(ptr);
  return it != mappings_.end() && it->second.mapped ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult FakeDriver::mem_pool_export_to_fd(int* fd, CUmemoryPool pool) {
  FAKE_CALL();
  auto value = reinterpret_cast<std::uintptr_t>(pool);
  if ((value & 1) == 0) return CUDA_ERROR_INVALID_VALUE;  // not an exportable pool
  *fd = memfd_with(value);
  ++fds_exported_;
  return *fd < 0 ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS;
}

CUresult FakeDriver::mem_pool_import_from_fd(CUmemoryPool* pool, int fd) {
  FAKE_CALL();
  std::uint64_t value;
  if (!read_fd(fd, value)) return CUDA_ERROR_INVALID_VALUE;
  *pool = reinterpret_cast<CUmemoryPool>(next_handle_);
  next_handle_ += 16;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_pool_export_pointer(CUmemPoolPtrExportData* data, CUdeviceptr ptr) {
  FAKE_CALL();
  CUdeviceptr base = 0;
  Allocation* a = find_alive(ptr, &base);
  if (a == nullptr || a->kind != FakeKind::kPool || base != ptr) return CUDA_ERROR_INVALID_VALUE;
  std::memset(data, 0, sizeof *data);
  std::memcpy(data->reserved, &a->id, 8);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_pool_import_pointer(CUdeviceptr* ptr, CUmemoryPool,
                                             CUmemPoolPtrExportData* data) {
  FAKE_CALL();
  std::uint64_t id;
  std::memcpy(&id, data->reserved, 8);
  Allocation* a = by_id(id);
  if (a == nullptr || !a->alive) return CUDA_ERROR_INVALID_VALUE;
  CUdeviceptr p = new_fake_address(a->memory.size());
  mappings_[p] = Mapping{id, a->memory.size(), true};
  ++a->mappings;
  *ptr = p;
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_pool_set_access(CUmemoryPool, CUdevice) {
  FAKE_CALL();
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_pool_destroy(CUmemoryPool) {
  FAKE_CALL();
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_free(CUdeviceptr ptr) {
  FAKE_CALL();
  if (!mappings_.count(ptr)) return CUDA_ERROR_INVALID_VALUE;
  drop_mapping(ptr);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::stream_create(CUstream* stream) {
  FAKE_CALL();
  *stream = reinterpret_cast<CUstream>(next_handle_);
  next_handle_ += 16;
  streams_[*stream];
  return CUDA_SUCCESS;
}

CUresult FakeDriver::stream_destroy(CUstream stream) {
  FAKE_CALL();
  streams_.erase(stream);
  return CUDA_SUCCESS;
}

void FakeDriver::run_until(Stream& s, std::uint64_t position) {
  while (s.done < position && !s.queue.empty()) {
    Copy c = s.queue.front();
    s.queue.pop_front();
    std::byte* dst = translate(c.dst, c.bytes);
    std::byte* src = translate(c.src, c.bytes);
    if (dst == nullptr || src == nullptr)
      ++copy_faults_;
    else
      std::memcpy(dst, src, c.bytes);
    ++s.done;
  }
}

CUresult FakeDriver::stream_synchronize(CUstream stream) {
  FAKE_CALL();
  auto it = streams_.find(stream);
  if (it == streams_.end()) return CUDA_ERROR_INVALID_HANDLE;
  run_until(it->second, it->second.done + it->second.queue.size());
  return CUDA_SUCCESS;
}

CUresult FakeDriver::event_create(CUevent* event) {
  FAKE_CALL();
  *event = reinterpret_cast<CUevent>(next_handle_);
  next_handle_ += 16;
  events_[*event];
  return CUDA_SUCCESS;
}

CUresult FakeDriver::event_destroy(CUevent event) {
  FAKE_CALL();
  events_.erase(event);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::event_record(CUevent event, CUstream stream) {
  FAKE_CALL();
  auto e = events_.find(event);
  auto s = streams_.find(stream);
  if (e == events_.end() || s == streams_.end()) return CUDA_ERROR_INVALID_HANDLE;
  e->second = Event{stream, s->second.done + s->second.queue.size(), 0};
  return CUDA_SUCCESS;
}

// The first query after a record finds the copies still running; the next one runs them.
CUresult FakeDriver::event_query(CUevent event) {
  FAKE_CALL();
  auto e = events_.find(event);
  if (e == events_.end()) return CUDA_ERROR_INVALID_HANDLE;
  if (e->second.stream == nullptr) return CUDA_SUCCESS;
  Stream& s = streams_.at(e->second.stream);
  if (s.done >= e->second.position) return CUDA_SUCCESS;
  if (++e->second.queries < 2) return CUDA_ERROR_NOT_READY;
  run_until(s, e->second.position);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::event_synchronize(CUevent event) {
  FAKE_CALL();
  auto e = events_.find(event);
  if (e == events_.end()) return CUDA_ERROR_INVALID_HANDLE;
  if (e->second.stream != nullptr) run_until(streams_.at(e->second.stream), e->second.position);
  return CUDA_SUCCESS;
}

CUresult FakeDriver::memcpy_async(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                                  CUstream stream) {
  FAKE_CALL();
  auto s = streams_.find(stream);
  if (s == streams_.end()) return CUDA_ERROR_INVALID_HANDLE;  // never the default stream
  s->second.queue.push_back(Copy{dst, src, bytes});
  return CUDA_SUCCESS;
}

CUresult FakeDriver::mem_host_alloc(void** ptr, std::size_t bytes) {
  FAKE_CALL();
  *ptr = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  return *ptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult FakeDriver::mem_free_host(void* ptr) {
  FAKE_CALL();
  std::free(ptr);
  return CUDA_SUCCESS;
}

}  // namespace gpurun::cuda::ipc::testing
