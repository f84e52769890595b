#include "runtime/accel/accelerator.h"

#include <atomic>
#include <cstring>

namespace gpurun::accel {
namespace {

class HostOnly final : public Accelerator {
 public:
  const char* name() const override { return "host"; }
  bool usable() const override { return false; }
  MemoryInfo query(const void* /*ptr*/) const override { return MemoryInfo{}; }
  Status copy(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return ok_status();
  }
};

std::atomic<Accelerator*> g_current{nullptr};

}  // namespace

Accelerator& current() {
  static HostOnly host_only;
  Accelerator* a = g_current.load(std::memory_order_acquire);
  return a != nullptr ? *a : host_only;
}

void install(std::unique_ptr<Accelerator> accelerator) {
  // Installed once and kept for the life of the process: pointers to it may be cached.
  g_current.store(accelerator.release(), std::memory_order_release);
}

}  // namespace gpurun::accel
