#include "tests/cuda/fake_driver.h"

namespace gpurun::cuda::testing {
namespace {

const FakeAllocation* find(std::uintptr_t p) {
  for (const FakeAllocation& a : FakeDriver::current->allocations)
    if (p - a.base < a.size) return &a;
  return nullptr;
}

CUresult get_attributes(unsigned n, CUpointer_attribute* attributes, void** data, CUdeviceptr p) {
  FakeDriver& d = *FakeDriver::current;
  ++d.attribute_calls;
  if (d.fail_with != CUDA_SUCCESS) return d.fail_with;
  const FakeAllocation* a = find(static_cast<std::uintptr_t>(p));
  for (unsigned i = 0; i < n; ++i) {
    switch (attributes[i]) {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *static_cast<unsigned*>(data[i]) = a ? a->type : 0;
        break;
      case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *static_cast<unsigned long long*>(data[i]) = a ? a->buffer_id : 0;
        break;
      case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *static_cast<unsigned*>(data[i]) = a && a->managed ? 1 : 0;
        break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *static_cast<int*>(data[i]) = a ? a->device : -2;
        break;
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

CUresult get_range(CUdeviceptr* base, std::size_t* size, CUdeviceptr p) {
  FakeDriver& d = *FakeDriver::current;
  ++d.range_calls;
  const FakeAllocation* a = find(static_cast<std::uintptr_t>(p));
  if (a == nullptr || a->type != CU_MEMORYTYPE_DEVICE) return CUDA_ERROR_NOT_FOUND;
  *base = static_cast<CUdeviceptr>(a->base);
  *size = a->size;
  return CUDA_SUCCESS;
}

CUresult set_attribute(const void* value, CUpointer_attribute attribute, CUdeviceptr p) {
  FakeDriver& d = *FakeDriver::current;
  const FakeAllocation* a = find(static_cast<std::uintptr_t>(p));
  if (a == nullptr || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
    return CUDA_ERROR_INVALID_VALUE;
  if (*static_cast<const unsigned*>(value) != 0) d.synchronized.push_back(a->base);
  return CUDA_SUCCESS;
}

}  // namespace

FakeDriver* FakeDriver::current = nullptr;

DriverApi FakeDriver::api() const {
  DriverApi api{};
  api.pointer_get_attributes = &get_attributes;
  api.mem_get_address_range = &get_range;
  api.pointer_set_attribute = &set_attribute;
  return api;
}

void FakeDriver::reallocate(std::uintptr_t base, std::uint64_t new_id, int device) {
  for (FakeAllocation& a : allocations) {
    if (a.base == base) {
      a.buffer_id = new_id;
      a.device = device;
    }
  }
}

}  // namespace gpurun::cuda::testing
