// Schedules on device memory: what lets a schedule (coll/schedule.h) run a call on device
// buffers itself, instead of host staging (coll/staging.h) around it.
//
// A schedule is messages and local steps. The pml moves device memory itself (cuda_ipc between
// ranks of one host, device-direct or staged by the network transports), so only the local
// steps and the scratch need the device: a reduce step becomes one device reduction, a copy
// step one accelerator copy, and scratch blocks are device memory on the buffers' device. No
// byte of the call then passes through host memory on this rank.
//
// The selection does not change: a call on device memory runs the algorithm that the table
// picks for the same call on host memory (coll/engine.h), so ranks whose buffers are of
// different kinds run the same algorithm and meet; each runs its own steps where its memory is.
//
// Threading: not thread-safe; the API layer serialises callers.
#pragma once

#include <cstddef>
#include <utility>

#include "coll/schedule.h"
#include "runtime/accel/accelerator.h"

namespace gpurun::coll {

// Whether a schedule for `args` (device or managed memory) can run its local steps on the
// device: every buffer that the call gives this rank is device or managed memory of one
// device (at least one of them device memory, where scratch goes), its datatypes are
// contiguous (a copy is one accelerator copy), no w form (per-rank types), and the accelerator
// reduces its op, if any, on its type. Host memory: false.
// schedule_device(): the device of those buffers (where scratch goes), or -1 where a schedule
// cannot run the call on the device.
int schedule_device(const Args& args);
inline bool schedule_on_device(const Args& args) { return schedule_device(args) >= 0; }

// Device memory owned by an operation (scratch). Blocks have power-of-two capacities and go
// back to a small process-wide pool when their owner goes, where a later operation on the same
// device takes them: allocating device memory costs, and freeing it waits for the whole device,
// so a nonblocking collective called in a loop must not do either each time.
class DeviceScratch {
 public:
  DeviceScratch() = default;
  DeviceScratch(DeviceScratch&& o) noexcept
      : accel_(o.accel_),
        data_(std::exchange(o.data_, nullptr)),
        device_(o.device_),
        capacity_(o.capacity_) {}
  DeviceScratch& operator=(DeviceScratch&&) = delete;
  DeviceScratch(const DeviceScratch&) = delete;
  ~DeviceScratch();  // gives the block back to the pool
  std::byte* data() const { return data_; }

 private:
  friend Result<DeviceScratch> take_device_scratch(accel::Accelerator&, int, std::size_t);
  accel::Accelerator* accel_ = nullptr;
  std::byte* data_ = nullptr;
  int device_ = 0;
  std::size_t capacity_ = 0;
};

// At least `bytes` of device memory on `device`, from the pool or the accelerator.
Result<DeviceScratch> take_device_scratch(accel::Accelerator& accel, int device, std::size_t bytes);
// Blocks held by the pool now, and freeing them all (tests, before their accelerator goes).
std::size_t device_scratch_held();
void release_device_scratch();

// The local steps on device memory. device_copy moves min(from, to) bytes (the caller checks
// that the sizes agree); both types contiguous. device_reduce: inout = in op inout.
Status device_copy(accel::Accelerator& accel, const Buf& from, const Buf& to);
Status device_reduce(accel::Accelerator& accel, const core::Op& op, const Buf& in,
                     const Buf& inout);

}  // namespace gpurun::coll
