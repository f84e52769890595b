// A test double of the accelerator: "device memory" is host pages kept unreadable (PROT_NONE)
// except inside the double's own calls (copy, reduce). A collective layer that touched device
// memory itself instead of through the accelerator crashes the test.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/accel/accelerator.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::coll::testing_util {

class FencedDevice final : public accel::Accelerator {
 public:
  ~FencedDevice() override {
    for (const Region& r : regions_) munmap(r.base, r.size);
  }
  const char* name() const override { return "fenced"; }
  bool usable() const override { return true; }
  accel::MemoryInfo query(const void* p) const override {
    for (const Region& r : regions_)
      if (p >= r.base && p < r.base + r.size) return {accel::MemoryKind::kCudaDevice, 0};
    return {};
  }
  Status copy(void* dst, const void* src, std::size_t n) override {
    open();
    std::memcpy(dst, src, n);
    close();
    ++copies;
    return ok_status();
  }
  void* allocate_host(std::size_t bytes) override {
    ++pinned;
    return std::malloc(bytes);
  }
  void free_host(void* p) override { std::free(p); }
  Result<void*> allocate_device(int /*device*/, std::size_t bytes) override {
    ++device_allocations;
    return allocate(bytes);
  }
  void free_device(void* p) override {
    for (std::size_t i = 0; i < regions_.size(); ++i)
      if (regions_[i].base == p) {
        munmap(regions_[i].base, regions_[i].size);
        regions_.erase(regions_.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
  }
  Status check_reduce(const core::Op& op, const core::Datatype& type) const override {
    if (refuse_reduce || !op.is_predefined() || !type.contiguous())
      return Status(ErrorCode::kUnsupported, "fenced device: predefined ops, contiguous types");
    return ok_status();
  }
  Status reduce(const accel::DeviceReduce& a) override {
    // Addresses as MPI gives them: the data begins at address + true_lb.
    const std::int64_t lb = a.type->true_lb();
    if (accel::is_host(query(static_cast<const std::byte*>(a.in) + lb).kind) ||
        accel::is_host(query(static_cast<const std::byte*>(a.inout) + lb).kind))
      return Status(ErrorCode::kInvalidArgument, "a device reduction of host memory");
    open();
    Status st = a.op->apply(a.in, a.inout, a.count, *a.type);
    close();
    ++reductions;
    return st;
  }

  // `bytes` of fenced device memory.
  void* allocate(std::size_t bytes) {
    std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    std::size_t size = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
    void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    regions_.push_back(Region{static_cast<std::byte*>(p), size});
    return p;
  }
  template <class T>
  T* device_copy_of(const std::vector<T>& host) {
    auto* p = static_cast<T*>(allocate(host.size() * sizeof(T)));
    (void)copy(p, host.data(), host.size() * sizeof(T));
    return p;
  }
  template <class T>
  std::vector<T> read(const T* p, std::size_t n) {
    std::vector<T> out(n);
    (void)copy(out.data(), p, n * sizeof(T));
    return out;
  }

  int copies = 0, pinned = 0, reductions = 0, device_allocations = 0;
  bool refuse_reduce = false;  // check_reduce() refuses everything

 private:
  struct Region {
    std::byte* base;
    std::size_t size;
  };
  void open() {
    for (const Region& r : regions_) mprotect(r.base, r.size, PROT_READ | PROT_WRITE);
  }
  void close() {
    for (const Region& r : regions_) mprotect(r.base, r.size, PROT_NONE);
  }
  std::vector<Region> regions_;
};

}  // namespace gpurun::coll::testing_util
