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
//
// MPICH's extended generalized requests (MPIX_Grequest_start, and MPIX_Grequest_class_create
// with MPIX_Grequest_class_allocate, which start requests of one set of functions) add two: a
// poll function, which every test or wait on the request calls while the request is not
// complete, so that the program can advance the operation there and call MPI_Grequest_complete,
// and a wait function, which MPI_Wait and MPI_Waitall call once, as MPICH does, as
// wait_fn(1, &extra_state, 0, &status), to block until the operation is done (a wait function
// that returns with the request not complete leaves the wait polling). A poll or wait function
// that fails completes the request, and the wait or test that collects it reports the failure
// (after the query and free functions ran).
#include <cstring>
#include <vector>

#include "api/attr.h"
#include "api/checks.h"
#include "api/error_codes.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

struct Functions {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free;
  MPI_Grequest_cancel_function* cancel;
  MPIX_Grequest_poll_function* poll;  // null for MPI_Grequest_start's
  MPIX_Grequest_wait_function* wait;
};

struct Grequest {
  Functions fn;
  void* extra_state;
  bool fortran = false;        // its functions are Fortran procedures (MPII_Grequest_set_lang_f77)
  bool completed = false;      // MPI_Grequest_complete was called (or a callback failed)
  int failed = MPI_SUCCESS;    // the code the poll or wait function failed with
  const char* failed_in = "";  // "poll" or "wait"
};

// MPIX_Grequest_class_create's classes: class k is the handle kFirstClass + k. They live as
// long as the process (MPICH has no call that frees one).
constexpr int kFirstClass = 0x5c000000;
std::vector<Functions>& classes() {
  static auto* all = new std::vector<Functions>();
  return *all;
}

Grequest* grequest_of(const core::Request* r) { return static_cast<Grequest*>(r->owner); }

// The class of a code a callback returned (MPI_ERR_OTHER for one that is no error code).
int class_of_callback_code(int code) {
  int error_class = class_of_code(code);
  return error_class <= MPI_SUCCESS ? MPI_ERR_OTHER : error_class;
}

// The functions as MPICH's Fortran bindings hand them over: Fortran procedures that take every
// argument by reference, the status as Fortran's INTEGER array, and return their code in the
// last.
using FortranQuery = void(void* extra_state, MPI_Fint* status, MPI_Fint* ierror);
using FortranFree = void(void* extra_state, MPI_Fint* ierror);
using FortranCancel = void(void* extra_state, MPI_Fint* complete, MPI_Fint* ierror);
static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
template <class To, class From>
To* fortran(From* function) {
  return reinterpret_cast<To*>(reinterpret_cast<void (*)()>(function));
}

// The status the query function writes, starting from an empty one.
int query(const Grequest& g, MPI_Status* out) {
  std::memset(out, 0, sizeof *out);
  out->MPI_SOURCE = MPI_UNDEFINED;
  out->MPI_TAG = MPI_UNDEFINED;
  if (g.fn.query == nullptr) return MPI_SUCCESS;
  if (!g.fortran) return g.fn.query(g.extra_state, out);
  MPI_Fint status[MPI_F_STATUS_SIZE], ierror = MPI_SUCCESS;
  std::memcpy(status, out, sizeof status);
  fortran<FortranQuery>(g.fn.query)(g.extra_state, status, &ierror);
  if (ierror == MPI_SUCCESS) std::memcpy(out, status, sizeof status);
  return ierror;
}

int call_free(const Grequest& g) {
  if (g.fn.free == nullptr) return MPI_SUCCESS;
  if (!g.fortran) return g.fn.free(g.extra_state);
  MPI_Fint ierror = MPI_SUCCESS;
  fortran<FortranFree>(g.fn.free)(g.extra_state, &ierror);
  return ierror;
}

int call_cancel(const Grequest& g) {
  if (g.fn.cancel == nullptr) return MPI_SUCCESS;
  if (!g.fortran) return g.fn.cancel(g.extra_state, g.completed ? 1 : 0);
  MPI_Fint complete = g.completed ? 1 : 0, ierror = MPI_SUCCESS;  // gfortran's .TRUE. is 1
  fortran<FortranCancel>(g.fn.cancel)(g.extra_state, &complete, &ierror);
  return ierror;
}

// Calls the free function and gives the request back; the function's code.
int release_generalized(core::Request* r) {
  Grequest* g = grequest_of(r);
  int rc = call_free(*g);
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

int grequest_start(const Call& call, const Functions& fn, void* extra_state, MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kGeneralized;
  r->active = true;
  r->owner = new Grequest{fn, extra_state};
  *request = handle_of(r);
  return MPI_SUCCESS;
}

int class_create(const Call& call, const Functions& fn, MPIX_Grequest_class* greq_class) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, greq_class);
  *greq_class = kFirstClass + static_cast<int>(classes().size());
  classes().push_back(fn);
  return MPI_SUCCESS;
}

