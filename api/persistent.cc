// Persistent requests: MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init,
// MPI_Recv_init (and their _c forms), MPI_Start and MPI_Startall. MPI_Start also starts the
// persistent collectives (MPI_Allreduce_init and the like): api/coll.h start_collective().
//
// A persistent request keeps its operation in the core::Request fields (communicator, buffer,
// count, datatype, peer, tag, mode) from *_init on; MPI_Start hands them to the pml again. The
// completion calls deactivate it instead of freeing it; MPI_Request_free frees it.
#include <cstdio>

#include "api/bsend.h"
#include "api/checks.h"
#include "api/coll.h"
#include "api/memory.h"
#include "api/partitioned.h"
#include "api/pt2pt.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

// Marks (in core::Request::owner) a persistent request whose starts are buffered sends.
constexpr char kBufferedSend = 'b';
void* buffered_marker() { return const_cast<char*>(&kBufferedSend); }

core::Request* new_persistent(core::RequestKind kind, const Resolved& res, void* buf,
                              MPI_Count count, int peer, int tag) {
  core::Request* r = the_pml().requests().allocate();
  r->persistent = true;
  r->kind = kind;
  r->comm = res.entry->comm.get();
  r->buffer = buf;
  r->memory = memory_of(buf);
  r->count = count;
  r->datatype = res.type;
  r->peer = peer;
  r->tag = tag;
  r->channel = static_cast<std::uint8_t>(pml::Channel::kUser);
  hold_datatype(r);  // until MPI_Request_free: every start moves this type
  return r;
}

int send_init(const Call& call, const SendCall& a, bool buffered, MPI_Request* request) {
  Resolved res;
  if (int rc = check_send(call, a, &res); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  core::Request* r = new_persistent(core::RequestKind::kSend, res, const_cast<void*>(a.buf),
                                    a.count, a.dest, a.tag);
  r->mode = static_cast<std::uint8_t>(a.mode);
  if (buffered) r->owner = buffered_marker();
  *request = handle_of(r);
  return MPI_SUCCESS;
}

int recv_init(const Call& call, const RecvCall& a, MPI_Request* request) {
  Resolved res;
  if (int rc = check_recv(call, a, &res); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  *request =
      handle_of(new_persistent(core::RequestKind::kRecv, res, a.buf, a.count, a.source, a.tag));
  return MPI_SUCCESS;
}

// The request named by `handle` if it may be started; otherwise reports why.
int startable(const Call& call, const char* arg, MPI_Request handle, core::Request** out) {
  core::Request* r = find_request(handle);
  if (r == nullptr) return bad_request(call, arg, handle);
  if (r->enqueued) return refuse_enqueued(call, arg, handle);
  if (!r->persistent) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                 "argument %s (0x%x) is not a persistent request (MPI_Start takes the requests "
                 "of MPI_Send_init, MPI_Recv_init and the like)",
                 arg, static_cast<unsigned>(handle));
  }
  if (r->active) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                 "argument %s (0x%x) is already active: complete it with MPI_Wait or MPI_Test "
                 "before starting it again",
                 arg, static_cast<unsigned>(handle));
  }
  *out = r;
  return MPI_SUCCESS;
}

// A buffered start completes at once: the message is in the attached buffer (or gone).
int start_buffered(const Call& call, core::Request* r) {
  pml::SendArgs args{.comm = r->comm,
                     .buf = r->buffer,
                     .count = r->count,
                     .type = r->datatype,
                     .dest = r->peer,
                     .tag = r->tag,
                     .memory = r->memory};
  r->status = core::MessageStatus{};
  if (int rc = bsend_start(call, comm_handle_of(r), args); rc != MPI_SUCCESS) return rc;
  r->set_complete();
  return MPI_SUCCESS;
}

Status start_pml(core::Request* r) {
  pml::Pml& pml = the_pml();
  if (r->kind == core::RequestKind::kSend) {
    return pml.isend(
        pml::SendArgs{r->comm, r->buffer, r->count, r->datatype, r->peer, r->tag,
                      static_cast<pml::SendMode>(r->mode), pml::Channel::kUser, r->memory},
        r);
  }
  return pml.irecv(pml::RecvArgs{r->comm, r->buffer, r->count, r->datatype, r->peer, r->tag,
                                 pml::Channel::kUser, r->memory},
                   r);
}

