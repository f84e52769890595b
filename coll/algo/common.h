// What the algorithm files share: the call's buffers as typed Bufs, a way to turn a plan
// function into an Algorithm::create, rank arithmetic, and the phases that several
// algorithms chain together (coll/algo/phases.h).
#pragma once

#include <bit>
#include <cstdint>
#include <memory>

#include "coll/algorithm.h"
#include "coll/device_steps.h"
#include "coll/schedule.h"

namespace gpurun::coll::algo {

// The send and receive buffers of the call: count x type and recvcount x recvtype (or count x
// type for the collectives that have one type).
inline Buf send_buf(const Args& a, std::int64_t count) {
  return Buf{const_cast<void*>(a.sendbuf), count, a.type};
}
inline Buf recv_buf(const Args& a, std::int64_t count, const core::Datatype* type) {
  return Buf{a.recvbuf, count, type};
}

// A plan appends rounds to a builder; create_with<plan> is an Algorithm::create.
using PlanFn = Status (*)(ScheduleBuilder& b);
template <PlanFn plan>
Result<std::unique_ptr<Operation>> create_with(const Args& args) {
  ScheduleBuilder b(args);
  GPURUN_TRY(plan(b));
  return b.build();
}

// The algorithms here are schedules: their reduce and copy steps run on the host for host
// memory, and on the device for device memory where schedule_on_device() allows
// (coll/device_steps.h); other calls on device memory are staged (coll/staging.h).
inline bool host_or_device(const Args& a) {
  return a.memory == accel::MemoryKind::kHost || schedule_on_device(a);
}

// Largest power of two not above n (n >= 1).
inline int floor_pow2(int n) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(n))); }
// ceil(log2 n) for n >= 1.
inline int ceil_log2(int n) {
  return n <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(n - 1)));
}

}  // namespace gpurun::coll::algo
