// MPI_Isendrecv and MPI_Isendrecv_replace (and their _c forms): the exchange of
// MPI_Sendrecv(_replace) without the wait. The user's request completes when both halves have.
// Each half runs on a request of its own, which the pml returns to its pool when it completes
// (an orphan) after counting down the exchange's halves; the last one completes the user's
// request with the receive's status (or the send's error).
#include <memory>

#include "api/checks.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "api/sendrecv.h"

namespace gpurun::api {
namespace {

struct Exchange {
  core::Request* request = nullptr;  // the user's
  int pending = 1;                   // halves in flight, and the start until both are on their way
  core::MessageStatus status;        // the receive's; MPI_PROC_NULL's when there is none
  ErrorCode send_error = ErrorCode::kOk;
  std::unique_ptr<std::byte[]> copy;  // a replace's message, which the send reads
};

void count_down(Exchange* x) {
  if (--x->pending > 0) return;
  core::Request* r = x->request;
  r->status = x->status;
  if (r->status.error == ErrorCode::kOk) r->status.error = x->send_error;
  delete x;
  r->set_complete();
  if (r->orphan) the_pml().requests().release(r);  // freed by the program meanwhile
}

void half_done(core::Request* half) {
  auto* x = static_cast<Exchange*>(half->owner);
  if (half->kind == core::RequestKind::kRecv) {
    x->status = half->status;
  } else if (half->status.error != ErrorCode::kOk) {
    x->send_error = half->status.error;
  }
  count_down(x);
}

// Starts one half on an orphan request; false (with the error in `st`) if it did not start.
template <class Start>
Status start_half(Exchange* x, Start&& start) {
  pml::Pml& pml = the_pml();
  core::Request* half = pml.requests().allocate();
  half->owner = x;
  half->on_complete = half_done;
  half->orphan = true;
  ++x->pending;
  Status st = start(pml, half);
  if (!st.ok()) {  // the pml refused it before taking it: it is still ours
    --x->pending;
    pml.requests().release(half);
  }
  return st;
}

int start_exchange(const Call& call, MPI_Comm comm, ExchangeArgs& args, MPI_Request* request) {
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kComposite;
  r->comm = args.send.comm;
  r->active = true;
  auto* x = new Exchange{.request = r, .status = proc_null_status(), .copy = std::move(args.copy)};
  Status st = ok_status();
  if (args.has_recv) {
    const pml::RecvArgs& recv = args.recv;
    st = start_half(x, [&recv](pml::Pml& p, core::Request* h) { return p.irecv(recv, h); });
  }
  if (st.ok() && args.has_send) {
    const pml::SendArgs& send = args.send;
    st = start_half(x, [&send](pml::Pml& p, core::Request* h) { return p.isend(send, h); });
  }
  *request = handle_of(r);
  if (!st.ok()) {
    // A receive already on its way completes the request, which the program cannot wait for.
    r->orphan = true;
    *request = MPI_REQUEST_NULL;
  }
  count_down(x);
  return st.ok() ? MPI_SUCCESS : raise_status(call, comm, st);
}

int isendrecv(const Call& call, const SendrecvCall& a, MPI_Request* request) {
  ExchangeArgs args;
  if (int rc = check_exchange(call, a, &args); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  return start_exchange(call, a.comm, args, request);
}

int isendrecv_replace(const Call& call, const ReplaceCall& a, MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  ExchangeArgs args;
  if (int rc = check_replace_exchange(call, a, &args); rc != MPI_SUCCESS) return rc;
  return start_exchange(call, a.comm, args, request);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

GPURUN_SENDRECV_ENTRY(MPI_Isendrecv, int, isendrecv, MPI_Request*)
GPURUN_SENDRECV_ENTRY(MPI_Isendrecv_c, MPI_Count, isendrecv, MPI_Request*)
GPURUN_REPLACE_ENTRY(MPI_Isendrecv_replace, int, isendrecv_replace, MPI_Request*)
GPURUN_REPLACE_ENTRY(MPI_Isendrecv_replace_c, MPI_Count, isendrecv_replace, MPI_Request*)
