// Generalized requests: MPI_Grequest_start and MPI_Grequest_complete, and what the completion
// calls, MPI_Request_get_status, MPI_Cancel and MPI_Request_free do with such a request.
//
// The program runs the operation itself (often in a thread of its own) and says when it is
// done with MPI_Grequest_complete; until then a wait on the request polls gpurun's progress
// like any other. The wait or test that collects the completed request calls the program's
// query function for the status, then its free function; MPI_Request_get_status calls only the
// query function; MPI_Cancel calls the cancel function, telling it whether the request has
// completed; MPI_Request_free calls the free function, once the request has completed (at
// MPI_Grequest_complete for a request freed before). An error code a function returns is the
// error of the call that ran it, reported through MPI_COMM_WORLD's handler (a generalized
// request has no communicator). A null function counts as one that does nothing and succeeds.
#include <cstring>

#include "api/checks.h"
#include "api/error_codes.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

struct Grequest {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free;
  MPI_Grequest_cancel_function* cancel;
  void* extra_state;
  bool completed = false;  // MPI_Grequest_complete was called
};

Grequest* grequest_of(const core::Request* r) { return static_cast<Grequest*>(r->owner); }

// The class of a code a callback returned (MPI_ERR_OTHER for one that is no error code).
int class_of_callback_code(int code) {
  int error_class = class_of_code(code);
  return error_class <= MPI_SUCCESS ? MPI_ERR_OTHER : error_class;
}

// The status the query function writes, starting from an empty one.
int query(const Grequest& g, MPI_Status* out) {
  std::memset(out, 0, sizeof *out);
  out->MPI_SOURCE = MPI_UNDEFINED;
  out->MPI_TAG = MPI_UNDEFINED;
  return g.query != nullptr ? g.query(g.extra_state, out) : MPI_SUCCESS;
}

// Calls the free function and gives the request back; the function's code.
int release_generalized(core::Request* r) {
  Grequest* g = grequest_of(r);
  int rc = g->free != nullptr ? g->free(g->extra_state) : MPI_SUCCESS;
  delete g;
  r->owner = nullptr;
  r->orphan = false;
  release_request(r);
  return rc;
}

// The error a callback's code makes in `call` (MPI_SUCCESS when it succeeded).
int callback_error(const Call& call, const char* function, int code) {
  if (code == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(call, MPI_COMM_WORLD, class_of_callback_code(code),
               "the generalized request's %s function returned error code %d", function, code);
}

int grequest_start(const Call& call, MPI_Grequest_query_function* query_fn,
                   MPI_Grequest_free_function* free_fn, MPI_Grequest_cancel_function* cancel_fn,
                   void* extra_state, MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kGeneralized;
  r->active = true;
  r->owner = new Grequest{query_fn, free_fn, cancel_fn, extra_state};
  *request = handle_of(r);
  return MPI_SUCCESS;
}

int grequest_complete(const Call& call, MPI_Request request) {
  core::Request* r = find_request(request);
  if (r == nullptr) return bad_request(call, "request", request);
  if (r->kind != core::RequestKind::kGeneralized) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_REQUEST,
                 "argument request (0x%x) is not a generalized request (MPI_Grequest_start)",
                 static_cast<unsigned>(request));
  }
  Grequest* g = grequest_of(r);
  if (g->completed) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_REQUEST,
                 "argument request (0x%x): MPI_Grequest_complete was already called on it",
                 static_cast<unsigned>(request));
  }
  g->completed = true;
  if (r->orphan) return callback_error(call, "free", release_generalized(r));
  r->set_complete();
  return MPI_SUCCESS;
}

}  // namespace

int finish_generalized(core::Request* r, MPI_Request* handle, MPI_Status* status, MPI_Comm* comm) {
  MPI_Status s;
  int rc = query(*grequest_of(r), &s);
  if (status != MPI_STATUS_IGNORE) {
    int error = status->MPI_ERROR;  // left alone, as for every other request
    *status = s;
    status->MPI_ERROR = error;
  }
  int free_rc = release_generalized(r);
  *handle = MPI_REQUEST_NULL;
  *comm = MPI_COMM_WORLD;
  if (rc == MPI_SUCCESS) rc = free_rc;
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  note_last_failure(std::string("the generalized request's ") + (rc == free_rc ? "free" : "query") +
                    " function returned error code " + std::to_string(rc));
  return class_of_callback_code(rc);
}

int generalized_status(const Call& call, const core::Request* r, MPI_Status* status) {
  MPI_Status s;
  int rc = query(*grequest_of(r), &s);
  if (status != MPI_STATUS_IGNORE) *status = s;
  return callback_error(call, "query", rc);
}

int cancel_generalized(const Call& call, core::Request* r) {
  const Grequest& g = *grequest_of(r);
  int rc = g.cancel != nullptr ? g.cancel(g.extra_state, g.completed ? 1 : 0) : MPI_SUCCESS;
  return callback_error(call, "cancel", rc);
}

int free_generalized(const Call& call, core::Request* r) {
  if (!grequest_of(r)->completed) {
    r->orphan = true;  // MPI_Grequest_complete frees it
    return MPI_SUCCESS;
  }
  return callback_error(call, "free", release_generalized(r));
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn,
                                   MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Grequest_start");
  return grequest_start(call, query_fn, free_fn, cancel_fn, extra_state, request);
}

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  GPURUN_API_ENTER("MPI_Grequest_complete");
  return grequest_complete(call, request);
}

GPURUN_MPI_ALIAS(MPI_Grequest_start)
GPURUN_MPI_ALIAS(MPI_Grequest_complete)
