// A communicator's identity: its group, this process's rank in it and its context id.
// Each layer above keeps its own per-communicator state (matching queues, collective plans,
// error handler and attributes); this class holds identity only.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/core/group.h"

namespace gpurun::core {

class Communicator {
 public:
  Communicator(std::shared_ptr<const Group> group, int rank, std::uint32_t context_id)
      : group_(std::move(group)), rank_(rank), context_id_(context_id) {}

  int rank() const { return rank_; }
  int size() const { return group_->size(); }
  const Group& group() const { return *group_; }
  const std::shared_ptr<const Group>& shared_group() const { return group_; }
  std::uint32_t context_id() const { return context_id_; }
  // The handle the API layer gave this communicator (for error reports from lower layers).
  int handle() const { return handle_; }
  void set_handle(int handle) { handle_ = handle; }

 private:
  std::shared_ptr<const Group> group_;
  int rank_;
  std::uint32_t context_id_;
  int handle_ = 0;
};

}  // namespace gpurun::core