// Starts a request that startable() accepted; it is inactive again if the start fails.
int start(const Call& call, core::Request* r) {
  if (r->kind == core::RequestKind::kColl) return start_collective(call, r);  // api/coll.h
  if (r->kind == core::RequestKind::kPartitioned) return start_partitioned(call, r);
  r->active = true;
  r->reset_complete();
  if (r->peer == MPI_PROC_NULL) {
    r->status = proc_null_status();
    r->set_complete();
    return MPI_SUCCESS;
  }
  int rc = MPI_SUCCESS;
  if (r->owner == buffered_marker()) {
    rc = start_buffered(call, r);
  } else if (Status st = start_pml(r); !st.ok()) {
    rc = raise_status(call, comm_handle_of(r), st);
  }
  if (rc != MPI_SUCCESS) r->active = false;
  return rc;
}

int start_all(const Call& call, int count, MPI_Request* requests) {
  if (count < 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_COUNT, "argument count %d is negative", count);
  if (count > 0 && requests == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument array_of_requests is a null pointer with count %d", count);
  }
  // Every request is checked before any starts, so that a bad one starts none. Each checked
  // one is marked active meanwhile, so that a handle given twice fails the check.
  char arg[48];
  for (int i = 0; i < count; ++i) {
    std::snprintf(arg, sizeof arg, "array_of_requests[%d]", i);
    core::Request* r = nullptr;
    if (int rc = startable(call, arg, requests[i], &r); rc != MPI_SUCCESS) {
      for (int j = 0; j < i; ++j) find_request(requests[j])->active = false;
      return rc;
    }
    r->active = true;
  }
  int result = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    int rc = start(call, find_request(requests[i]));
    if (result == MPI_SUCCESS) result = rc;
  }
  return result;
}

}  // namespace

int persistent_send(const Call& call, const SendCall& args, MPI_Request* request) {
  return send_init(call, args, false, request);
}
int persistent_recv(const Call& call, const RecvCall& args, MPI_Request* request) {
  return recv_init(call, args, request);
}
int start_request(const Call& call, core::Request* r) { return start(call, r); }

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::pml::SendMode;

#define GPURUN_SEND_INIT_FN(name, count_type, send_mode, buffered)                                \
  extern "C" int P##name(const void* buf, count_type count, MPI_Datatype datatype, int dest,      \
                         int tag, MPI_Comm comm, MPI_Request* request) {                          \
    GPURUN_API_ENTER(#name);                                                                      \
    return send_init(call, send_call(buf, count, datatype, dest, tag, comm, send_mode), buffered, \
                     request);                                                                    \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)

GPURUN_SEND_INIT_FN(MPI_Send_init, int, SendMode::kStandard, false)
GPURUN_SEND_INIT_FN(MPI_Send_init_c, MPI_Count, SendMode::kStandard, false)
GPURUN_SEND_INIT_FN(MPI_Ssend_init, int, SendMode::kSync, false)
GPURUN_SEND_INIT_FN(MPI_Ssend_init_c, MPI_Count, SendMode::kSync, false)
GPURUN_SEND_INIT_FN(MPI_Rsend_init, int, SendMode::kReady, false)
GPURUN_SEND_INIT_FN(MPI_Rsend_init_c, MPI_Count, SendMode::kReady, false)
GPURUN_SEND_INIT_FN(MPI_Bsend_init, int, SendMode::kStandard, true)
GPURUN_SEND_INIT_FN(MPI_Bsend_init_c, MPI_Count, SendMode::kStandard, true)

#define GPURUN_RECV_INIT_FN(name, count_type)                                                     \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, int source, int tag, \
                         MPI_Comm comm, MPI_Request* request) {                                   \
    GPURUN_API_ENTER(#name);                                                                      \
    return recv_init(call, recv_call(buf, count, datatype, source, tag, comm), request);          \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)

GPURUN_RECV_INIT_FN(MPI_Recv_init, int)
GPURUN_RECV_INIT_FN(MPI_Recv_init_c, MPI_Count)

extern "C" int PMPI_Start(MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Start");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  gpurun::core::Request* r = nullptr;
  if (int rc = startable(call, "request", *request, &r); rc != MPI_SUCCESS) return rc;
  return start(call, r);
}

extern "C" int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  GPURUN_API_ENTER("MPI_Startall");
  return start_all(call, count, array_of_requests);
}

GPURUN_MPI_ALIAS(MPI_Start)
GPURUN_MPI_ALIAS(MPI_Startall)
