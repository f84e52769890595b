// A communicator's identity: its group, this process's rank in it and its context id.
// Each layer above keeps its own per-communicator state (matching queues, collective plans,
// error handler and attributes); this class holds identity only.
//
// An intercommunicator has two groups: group() is the remote one, which the ranks of
// point-to-point name (so the pml needs no other case), local_group() this process's, whose
// rank rank() is.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/core/group.h"

namespace gpurun::core {

class Communicator {
 public:
  Communicator(std::shared_ptr<const Group> group, int rank, std::uint32_t context_id,
               std::shared_ptr<const Group> local_group = nullptr)
      : group_(std::move(group)),
        local_group_(std::move(local_group)),
        rank_(rank),
        context_id_(context_id) {}

  int rank() const { return rank_; }
  int size() const { return group_->size(); }  // of the group peers' ranks name
  const Group& group() const { return *group_; }
  const std::shared_ptr<const Group>& shared_group() const { return group_; }
  bool inter() const { return local_group_ != nullptr; }
  const std::shared_ptr<const Group>& shared_local_group() const {
    return inter() ? local_group_ : group_;
  }
  std::uint32_t context_id() const { return context_id_; }
  // The handle the API layer gave this communicator (for error reports from lower layers).
  int handle() const { return handle_; }
  void set_handle(int handle) { handle_ = handle; }

 private:
  std::shared_ptr<const Group> group_;
  std::shared_ptr<const Group> local_group_;  // intercommunicators only
  int rank_;
  std::uint32_t context_id_;
  int handle_ = 0;
};

}  // namespace gpurun::core
