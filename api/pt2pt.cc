// Blocking and nonblocking sends and receives (MPI_Send, MPI_Recv, MPI_Isend, ... and their
// large-count _c forms).
#include "api/pt2pt.h"

#include "api/checks.h"
#include "api/memory.h"
#include "api/requests.h"

namespace gpurun::api {

namespace {
// The checks, inlined into the calls of this file (one call's frame the fewer), and out of line
// for the others (check_send, check_recv).
[[gnu::always_inline]] inline int check_send_inline(const Call& call, const SendCall& a,
                                                    Resolved* out) {
  GPURUN_CHECK_COMM(entry, a.comm);
  GPURUN_CHECK_COUNT(a.comm, a.count);
  GPURUN_CHECK_TYPE(a.comm, type, a.datatype);
  GPURUN_CHECK_BUFFER(a.comm, a.buf, a.count, type);
  GPURUN_CHECK_RANK(a.comm, entry, "dest", a.dest, false);
  GPURUN_CHECK_TAG(a.comm, a.tag, false);
  *out = Resolved{entry, type, memory_of(a.buf)};
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline int check_recv_inline(const Call& call, const RecvCall& a,
                                                    Resolved* out) {
  GPURUN_CHECK_COMM(entry, a.comm);
  GPURUN_CHECK_COUNT(a.comm, a.count);
  GPURUN_CHECK_TYPE(a.comm, type, a.datatype);
  GPURUN_CHECK_BUFFER(a.comm, a.buf, a.count, type);
  GPURUN_CHECK_RANK(a.comm, entry, "source", a.source, true);
  GPURUN_CHECK_TAG(a.comm, a.tag, true);
  *out = Resolved{entry, type, memory_of(a.buf)};
  return MPI_SUCCESS;
}
}  // namespace

int check_send(const Call& call, const SendCall& a, Resolved* out) {
  return check_send_inline(call, a, out);
}
int check_recv(const Call& call, const RecvCall& a, Resolved* out) {
  return check_recv_inline(call, a, out);
}

int send(const Call& call, const SendCall& a) {
  Resolved res;
  if (int rc = check_send_inline(call, a, &res); rc != MPI_SUCCESS) return rc;
  if (a.dest == MPI_PROC_NULL) return MPI_SUCCESS;
  pml::SendArgs args = send_args(a, res);
  pml::Pml& pml = the_pml();
  if (pml.send_now(args)) [[likely]]
    return MPI_SUCCESS;
  core::Request* r = pml.requests().allocate();
  Status st = pml.isend(args, r);
  if (!st.ok()) {
    pml.requests().release(r);
    return raise_status(call, a.comm, st);
  }
  wait_for(r);
  MPI_Request handle = MPI_REQUEST_NULL;
  return collect(call, r, &handle, MPI_STATUS_IGNORE);
}

int isend(const Call& call, const SendCall& a, MPI_Request* request) {
  Resolved res;
  if (int rc = check_send_inline(call, a, &res); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  if (a.dest == MPI_PROC_NULL) {
    *request = handle_of(completed_request(proc_null_status()));
    return MPI_SUCCESS;
  }
  pml::Pml& pml = the_pml();
  core::Request* r = pml.requests().allocate();
  r->active = true;
  pml::SendArgs args = send_args(a, res);
  if (pml.isend_now(args, r)) [[likely]] {
    *request = handle_of(r);
    return MPI_SUCCESS;
  }
  Status st = pml.isend(args, r);
  if (!st.ok()) {
    pml.requests().release(r);
    return raise_status(call, a.comm, st);
  }
  *request = handle_of(r);
  return MPI_SUCCESS;
}

int recv(const Call& call, const RecvCall& a, MPI_Status* status) {
  Resolved res;
  if (int rc = check_recv_inline(call, a, &res); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  if (a.source == MPI_PROC_NULL) {
    write_status(status, proc_null_status());
    return MPI_SUCCESS;
  }
  // A blocking receive needs no handle: its request lives on the stack, no pool round trip.
  core::Request r;
  Status st = the_pml().irecv(recv_args(a, res), &r);
  if (!st.ok()) return raise_status(call, a.comm, st);
  if (!r.complete()) wait_for(&r);
  write_status(status, r.status);
  if (r.status.error == ErrorCode::kOk) [[likely]]
    return MPI_SUCCESS;
  return raise_request(call, &r);
}

int irecv(const Call& call, const RecvCall& a, MPI_Request* request) {
  Resolved res;
  if (int rc = check_recv_inline(call, a, &res); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  if (a.source == MPI_PROC_NULL) {
    *request = handle_of(completed_request(proc_null_status()));
    return MPI_SUCCESS;
  }
  pml::Pml& pml = the_pml();
  core::Request* r = pml.requests().allocate();
  r->active = true;
  Status st = pml.irecv(recv_args(a, res), r);
  if (!st.ok()) {
    pml.requests().release(r);
    return raise_status(call, a.comm, st);
  }
  *request = handle_of(r);
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::pml::SendMode;

// The C functions: one line each onto the shared implementations above.
#define GPURUN_SEND_FN(name, count_type, send_mode)                                          \
  extern "C" int P##name(const void* buf, count_type count, MPI_Datatype datatype, int dest, \
                         int tag, MPI_Comm comm) {                                           \
    GPURUN_API_ENTER(#name);                                                                 \
    return send(call, send_call(buf, count, datatype, dest, tag, comm, send_mode));          \
  }                                                                                          \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_ISEND_FN(name, count_type, send_mode)                                          \
  extern "C" int P##name(const void* buf, count_type count, MPI_Datatype datatype, int dest,  \
                         int tag, MPI_Comm comm, MPI_Request* request) {                      \
    GPURUN_API_ENTER(#name);                                                                  \
    return isend(call, send_call(buf, count, datatype, dest, tag, comm, send_mode), request); \
  }                                                                                           \
  GPURUN_MPI_ALIAS(name)

GPURUN_SEND_FN(MPI_Send, int, SendMode::kStandard)
GPURUN_SEND_FN(MPI_Send_c, MPI_Count, SendMode::kStandard)
GPURUN_SEND_FN(MPI_Ssend, int, SendMode::kSync)
GPURUN_SEND_FN(MPI_Ssend_c, MPI_Count, SendMode::kSync)
GPURUN_SEND_FN(MPI_Rsend, int, SendMode::kReady)
GPURUN_SEND_FN(MPI_Rsend_c, MPI_Count, SendMode::kReady)
GPURUN_ISEND_FN(MPI_Isend, int, SendMode::kStandard)
GPURUN_ISEND_FN(MPI_Isend_c, MPI_Count, SendMode::kStandard)
GPURUN_ISEND_FN(MPI_Issend, int, SendMode::kSync)
GPURUN_ISEND_FN(MPI_Issend_c, MPI_Count, SendMode::kSync)
GPURUN_ISEND_FN(MPI_Irsend, int, SendMode::kReady)
GPURUN_ISEND_FN(MPI_Irsend_c, MPI_Count, SendMode::kReady)

#define GPURUN_RECV_FN(name, count_type)                                                          \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, int source, int tag, \
                         MPI_Comm comm, MPI_Status* status) {                                     \
    GPURUN_API_ENTER(#name);                                                                      \
    return recv(call, recv_call(buf, count, datatype, source, tag, comm), status);                \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_IRECV_FN(name, count_type)                                                         \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, int source, int tag, \
                         MPI_Comm comm, MPI_Request* request) {                                   \
    GPURUN_API_ENTER(#name);                                                                      \
    return irecv(call, recv_call(buf, count, datatype, source, tag, comm), request);              \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)

GPURUN_RECV_FN(MPI_Recv, int)
GPURUN_RECV_FN(MPI_Recv_c, MPI_Count)
GPURUN_IRECV_FN(MPI_Irecv, int)
GPURUN_IRECV_FN(MPI_Irecv_c, MPI_Count)
