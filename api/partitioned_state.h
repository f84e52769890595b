// What a partitioned request holds (api/partitioned.cc moves the data, api/partitioned_calls.cc
// has the MPI calls that make and drive it).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "api/prequest.h"
#include "runtime/base/status.h"
#include "runtime/core/request.h"

namespace gpurun::api {

// What the receiver tells its sender.
struct Setup {
  std::int32_t first_tag = 0;
  std::int32_t partitions = 0;
  std::int64_t partition_bytes = 0;
};

struct Partitioned {
  core::Request* request = nullptr;  // the program's
  bool send = false;
  int partitions = 0;
  std::int64_t count = 0;  // elements of `type` per partition
  std::int64_t partition_bytes = 0;
  Setup setup;  // the receiver's: sent (receiver) or received (sender)
  bool setup_known = false;
  ErrorCode setup_error = ErrorCode::kOk;  // the setup failed or does not fit: every epoch fails
  core::Request* setup_request = nullptr;  // the setup's sub-request while the pml holds it
  std::vector<std::uint8_t> done;          // per partition of this epoch: ready (send) or arrived
  std::vector<std::uint8_t> sent;          // sender: per receiver partition, handed to the pml
  std::vector<std::unique_ptr<std::byte[]>> packed;  // sender: receiver partitions packed
  std::vector<std::byte> too_long;  // sender: a partition's bytes and one, to fail the receiver
  int pending = 0;                  // receiver partitions of this epoch not yet moved
  int in_flight = 0;                // sub-requests the pml holds
  bool freed = false;               // MPI_Request_free came; goes when in_flight is 0
  bool ended = false;               // this epoch completed (early, if its prequest was misused)
  int owed_epochs = 0;  // sender: epochs that failed before the setup came, sent nothing yet
  ErrorCode error = ErrorCode::kOk;
  DeviceTrigger* trigger = nullptr;  // its prequest (api/prequest.h), if it has one

  core::Request& r() const { return *request; }
  std::byte* base() const { return static_cast<std::byte*>(request->buffer); }
};

inline Partitioned* partitioned_of(const core::Request* r) {
  return static_cast<Partitioned*>(r->owner);
}

// Sender: sends every receiver partition whose bytes are all ready and not sent yet.
void send_ready(Partitioned* p);
// Posts the setup message: the receiver's send of it, or the sender's receive.
Status post_setup(Partitioned* p);

}  // namespace gpurun::api
