#include "api/comm_cid.h"

#include <algorithm>
#include <vector>

#include "api/state.h"

namespace gpurun::api {
namespace {

// One-process agreements that wait for the mask.
std::vector<CidAgreement*>& parked() {
  static auto* agreements = new std::vector<CidAgreement*>();
  return *agreements;
}

}  // namespace

core::ContextIds& context_ids() {
  static auto* ids = new core::ContextIds();
  return *ids;
}

// Lets the one-process agreements that waited for the mask take an id, now that it is free.
void kick_parked() {
  if (context_ids().held() || parked().empty()) return;
  std::vector<CidAgreement*> waiting = parked();
  for (CidAgreement* a : waiting) {
    a->run();
    if (context_ids().held()) break;
  }
}

void release_context_id(int id) {
  for (int freed : context_ids().release(id))
    if (state().pml) state().pml->reuse_context_id(static_cast<std::uint32_t>(freed));
  kick_parked();
}

std::unique_ptr<CidAgreement> CidAgreement::start(coll::Team team, std::uint64_t key,
                                                  bool device_only) {
  std::unique_ptr<CidAgreement> a(new CidAgreement(std::move(team), key, device_only));
  a->starting_ = true;
  a->run();
  a->starting_ = false;
  return a;
}

CidAgreement::~CidAgreement() {
  if (parked_) std::erase(parked(), this);
  if (ticket_ != 0) context_ids().leave(ticket_);
}

void CidAgreement::on_round(void* self) { static_cast<CidAgreement*>(self)->run(); }

// Concludes finished rounds and starts the next ones until a round is in flight or the
// agreement is over. A round that completes at once (its messages had all arrived) is
// concluded in the same loop.
void CidAgreement::run() {
  if (done_ || running_) return;
  running_ = true;
  while (!done_) {
    if (team_.size() == 1) {
      if (!take_alone()) break;
      continue;
    }
    if (coll_) {
      if (!coll_->done()) break;
      conclude_round();
      if (done_) break;
    }
    start_round();
  }
  running_ = false;
  if (done_ && !starting_ && done_fn_ != nullptr) done_fn_(done_context_);
}

bool CidAgreement::take_alone() {
  int id = context_ids().take_alone();
  if (id == -1) {
    if (!parked_) parked().push_back(this);
    parked_ = true;
    return false;
  }
  if (id == -2) {
    finish(-1,
           Status(ErrorCode::kNoResource, "no context id is free: every one of the " +
                                              std::to_string(core::ContextIds::kMaxIds) +
                                              " is in use; free communicators with MPI_Comm_free"));
  } else {
    finish(id, ok_status());
  }
  return true;
}

void CidAgreement::start_round() {
  buffer_.fill(0);
  if (round_ > 0) {
    core::ContextIds::Mask mask;
    bool offered = context_ids().offer(ticket_, &mask);
    std::copy(mask.begin(), mask.end(), buffer_.begin());
    buffer_[kWords] = offered ? 1 : 0;
  }
  buffer_[kWords + 1] = device_only_ ? 1 : 0;
  // Replacing the previous round may destroy the collective whose callback runs us: it touches
  // nothing after its callback returns.
  coll_ = coll::allreduce(*state().pml, team_, buffer_, coll::ReduceOp::kBand);
  coll_->on_done(on_round, this);
}

void CidAgreement::conclude_round() {
  if (!coll_->status().ok()) {
    finish(-1, coll_->status());
    return;
  }
  device_only_ = buffer_[kWords + 1] != 0;
  if (round_++ == 0) {
    ticket_ = context_ids().enter(key_);
    return;
  }
  core::ContextIds::Mask mask;
  std::copy(buffer_.begin(), buffer_.begin() + kWords, mask.begin());
  bool all_offered = buffer_[kWords] != 0;
  int id = context_ids().conclude(ticket_, mask);
  if (id >= 0) {
    finish(id, ok_status());
  } else if (all_offered) {
    finish(-1, Status(ErrorCode::kNoResource,
                      "no context id is free on every member of the new communicator (each "
                      "process has at most " +
                          std::to_string(core::ContextIds::kMaxIds) +
                          " live communicators); free communicators with MPI_Comm_free"));
  }
  kick_parked();
}

void CidAgreement::finish(int id, Status status) {
  if (ticket_ != 0) {
    context_ids().leave(ticket_);
    ticket_ = 0;
  }
  if (parked_) std::erase(parked(), this);
  parked_ = false;
  id_ = id;
  status_ = std::move(status);
  done_ = true;
}

}  // namespace gpurun::api
