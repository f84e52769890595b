// Schedules: how algorithms are written. An algorithm describes one call as rounds of steps
// with a ScheduleBuilder; the result is an Operation that the engine runs as a blocking,
// nonblocking or persistent collective alike.
//
// A round holds messages (sends and receives on the pml's collective channel, with the call's
// tag) and local steps (reduce, copy). When a round begins, all its receives and sends are
// posted at once (receives first). Its local steps run when its receives have completed (and
// its sends too, when a local step writes memory that one of the round's sends reads: the
// builder finds that out from the buffers' address ranges). The next round begins when the
// round's messages and local steps are all done. Messages between two ranks match in the
// order they were posted, so an algorithm may send several messages to one peer in a round as
// long as the peer posts its receives in the same order.
//
// A schedule owns its scratch buffers (taken from a process-wide pool and given back when it is
// destroyed) and holds a reference on every user datatype it moves, so a nonblocking or
// persistent collective survives MPI_Type_free of its types. start() may be called again once
// the schedule is complete (persistent collectives): the same rounds run on the same buffers.
//
// Device memory: a schedule built for a call on device memory (Args::memory, which the engine
// gives only where coll/device_steps.h's schedule_on_device() holds) runs its local steps on
// the device (device reductions, accelerator copies) and takes its scratch from device memory
// of the buffers' device; its messages carry device memory through the pml. The plan is the
// same as on host memory, so ranks whose buffers are of different kinds meet.
//
// Errors: a message that fails, is truncated or is shorter than its receive expected (counts
// that do not match between ranks) and a failed local step make the schedule's status an
// error, but the schedule still runs to its end, so that peers that were right do not hang on
// this rank; its sends from then on carry the poison instead of data (coll/basic.h), so that
// the ranks it sends to fail too instead of taking what it had. The first error is kept.
//
// Threading: like the pml, not thread-safe; the API layer serialises callers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "coll/algorithm.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::coll {

// Typed data: `count` elements of `type` at `base`, an address as MPI programs give it (the
// first byte of data is at base + type->true_lb()).
struct Buf {
  void* base = nullptr;
  std::int64_t count = 0;
  const core::Datatype* type = nullptr;

  // Elements [first, first + n) of this buffer.
  Buf slice(std::int64_t first, std::int64_t n) const {
    return Buf{static_cast<std::byte*>(base) + first * type->extent(), n, type};
  }
  std::int64_t bytes() const { return count * type->size(); }
  // Where its data starts (its type's true lower bound from base).
  std::byte* first_byte() const { return static_cast<std::byte*>(base) + type->true_lb(); }
};

// MPI_BYTE, for packed data.
const core::Datatype& byte_type();
inline Buf packed(void* base, std::int64_t bytes) { return Buf{base, bytes, &byte_type()}; }

// Bytes that `count` elements of `type` span in memory, and where the span begins relative to
// the buffer's address: what a scratch copy of such a buffer needs.
struct Span {
  std::int64_t lo = 0;  // offset of the first byte touched, from the buffer's address
  std::int64_t size = 0;
};
Span span_of(std::int64_t count, const core::Datatype& type);

class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(const Args& args);
  ~ScheduleBuilder();
  ScheduleBuilder(const ScheduleBuilder&) = delete;
  ScheduleBuilder& operator=(const ScheduleBuilder&) = delete;

  const Args& args() const { return args_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Closes the current round (when it holds steps) and opens the next one.
  void next_round();
  // Messages of the current round; `peer` is a rank of the communicator.
  void send(int peer, const Buf& data);
  void recv(int peer, const Buf& into);
  // Local steps of the current round. reduce: inout = in op inout, element by element, `in`
  // holding the operand of the lower rank (args().op unless given). copy: `from`'s data into
  // `to`, type to type (their type signatures must hold the same bytes).
  void reduce(const Buf& in, const Buf& inout);
  void reduce(const Buf& in, const Buf& inout, const core::Op& op);
  void copy(const Buf& from, const Buf& to);

  // Scratch memory owned by the schedule, laid out like a user buffer of `count` elements of
  // `type` (the type's extent and gaps included); device memory for a call on device memory
  // (an allocation that fails makes build() fail).
  Buf scratch(std::int64_t count, const core::Datatype& type);
  // `bytes` of scratch memory, 64-byte aligned.
  std::byte* scratch_bytes(std::size_t bytes);

  // The operation: a schedule of the rounds added so far. The builder is spent afterwards.
  Result<std::unique_ptr<Operation>> build();

 private:
  struct Impl;
  const Args& args_;
  int rank_;
  int size_;
  std::unique_ptr<Impl> impl_;
};

// A schedule of no rounds: an operation that completes at once (count 0, one rank).
std::unique_ptr<Operation> empty_operation();

}  // namespace gpurun::coll
