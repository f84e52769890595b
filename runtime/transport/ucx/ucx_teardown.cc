// The ucx transport's teardown: endpoints of ranks that left, and the end of the worker.
#include <algorithm>
#include <chrono>
#include <vector>

#include "runtime/base/log.h"
#include "runtime/transport/ucx/ucx_transport.h"

namespace gpurun::transport::ucx {

void UcxTransport::close_endpoint(UcxEndpoint& ep) {
  if (ep.ep_ == nullptr) return;
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = UCP_EP_CLOSE_FLAG_FORCE;
  ucs_status_ptr_t r = api().ep_close_nbx(ep.ep_, &p);
  if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
    while (api().request_check_status(r) == UCS_INPROGRESS) api().worker_progress(worker_);
    api().request_free(r);
  }
  ep.ep_ = nullptr;
}

void UcxTransport::close_when_unused(UcxEndpoint& ep) {
  if (inbound_[ep.peer_].arrivals.empty() && !ep.sending()) to_close_.push_back(&ep);
}

void UcxTransport::close_forgotten() {
  std::vector<UcxEndpoint*> closing;
  closing.swap(to_close_);
  for (UcxEndpoint* ep : closing) close_endpoint(*ep);
}

int UcxTransport::release_waiting() {
  int released = 0;
  for (Inbound& in : inbound_)
    for (auto& [id, arrival] : in.arrivals) {
      for (const Piece& piece : arrival.waiting) api().am_data_release(worker_, piece.desc);
      released += static_cast<int>(arrival.waiting.size());
      arrival.waiting.clear();
    }
  return released;
}

void UcxTransport::settle_abandoned() {
  auto deadline = std::chrono::steady_clock::now() + kAbandonedFlushWait;
  auto sending = [this] {  // quiescent() may have waited for them already
    return !flush_given_up_ &&
           std::any_of(endpoints_.begin(), endpoints_.end(),
                       [](const auto& ep) { return ep && ep->ep_ != nullptr && ep->sending(); });
  };
  for (;;) {
    if (int released = release_waiting(); released > 0) {  // flushed out: the senders hear it
      GPURUN_LOG(debug, transport, "ucx: %d pieces of offers no receive took released", released);
      ucp_request_param_t p;
      p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
      p.cb.send = [](void* request, ucs_status_t, void* user_data) {
        api().request_free(request);
        --static_cast<UcxTransport*>(user_data)->settle_flushes_;
      };
      p.user_data = this;
      ucs_status_ptr_t r = api().worker_flush_nbx(worker_, &p);
      if (r != nullptr && !UCS_PTR_IS_ERR(r)) ++settle_flushes_;
    }
    if (settle_flushes_ == 0 && !sending()) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      GPURUN_LOG(debug, transport, "ucx: sends to ranks that left were never answered");
      return;
    }
    api().worker_progress(worker_);
  }
}

void UcxTransport::cancel_unanswered_sends() {
  for (const auto& ep : endpoints_) {
    if (!ep || ep->ep_ == nullptr || !ep->detects_failure_ || !ep->sending()) continue;
    GPURUN_LOG(debug, transport, "ucx: sends to rank %d never completed: cancelled", ep->peer_);
    close_endpoint(*ep);
  }
}

UcxTransport::~UcxTransport() { shut_down(); }

void UcxTransport::shut_down() {
  closing_ = true;
  if (worker_ != nullptr) {
    cancel_small();
    settle_abandoned();
    cancel_unanswered_sends();
    // The endpoints end with the worker (closing each may wait on its peer, which may no longer
    // make progress: it is in its own MPI_Finalize).
    for (int i = 0; i < 1000 && api().worker_progress(worker_) != 0; ++i) {
    }
    if (release_waiting() > 0)  // offers that came in meanwhile: their senders may still hear
      for (int i = 0; i < 1000 && api().worker_progress(worker_) != 0; ++i) {
      }
    discard_unexpected_small();
    if (generic_ != 0) api().dt_destroy(generic_);
    generic_ = 0;
    // UCX stops its thread once the last worker is gone.
    api().worker_destroy(worker_);
    worker_ = nullptr;
  }
  if (context_ != nullptr) api().cleanup(context_);
  context_ = nullptr;
}

}  // namespace gpurun::transport::ucx
