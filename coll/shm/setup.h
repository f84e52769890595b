// Setting up a communicator's shared collective segment, without blocking: rank 0 creates it
// (a memfd, or a named POSIX segment as the shm transport's GPURUN_SHM_SEGMENT says) and
// sends its descriptor to the others over the pml's collective channel (a binomial bcast of
// coll/basic); each maps it and checks its header; an allgather of coll/basic then tells every
// rank whether all of them did, so they all agree to use it or not, and where each is bound
// (coll/shm/core_groups.h). A named segment loses its
// name once everyone has mapped it: nothing is left behind.
//
// The setup's messages carry kSetupTag, which no collective call takes (their tags are
// 0..INT_MAX): when the ranks' counts differ in a communicator's first collective, a rank
// that runs another algorithm for it (a pml one, at the call's tag) never takes a setup
// message for its own, nor the other way round. A rank whose setup waits for a member that
// ran another algorithm goes on once that member's first shared-memory collective on the
// communicator sets its side up.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "coll/basic.h"
#include "coll/shm/core_groups.h"
#include "coll/shm/layout.h"
#include "runtime/base/status.h"
#include "runtime/transport/shm/segment.h"

namespace gpurun::coll::shm {

// The tag of the setup's messages on the collective channel: negative, beside the count
// guard's notices (coll/select_guard.cc).
inline constexpr int kSetupTag = kShmSetupTag;

class Setup {
 public:
  // Starts the setup of the segment of `comm` (whose size is above one), with messages
  // tagged kSetupTag on its collective channel. `slot_bytes`: rank 0's choice, which all take.
  Setup(pml::Pml& pml, const core::Communicator& comm, std::size_t slot_bytes);
  // Advances; true once finished.
  bool progress();
  // Once finished: the mapped segment and its layout, or why there is none (on every rank).
  const Status& status() const { return status_; }
  std::unique_ptr<transport::shm::Segment> take_segment() { return std::move(segment_); }
  const Layout& layout() const { return layout_; }
  // Once finished without error: each rank's core group (core_groups.h).
  const std::vector<int>& core_groups() const { return groups_; }
  // Once finished without error: each rank's process id when every rank may copy from every
  // other's memory by CMA (pml::Pml::cma_pid), else empty.
  std::vector<int> cma_pids() const;

 private:
  static constexpr std::size_t kDescriptorBytes = 256;
  void create(std::size_t slot_bytes);
  void attach();
  bool reaches_all_by_cma() const;

  pml::Pml& pml_;
  coll::Team team_;
  int rank_;
  Layout layout_;
  std::unique_ptr<transport::shm::Segment> segment_;
  std::array<char, kDescriptorBytes> descriptor_{};
  Seat seat_;
  std::vector<Seat> seats_;
  std::vector<int> groups_;
  std::unique_ptr<BasicCollective> bcast_;
  std::unique_ptr<BasicCollective> allgather_;
  Status status_;
  bool finished_ = false;
};

}  // namespace gpurun::coll::shm
