// Partitioned communication (api/partitioned.cc): what MPI_Start and MPI_Request_free do with a
// request of MPI_Psend_init or MPI_Precv_init (kind kPartitioned), and what its prequest
// (api/prequest.h) does with it.
#pragma once

#include <span>
#include <string>

#include "api/call.h"
#include "runtime/core/request.h"

namespace gpurun::api {

struct DeviceTrigger;

// Starts an epoch of `r`, which MPI_Start's checks accepted. MPI_SUCCESS or the error.
int start_partitioned(const Call& call, core::Request* r);
// Frees `r`; an epoch in flight finishes on its own.
int free_partitioned(core::Request* r);

// What a prequest needs to know of a partitioned request.
struct PartitionedShape {
  bool send = false;
  int partitions = 0;
  bool active = false;
  DeviceTrigger* trigger = nullptr;  // its prequest, if it has one
};
// False when `r` is no partitioned request.
bool partitioned_shape(const core::Request* r, PartitionedShape* out);
// Gives partitioned request `r` its prequest (nullptr: none).
void attach_trigger(core::Request* r, DeviceTrigger* t);
// The prequest of active send request `r` saw `partitions` marked ready in this epoch: as
// MPI_Pready, without its checks (the device side made them).
void trigger_ready(core::Request* r, std::span<const int> partitions);
// The prequest of active request `r` was misused: its epoch fails (MPI_ERR_ARG, `message`). A
// send epoch sends its receiver partitions not sent yet one byte too long, so that the
// receiver fails too rather than wait, and ends once they went; a receive epoch ends when its
// data is in.
void trigger_failed(core::Request* r, const std::string& message);
// The same for an epoch that is ending anyway: only records the error.
void trigger_misused(core::Request* r, const std::string& message);

}  // namespace gpurun::api
