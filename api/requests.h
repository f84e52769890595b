// Request handles, statuses, and waiting: what the MPI completion calls share.
#pragma once

#include <mpi.h>

#include <string>
#include <unordered_map>

#include "api/call.h"
#include "api/handle.h"
#include "api/state.h"
#include "pml/pml.h"
#include "runtime/core/request.h"

namespace gpurun::api {

inline pml::Pml& the_pml() { return *state().pml; }

inline MPI_Request handle_of(const core::Request* r) {
  return make_handle(HandleKind::kIndirect, ObjectType::kRequest, r->index);
}
// The request a handle names, or nullptr (null, freed, not a request). Inline: every
// completion call looks up each of its handles.
inline core::Request* find_request(MPI_Request handle) {
  // Kind and type in one comparison: the bits above the index.
  constexpr std::uint32_t kRequestBits =
      static_cast<std::uint32_t>(make_handle(HandleKind::kIndirect, ObjectType::kRequest, 0)) >>
      kIndexBits;
  if ((static_cast<std::uint32_t>(handle) >> kIndexBits) != kRequestBits) return nullptr;
  return the_pml().requests().find(handle_index(handle));
}

// Reports a request argument that names no request (MPI_ERR_REQUEST): freed, completed by an
// earlier wait or test, or never created.
int bad_request(const Call& call, const char* arg, MPI_Request handle);
// Reports a request argument of MPIX_Isend_enqueue or MPIX_Irecv_enqueue given to a call that
// does not take them (MPI_ERR_REQUEST): only MPIX_Wait(all)_enqueue completes those.
int refuse_enqueued(const Call& call, const char* arg, MPI_Request handle);

// Writes `m` into `status` (nothing for MPI_STATUS_IGNORE). MPI_ERROR is left alone: only the
// calls that complete several requests set it.
void write_status_to(MPI_Status* status, const core::MessageStatus& m);
inline void write_status(MPI_Status* status, const core::MessageStatus& m) {
  if (status != MPI_STATUS_IGNORE) write_status_to(status, m);
}
// The status of an operation with nothing in it (MPI_PROC_NULL, inactive requests).
void write_empty_status(MPI_Status* status);
std::uint64_t status_bytes(const MPI_Status& status);
void set_status_bytes(MPI_Status* status, std::uint64_t bytes);

// Datatype lifetimes: the pml holds a reference on an operation's datatype while the operation
// runs; a persistent request holds one more from its *_init call until it is freed, so that
// MPI_Type_free right after MPI_Send_init is safe. hold_datatype takes that reference;
// release_request drops it and returns the request to the pool; a request freed by the user
// while in flight (orphan_request) drops it when it completes.
void hold_datatype(core::Request* r);
namespace detail {
// note_failure()'s messages, by request, until collected or the request goes back to the pool
// (made by the first note, never destroyed; under the API lock, like every use).
extern std::unordered_map<const core::Request*, std::string>* g_failure_notes;
inline bool any_failure_notes() { return g_failure_notes != nullptr && !g_failure_notes->empty(); }
void release_request_slow(core::Request* r);
}  // namespace detail
// Inline: one per completed nonblocking call; a persistent request (its own type reference)
// or a kept failure note takes the slow path.
inline void release_request(core::Request* r) {
  if (r->persistent || detail::any_failure_notes()) [[unlikely]] {
    detail::release_request_slow(r);
    return;
  }
  the_pml().requests().release(r);
}
// Makes `r` go by itself when its operation completes (MPI_Request_free of a request in flight).
void orphan_request(core::Request* r);

// Why request `r` failed, where its error code does not say it (a nonblocking or persistent
// collective's status): the wait or test that collects it reports `message`.
void note_failure(const core::Request* r, std::string message);

// A request that is already complete, with `m` as its status (operations on MPI_PROC_NULL).
core::Request* completed_request(const core::MessageStatus& m);

// For the blocking waits: a receive from MPI_ANY_SOURCE that nothing can match any more
// fails (kPeerFailed) instead of waiting for ever. That is once every other member of its
// communicator has left (pml/leave.cc), with no other thread that could send to this rank, and
// after a whole progress pass, which delivers what this rank sent itself before the wait.
class StuckReceives {
 public:
  // At the start of each look of the wait's condition.
  void next_look() { ++looks_; }
  // Whether `r` (not complete) failed so: it is complete now.
  bool fail(core::Request* r) {
    return the_pml().unmatchable(*r) && looks_ >= 2 && !g_thread_multiple &&
           the_pml().fail_unmatchable(r);
  }