int class_allocate(const Call& call, MPIX_Grequest_class greq_class, void* extra_state,
                   MPI_Request* request) {
  auto k = static_cast<std::size_t>(greq_class) - kFirstClass;
  if (greq_class < kFirstClass || k >= classes().size()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument greq_class (0x%x) is no class that MPIX_Grequest_class_create gave",
                 static_cast<unsigned>(greq_class));
  }
  return grequest_start(call, classes()[k], extra_state, request);
}

// The request completes with the failure of callback `in` (code `rc`).
void fail_in(core::Request* r, const char* in, int rc) {
  Grequest* g = grequest_of(r);
  g->failed = rc;
  g->failed_in = in;
  g->completed = true;
  r->set_complete();
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

void poll_generalized(core::Request* r) {
  Grequest* g = grequest_of(r);
  if (g->fn.poll == nullptr || g->completed) return;
  MPI_Status s;
  int rc = g->fn.poll(g->extra_state, &s);
  if (rc != MPI_SUCCESS && !r->complete()) fail_in(r, "poll", rc);
}

void wait_generalized(core::Request* r) {
  Grequest* g = grequest_of(r);
  if (g->fn.wait == nullptr || g->completed) return;
  MPI_Status s;
  int rc;
  {
    UserCallbackScope unlocked;  // another thread may have to complete it
    rc = g->fn.wait(1, &g->extra_state, 0.0, &s);
  }
  if (rc != MPI_SUCCESS && !r->complete()) fail_in(r, "wait", rc);
}

int finish_generalized(core::Request* r, MPI_Request* handle, MPI_Status* status, MPI_Comm* comm) {
  MPI_Status s;
  int failed = grequest_of(r)->failed;
  const char* failed_in = grequest_of(r)->failed_in;
  int rc = query(*grequest_of(r), &s);
  if (status != MPI_STATUS_IGNORE) {
    int error = status->MPI_ERROR;  // left alone, as for every other request
    *status = s;
    status->MPI_ERROR = error;
  }
  int free_rc = release_generalized(r);
  *handle = MPI_REQUEST_NULL;
  *comm = MPI_COMM_WORLD;
  const char* in = failed != MPI_SUCCESS ? failed_in : rc != MPI_SUCCESS ? "query" : "free";
  if (failed != MPI_SUCCESS) rc = failed;
  if (rc == MPI_SUCCESS) rc = free_rc;
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  note_last_failure(std::string("the generalized request's ") + in +
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
  return callback_error(call, "cancel", call_cancel(*grequest_of(r)));
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
  return grequest_start(call, {query_fn, free_fn, cancel_fn, nullptr, nullptr}, extra_state,
                        request);
}

extern "C" int PMPIX_Grequest_start(MPI_Grequest_query_function* query_fn,
                                    MPI_Grequest_free_function* free_fn,
                                    MPI_Grequest_cancel_function* cancel_fn,
                                    MPIX_Grequest_poll_function* poll_fn,
                                    MPIX_Grequest_wait_function* wait_fn, void* extra_state,
                                    MPI_Request* request) {
  GPURUN_API_ENTER("MPIX_Grequest_start");
  return grequest_start(call, {query_fn, free_fn, cancel_fn, poll_fn, wait_fn}, extra_state,
                        request);
}

extern "C" int PMPIX_Grequest_class_create(MPI_Grequest_query_function* query_fn,
                                           MPI_Grequest_free_function* free_fn,
                                           MPI_Grequest_cancel_function* cancel_fn,
                                           MPIX_Grequest_poll_function* poll_fn,
                                           MPIX_Grequest_wait_function* wait_fn,
                                           MPIX_Grequest_class* greq_class) {
  GPURUN_API_ENTER("MPIX_Grequest_class_create");
  return class_create(call, {query_fn, free_fn, cancel_fn, poll_fn, wait_fn}, greq_class);
}

extern "C" int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void* extra_state,
                                             MPI_Request* request) {
  GPURUN_API_ENTER("MPIX_Grequest_class_allocate");
  return class_allocate(call, greq_class, extra_state, request);
}

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  GPURUN_API_ENTER("MPI_Grequest_complete");
  return grequest_complete(call, request);
}

// MPICH's Fortran bindings start a generalized request with MPI_Grequest_start, then say that
// its functions are Fortran procedures.
extern "C" __attribute__((visibility("default"))) void MPII_Grequest_set_lang_f77(
    MPI_Request greq) {
  const BigLock lock;
  gpurun::core::Request* r = find_request(greq);
  if (r != nullptr && r->kind == gpurun::core::RequestKind::kGeneralized)
    grequest_of(r)->fortran = true;
}

GPURUN_MPI_ALIAS(MPI_Grequest_start)
GPURUN_MPI_ALIAS(MPI_Grequest_complete)
GPURUN_MPI_ALIAS(MPIX_Grequest_start)
GPURUN_MPI_ALIAS(MPIX_Grequest_class_create)
GPURUN_MPI_ALIAS(MPIX_Grequest_class_allocate)
