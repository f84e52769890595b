// What a partitioned request holds (api/partitioned.cc moves the data, api/partitioned_calls.cc
// has the MPI calls that make and drive it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "api/prequest.h"
#include "runtime/base/status.h"
#include "runtime/core/request.h"

namespace gpurun::api {

// What the receiver tells its sender. Its partitions travel in messages of `per_message`
// consecutive partitions (the last may hold fewer), message m with tag first_tag + m.
struct Setup {
  std::int32_t first_tag = 0;
  std::int32_t partitions = 0;
  std::int64_t partition_bytes = 0;
  std::int32_t per_message = 1;
  std::int32_t reserved = 0;

  int messages() const { return (partitions + per_message - 1) / per_message; }
  int first_partition(int m) const { return m * per_message; }
  int partitions_in(int m) const { return std::min(per_message, partitions - m * per_message); }
  std::int64_t offset(int m) const { return first_partition(m) * partition_bytes; }
  std::int64_t bytes(int m) const { return partitions_in(m) * partition_bytes; }
};

struct Partitioned {
  core::Request* request = nullptr;  // the program's
  bool send = false;
  int partitions = 0;
  std::int64_t count = 0;  // elements of `type` per partition
  std::int64_t partition_bytes = 0;
  Setup setup;  // the receiver's: sent (receiver) or received (sender)
  bool setup_known = false;
  ErrorCode setup_error = ErrorCode::kOk;    // the setup failed or does not fit: every epoch fails
  core::Request* setup_request = nullptr;    // the setup's sub-request while the pml holds it
  std::vector<std::uint8_t> done;            // per partition of this epoch: ready (send) or arrived
  std::vector<std::uint8_t> sent;            // sender: per message, handed to the pml
  std::vector<std::int32_t> missing;         // sender: per message, its partitions not ready yet
  std::vector<std::int32_t> sources;         // sender: per message, its partitions
  std::vector<std::pair<int, int>> targets;  // sender: per partition, first and last message
  std::vector<std::unique_ptr<std::byte[]>> packed;  // sender: messages packed
  std::vector<std::byte> too_long;  // sender: a message's bytes and one, to fail the receiver
  int pending = 0;                  // messages of this epoch not yet moved
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

// The receiver's setup: how many of its partitions travel in one message
// (GPURUN_PARTITIONED_MESSAGE_SIZE).
Setup receiver_setup(std::int32_t first_tag, int partitions, std::int64_t partition_bytes);
// Sender: sends every message whose bytes are all ready and not sent yet.
void send_ready(Partitioned* p);
// Sender: hands message m to the pml.
void send_message(Partitioned* p, int m);
// Sender: partition i was marked ready in this epoch (done[i] is set); sends the messages it
// completes.
inline void partition_ready(Partitioned* p, int i) {
  if (!p->setup_known || !p->r().active || p->ended) return;
  auto [first, last] = p->targets[static_cast<std::size_t>(i)];
  for (int m = first; m <= last; ++m) {
    auto k = static_cast<std::size_t>(m);
    if (--p->missing[k] == 0 && !p->sent[k]) send_message(p, m);
  }
}
// Posts the setup message: the receiver's send of it, or the sender's receive.
Status post_setup(Partitioned* p);

}  // namespace gpurun::api
