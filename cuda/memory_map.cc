#include "cuda/memory_map.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace gpurun::cuda {

accel::MemoryInfo PointerInfo::memory() const {
  switch (kind) {
    case PointerKind::kDevice:
      return {accel::MemoryKind::kCudaDevice, device};
    case PointerKind::kManaged:
      return {accel::MemoryKind::kCudaManaged, device};
    default:
      return {};
  }
}

MemoryMap::MemoryMap(const DriverApi& api, const MemoryMapConfig& config)
    : api_(api), host_(config.host_regions), ranges_(config.range_capacity) {}

accel::MemoryInfo MemoryMap::query(const void* ptr) const {
  if (host_.contains(ptr)) [[likely]]
    return {};
  return classify(ptr).memory();
}

PointerInfo MemoryMap::classify(const void* ptr) const {
  if (ptr == nullptr || host_.contains(ptr)) return {};
  unsigned int type = 0;  // CUmemorytype; 0 when the driver does not know the pointer
  unsigned long long buffer_id = 0;
  unsigned int managed = 0;  // a bool the driver writes as 32 bits
  int ordinal = -1;
  CUpointer_attribute attributes[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_BUFFER_ID,
      CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void* values[] = {&type, &buffer_id, &managed, &ordinal};
  driver_calls_.fetch_add(1, std::memory_order_relaxed);
  // Unlike cuPointerGetAttribute, this call succeeds on pointers the driver does not know and
  // leaves the values zero.
  CUresult rc =
      api_.pointer_get_attributes(4, attributes, values, reinterpret_cast<CUdeviceptr>(ptr));
  if (rc != CUDA_SUCCESS) return {};  // not cached: the next call asks again
  if (managed != 0 || type == CU_MEMORYTYPE_DEVICE)
    return classify_device(ptr, buffer_id, managed != 0, ordinal);
  if (type == CU_MEMORYTYPE_HOST) return {.kind = PointerKind::kPinned};
  // An address CUDA does not know may still lie in its device address space (the free part of
  // a chunk of small allocations, just past an allocation's end: a zero-count message's
  // buffer), where later allocations are device memory: only readable host memory is
  // remembered. The host cannot read CUDA's reservations.
  if (host_.enabled() && host_readable(ptr)) host_.insert(ptr);
  return {};
}

// CUDA's "synchronous" calls may return before the device has written device memory
// (cudaMemset, a device-to-device cudaMemcpy), unordered with the copies that move a message on
// other streams and in other processes. With SYNC_MEMOPS set they finish before returning, as a
// program that sends the buffer next expects. Set once per allocation, when it is first seen
// (a failure, VMM memory say, leaves the allocation as it was).
void MemoryMap::synchronize_memops(std::uintptr_t base) const {
  if (api_.pointer_set_attribute == nullptr) return;
  unsigned int on = 1;
  driver_calls_.fetch_add(1, std::memory_order_relaxed);
  api_.pointer_set_attribute(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, static_cast<CUdeviceptr>(base));
}

bool MemoryMap::host_readable(const void* ptr) {
  char byte;
  iovec local{&byte, 1};
  iovec remote{const_cast<void*>(ptr), 1};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1) return true;
  // EFAULT: not readable. A sandbox that refuses the call itself (ENOSYS, EPERM) leaves the
  // question open: the region is remembered, as it was before this check, rather than every
  // host buffer costing a driver call there.
  return errno != EFAULT;
}

PointerInfo MemoryMap::classify_device(const void* ptr, std::uint64_t buffer_id, bool managed,
                                       int ordinal) const {
  auto address = reinterpret_cast<std::uintptr_t>(ptr);
  PointerInfo info{.kind = managed ? PointerKind::kManaged : PointerKind::kDevice,
                   .device = ordinal};
  if (auto hit = ranges_.find(address, buffer_id)) {
    info.allocation = *hit;
    return info;
  }
  CUdeviceptr base = 0;
  std::size_t size = 0;
  driver_calls_.fetch_add(1, std::memory_order_relaxed);
  if (api_.mem_get_address_range(&base, &size, reinterpret_cast<CUdeviceptr>(ptr)) !=
      CUDA_SUCCESS) {
    base = address;  // a mapping the call does not describe: remember the pointer alone
    size = 1;
  }
  info.allocation = Allocation{.base = static_cast<std::uintptr_t>(base),
                               .size = size,
                               .buffer_id = buffer_id,
                               .kind = info.memory().kind,
                               .device = ordinal};
  ranges_.insert(info.allocation);
  if (!managed) synchronize_memops(info.allocation.base);
  // A host region remembered where device memory now is: its host memory was unmapped and the
  // addresses reused. Forget it.
  host_.forget(info.allocation.base, info.allocation.size);
  return info;
}

}  // namespace gpurun::cuda
