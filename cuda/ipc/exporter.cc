#include "cuda/ipc/exporter.h"

#include <cstring>
#include <iterator>
#include <string>

namespace gpurun::cuda::ipc {
namespace {

Status unsupported(std::string reason) {
  return Status(ErrorCode::kUnsupported, std::move(reason));
}

}  // namespace

Result<Descriptor> Exporter::describe(const void* ptr, std::size_t size) {
  Driver& api = gpu_.api();
  PointerAttributes attrs;
  CUresult r = api.pointer_attributes(reinterpret_cast<CUdeviceptr>(ptr), &attrs);
  if (r != CUDA_SUCCESS) return unsupported("cuPointerGetAttributes: " + api.error_string(r));
  if (attrs.memory_type != CU_MEMORYTYPE_DEVICE || attrs.managed)
    return unsupported("not device memory");
  if (attrs.buffer_id == 0 || attrs.range_size == 0)
    return unsupported("the driver gives no buffer id or range for it");
  // The pointer attributes' range is the address reservation, which for VMM memory may hold
  // several mappings (an allocator that grows a segment): what is shared is the mapped
  // allocation around the pointer (asked of the driver only when no export of it is known),
  // and the message must lie within it.
  auto addr = reinterpret_cast<std::uint64_t>(ptr);
  Descriptor d;
  auto it = entries_.find(attrs.buffer_id);
  if (it != entries_.end() && it->second.reservation_start == attrs.range_start &&
      it->second.reservation_size == attrs.range_size &&
      addr - it->second.descriptor.range_start < it->second.descriptor.range_size) {
    d = it->second.descriptor;
  } else {
    std::uint64_t reservation_start = attrs.range_start, reservation_size = attrs.range_size;
    CUdeviceptr base = 0;
    std::size_t mapped = 0;
    if (api.mem_get_address_range(&base, &mapped, reinterpret_cast<CUdeviceptr>(ptr)) ==
        CUDA_SUCCESS) {
      attrs.range_start = base;
      attrs.range_size = mapped;
    }
    if (it != entries_.end()) forget(attrs.buffer_id);
    forget_overlapping(attrs.range_start, attrs.range_size);
    GPURUN_ASSIGN_OR_RETURN(d, export_new(attrs, reservation_start, reservation_size));
  }
  if (addr + size > d.range_start + d.range_size)
    return unsupported("the buffer runs past the end of its allocation (" +
                       std::to_string(d.range_size) + " bytes mapped at its start)");
  d.offset = addr - d.range_start;
  d.size = size;
  return d;
}

Result<Descriptor> Exporter::export_new(const PointerAttributes& attrs,
                                        std::uint64_t reservation_start,
                                        std::uint64_t reservation_size) {
  Driver& api = gpu_.api();
  Entry e;
  e.reservation_start = reservation_start;
  e.reservation_size = reservation_size;
  Descriptor& d = e.descriptor;
  d.buffer_id = attrs.buffer_id;
  d.range_start = attrs.range_start;
  d.range_size = attrs.range_size;
  d.device = attrs.device;
  if (attrs.pool != nullptr) {
    if (!filter_.pool) return unsupported("pool handles disabled by GPURUN_CUDA_IPC_HANDLES");
    CUmemPoolPtrExportData data{};
    CUresult r = api.mem_pool_export_pointer(&data, attrs.range_start);
    if (r != CUDA_SUCCESS)
      return unsupported("its memory pool cannot be shared (" + api.error_string(r) +
                         "): cudaMallocAsync's default pool never can; allocate from a pool "
                         "created with cudaMemHandleTypePosixFileDescriptor");
    d.kind = HandleKind::kPool;
    d.pool_id = reinterpret_cast<std::uint64_t>(attrs.pool);
    static_assert(sizeof data <= sizeof d.handle);
    std::memcpy(d.handle, &data, sizeof data);
    e.pool = attrs.pool;
  } else if (attrs.legacy_ipc_capable) {
    if (!filter_.legacy) return unsupported("legacy handles disabled by GPURUN_CUDA_IPC_HANDLES");
    CUipcMemHandle handle{};
    CUresult r = api.ipc_get_mem_handle(&handle, attrs.range_start);
    if (r != CUDA_SUCCESS) return unsupported("cuIpcGetMemHandle: " + api.error_string(r));
    d.kind = HandleKind::kLegacy;
    static_assert(sizeof handle <= sizeof d.handle);
    std::memcpy(d.handle, &handle, sizeof handle);
  } else if (attrs.allowed_handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
    if (!filter_.vmm) return unsupported("VMM handles disabled by GPURUN_CUDA_IPC_HANDLES");
    d.kind = HandleKind::kVmm;
  } else {
    return unsupported(
        "its allocation cannot be shared (VMM memory needs "
        "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR among its requestedHandleTypes)");
  }
  GPURUN_TRY(fill_uuid(attrs.device, d));
  Descriptor out = d;
  by_start_[d.range_start] = d.buffer_id;
  entries_.emplace(d.buffer_id, std::move(e));
  return out;
}

Status Exporter::fill_uuid(int ordinal, Descriptor& d) {
  auto it = uuids_.find(ordinal);
  if (it == uuids_.end()) {
    Driver& api = gpu_.api();
    CUdevice device;
    CUuuid uuid{};
    CUresult r = api.device_get(&device, ordinal);
    if (r == CUDA_SUCCESS) r = api.device_get_uuid(&uuid, device);
    if (r != CUDA_SUCCESS) return unsupported("cuDeviceGetUuid: " + api.error_string(r));
    it = uuids_.emplace(ordinal, uuid).first;
  }
  std::memcpy(d.device_uuid, it->second.bytes, sizeof d.device_uuid);
  return ok_status();
}

void Exporter::shared_with(std::uint64_t buffer_id, std::uint32_t peer) {
  auto it = entries_.find(buffer_id);
  if (it == entries_.end()) return;
  auto& peers = it->second.peers;
  for (std::uint32_t p : peers)
    if (p == peer) return;
  peers.push_back(peer);
}

Result<int> Exporter::export_fd(const Descriptor& d) {
  Driver& api = gpu_.api();
  int fd = -1;
  if (d.kind == HandleKind::kPool) {
    auto it = entries_.find(d.buffer_id);
    if (it == entries_.end() || it->second.pool == nullptr)
      return Status(ErrorCode::kNotFound, "pool of buffer no longer registered");
    CUresult r = api.mem_pool_export_to_fd(&fd, it->second.pool);
    if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemPoolExportToShareableHandle", r);
    return fd;
  }
  CUmemGenericAllocationHandle handle{};
  CUresult r = api.mem_retain_allocation_handle(&handle, reinterpret_cast<void*>(d.range_start));
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemRetainAllocationHandle", r);
  r = api.mem_export_to_fd(&fd, handle);
  api.mem_release(handle);
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemExportToShareableHandle", r);
  return fd;
}

void Exporter::forget(std::uint64_t buffer_id) {
  auto it = entries_.find(buffer_id);
  if (it == entries_.end()) return;
  auto start = by_start_.find(it->second.descriptor.range_start);
  if (start != by_start_.end() && start->second == buffer_id) by_start_.erase(start);
  if (!it->second.peers.empty()) gone_.push_back(Gone{buffer_id, std::move(it->second.peers)});
  entries_.erase(it);
}

// Registered ranges never overlap each other (live allocations cannot), so only the nearest
// one below `start` can reach into a new range.
void Exporter::forget_overlapping(std::uint64_t start, std::uint64_t size) {
  auto it = by_start_.lower_bound(start);
  if (it != by_start_.begin()) {
    auto before = std::prev(it);
    const Entry& e = entries_.at(before->second);
    if (e.descriptor.range_start + e.descriptor.range_size > start) forget(before->second);
  }
  while (true) {
    it = by_start_.lower_bound(start);
    if (it == by_start_.end() || it->first >= start + size) break;
    forget(it->second);
  }
}

std::vector<Exporter::Gone> Exporter::sweep(int budget) {
  Driver& api = gpu_.api();
  for (int i = 0; i < budget && !by_start_.empty(); ++i) {
    auto it = by_start_.lower_bound(sweep_cursor_);
    if (it == by_start_.end()) it = by_start_.begin();
    std::uint64_t start = it->first;
    std::uint64_t id = it->second;
    sweep_cursor_ = start + 1;
    PointerAttributes attrs;
    CUresult r = api.pointer_attributes(static_cast<CUdeviceptr>(start), &attrs);
    if (r != CUDA_SUCCESS || attrs.buffer_id != id) forget(id);
  }
  std::vector<Gone> out;
  out.swap(gone_);
  return out;
}

}  // namespace gpurun::cuda::ipc