 private:
  int looks_ = 0;
};

// Polls until `r` completes, applying the wait policy (under MPI_THREAD_MULTIPLE, without
// holding the library's lock while idle); fails it as StuckReceives says.
void wait_for(core::Request* r);
// Idle polls between yields while waiting for `r` where ranks outnumber cores: more than the
// wait policy's for a small message from a peer that runs on another core, else 0 (the policy's).
std::uint64_t yield_polls_for(const core::Request* r);
// Polls until done() holds, as wait_for does.
template <class Done>
void wait_until(Done&& done, std::uint64_t yield_polls = 0);

// What a completed request ends as: writes the status, frees a non-persistent request (the
// handle becomes MPI_REQUEST_NULL) or deactivates a persistent one, and returns the request's
// error through its communicator's error handler.
int collect(const Call& call, core::Request* r, MPI_Request* handle, MPI_Status* status);
// The same without running the error handler: returns the error class (for the calls that
// complete several requests and report MPI_ERR_IN_STATUS), and, when it failed, `comm` the
// handle to report on.
int finish_failed(core::Request* r, MPI_Request* handle, MPI_Comm* comm);
// An extended generalized request (MPIX_Grequest_start; api/grequest.cc) not yet complete: its
// poll function's turn, and MPI_Wait's and MPI_Waitall's one call of its wait function.
void poll_generalized(core::Request* r);
void wait_generalized(core::Request* r);
// Whether `r` is complete, for the tests and waits: a generalized request's poll function runs
// first.
inline bool request_done(core::Request* r) {
  if (r->kind == core::RequestKind::kGeneralized && !r->complete()) [[unlikely]]
    poll_generalized(r);
  return r->complete();
}
// A generalized request's finish (api/grequest.cc): the program's query and free functions.
int finish_generalized(core::Request* r, MPI_Request* handle, MPI_Status* status, MPI_Comm* comm);
inline int finish(core::Request* r, MPI_Request* handle, MPI_Status* status, MPI_Comm* comm) {
  if (r->kind == core::RequestKind::kGeneralized) [[unlikely]]
    return finish_generalized(r, handle, status, comm);
  write_status(status, r->status);
  if (r->status.error != ErrorCode::kOk) [[unlikely]]
    return finish_failed(r, handle, comm);
  if (r->persistent) {
    r->active = false;
  } else {
    release_request(r);
    *handle = MPI_REQUEST_NULL;
  }
  return MPI_SUCCESS;
}
// The message raise_request_error() reports for a failure whose cause no ErrorCode names (a
// generalized request's callback).
void note_last_failure(std::string message);
// Reports the error of the request that finish() last saw fail through `comm`'s handler.
int raise_request_error(const Call& call, MPI_Comm comm, int error_class);
// Reports a completed request's error through its communicator's handler without freeing it
// (MPI_Request_get_status); MPI_SUCCESS when it succeeded.
int raise_request(const Call& call, const core::Request* r);
// MPI_Request_get_status's answer for a completed request `r`, which stays: its status, and its
// error through its communicator's handler (a generalized request's: its query function's).
int report_status(const Call& call, core::Request* r, MPI_Status* status);
// The MPI error class of a completed request (MPI_SUCCESS when it succeeded).
int request_error_class(const core::Request* r);
// Generalized requests (api/grequest.cc): MPI_Request_get_status's status of a completed one
// (its query function), MPI_Cancel (its cancel function), MPI_Request_free (its free function,
// once it has completed). Each returns the error of `call`.
int generalized_status(const Call& call, const core::Request* r, MPI_Status* status);
int cancel_generalized(const Call& call, core::Request* r);
int free_generalized(const Call& call, core::Request* r);
// The handle of the communicator a request runs on (whose error handler reports its errors).
MPI_Comm comm_handle_of(const core::Request* r);

}  // namespace gpurun::api

#include "api/requests_inl.h"
