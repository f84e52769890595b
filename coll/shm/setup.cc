#include "coll/shm/setup.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "coll/shm/arena.h"
#include "pml/pml.h"
#include "runtime/base/log.h"
#include "runtime/transport/shm/params.h"

namespace gpurun::coll::shm {
namespace {

// An unpredictable name for a named segment (DESIGN.md decision 9), under the job's token
// when known, where the launcher looks for leftovers.
std::string segment_name() {
  std::random_device random;
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, "coll-%d-%08x%08x", static_cast<int>(getpid()), random(),
                random());
  const std::string& token = job_token();
  return (token.empty() ? std::string("/gpurun-") : "/gpurun-" + token + "-") + suffix;
}

}  // namespace

bool Setup::reaches_all_by_cma() const {
  for (int r = 0; r < layout_.size; ++r)
    if (r != rank_ && pml_.cma_pid(*team_.comm, r) == 0) return false;
  return true;
}

std::vector<int> Setup::cma_pids() const {
  std::vector<int> pids;
  for (const Seat& s : seats_) {
    if (s.cma != 1) return {};
    pids.push_back(static_cast<int>(s.pid));
  }
  return pids;
}

Setup::Setup(pml::Pml& pml, const core::Communicator& comm, std::size_t slot_bytes)
    : pml_(pml), team_{.comm = &comm, .members = {}, .tag = kSetupTag}, rank_(comm.rank()) {
  layout_.size = comm.size();
  if (rank_ == 0) create(slot_bytes);
  bcast_ = coll::bcast(pml_, team_, descriptor_.data(), descriptor_.size(), 0);
}

void Setup::create(std::size_t slot_bytes) {
  layout_.slot_bytes = slot_bytes;
  bool memfd = transport::shm::params::segment().get() == transport::shm::SegmentKind::kMemfd;
  auto created = transport::shm::Segment::create(layout_.total_bytes(), segment_name(), memfd);
  if (!created.ok()) {
    GPURUN_LOG(warn, coll, "shared collective segment of %zu bytes not created: %s",
               layout_.total_bytes(), created.status().to_string().c_str());
    return;  // an empty descriptor tells the others
  }
  segment_ = std::move(created).value();
  layout_.init(segment_->base());
  std::snprintf(descriptor_.data(), descriptor_.size(), "%s", segment_->descriptor().c_str());
}

// Maps the segment rank 0 described, and takes its slot size from the header.
void Setup::attach() {
  if (descriptor_[0] == '\0') return;
  descriptor_.back() = '\0';
  auto attached = transport::shm::Segment::attach(descriptor_.data());
  if (!attached.ok()) {
    GPURUN_LOG(warn, coll, "shared collective segment not mapped: %s",
               attached.status().to_string().c_str());
    return;
  }
  segment_ = std::move(attached).value();
  if (segment_->size() >= sizeof(Header))
    layout_.slot_bytes = Layout::header(segment_->base())->slot_bytes;
  if (!layout_.matches(segment_->base(), segment_->size())) {
    GPURUN_LOG(warn, coll, "shared collective segment %s has an unexpected header",
               descriptor_.data());
    segment_.reset();
  }
}

bool Setup::progress() {
  if (finished_) return true;
  if (allgather_ == nullptr) {
    if (!bcast_->done()) return false;
    if (rank_ != 0 && bcast_->status().ok()) attach();
    seat_ = own_seat(segment_ != nullptr);
    seat_.pid = getpid();
    seat_.cma = reaches_all_by_cma() ? 1 : 0;
    seats_.resize(static_cast<std::size_t>(layout_.size));
    allgather_ = coll::allgather(pml_, team_, &seat_, sizeof(Seat), seats_.data());
  }
  if (!allgather_->done()) return false;
  finished_ = true;
  bool agreed = true;
  for (const Seat& s : seats_) agreed = agreed && s.mapped == 1;
  if (!allgather_->status().ok()) {
    status_ = allgather_->status();
  } else if (!agreed) {
    status_ = Status(ErrorCode::kIo, "a rank could not create or map the shared segment");
  }
  if (!status_.ok()) {
    segment_.reset();
    return true;
  }
  groups_ = shm::core_groups(seats_);
  segment_->unlink();  // everyone has it mapped
  return true;
}

}  // namespace gpurun::coll::shm
