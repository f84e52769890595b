// Host staging of collectives on device memory: the path every collective takes when its
// buffers are device (or managed) memory and no device-native algorithm runs the call.
//
// A staged operation copies the call's input regions from device memory into host
// temporaries, runs the host algorithm that the table selects for the same call on host
// buffers, and copies the output region back when that algorithm completes. Nonblocking and
// persistent forms copy in at each start() and out when progress() sees the host operation
// complete; a blocking call runs the same steps. The host algorithm never sees a device
// pointer. Temporaries are pinned host memory when the accelerator offers it (faster copies),
// else ordinary host memory; both come from a small process-wide pool, so a collective called
// in a loop does not allocate each time.
//
// Regions: for each buffer, the bytes the call's counts, displacements and datatypes span
// (staging_regions()). An input region is copied in; the output (receive) region is copied in
// too when the algorithm may leave parts of it untouched (in place, bcast, v/w forms, types with
// gaps), so copying it back writes what was there; then copied out.
//
// Errors: a failed copy makes the operation's status an error, but the host algorithm still
// runs to its end so that the other ranks do not hang.
//
// Threading: not thread-safe; the API layer serialises callers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "coll/algorithm.h"
#include "runtime/accel/accelerator.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// The bytes of one buffer that a call touches, relative to the buffer's address.
struct Region {
  std::int64_t lo = 0;
  std::int64_t size = 0;
  bool input = false;   // the call reads it: copied in at start
  bool output = false;  // the call writes it: copied out at completion
};

struct StagingRegions {
  std::optional<Region> send;  // of args.sendbuf (absent: not used by this call on this rank)
  std::optional<Region> recv;  // of args.recvbuf
};

// What the call touches of its send and receive buffers on this rank.
StagingRegions staging_regions(const Args& args);

// The accelerator of a call: args.accelerator, else the process's.
accel::Accelerator& accelerator_of(const Args& args);

// A staged operation for `args` (device memory): `create_host` makes the host operation from
// the same arguments with host temporaries in place of the device buffers (memory = kHost).
using CreateFn = Result<std::unique_ptr<Operation>> (*)(const Args& args);
Result<std::unique_ptr<Operation>> create_staged(const Args& args, CreateFn create_host);

// Host blocks held by the staging pool now (for tests), and dropping them all.
std::size_t staging_blocks_held();
void release_staging_blocks();

}  // namespace gpurun::coll
