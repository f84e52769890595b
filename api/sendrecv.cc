// MPI_Sendrecv and MPI_Sendrecv_replace (and their _c forms): a receive and a send run at once,
// and the call returns when both are complete, so that ranks exchanging in a ring never wait
// for each other's sends.
#include <memory>
#include <new>

#include "api/checks.h"
#include "api/pt2pt.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

struct SendrecvCall {
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  int dest;
  int sendtag;
  void* recvbuf;
  MPI_Count recvcount;
  MPI_Datatype recvtype;
  int source;
  int recvtag;
  MPI_Comm comm;
};

int check_sendrecv(const Call& call, const SendrecvCall& a, CommEntry** entry,
                   const core::Datatype** send_type, const core::Datatype** recv_type) {
  GPURUN_CHECK_COMM(comm, a.comm);
  GPURUN_CHECK_COUNT_ARG(a.comm, "sendcount", a.sendcount);
  GPURUN_CHECK_TYPE_ARG(a.comm, "sendtype", stype, a.sendtype);
  GPURUN_CHECK_BUFFER_ARG(a.comm, "sendbuf", a.sendbuf, a.sendcount, stype);
  GPURUN_CHECK_RANK(a.comm, comm, "dest", a.dest, false);
  GPURUN_CHECK_TAG_ARG(a.comm, "sendtag", a.sendtag, false);
  GPURUN_CHECK_COUNT_ARG(a.comm, "recvcount", a.recvcount);
  GPURUN_CHECK_TYPE_ARG(a.comm, "recvtype", rtype, a.recvtype);
  GPURUN_CHECK_BUFFER_ARG(a.comm, "recvbuf", a.recvbuf, a.recvcount, rtype);
  GPURUN_CHECK_RANK(a.comm, comm, "source", a.source, true);
  GPURUN_CHECK_TAG_ARG(a.comm, "recvtag", a.recvtag, true);
  *entry = comm;
  *send_type = stype;
  *recv_type = rtype;
  return MPI_SUCCESS;
}

// Starts `op` on a new request (nullptr when there is nothing to start: MPI_PROC_NULL, or a
// send that went out at once).
template <class Start>
int start_op(const Call& call, MPI_Comm comm, Start&& op, core::Request** out) {
  pml::Pml& pml = the_pml();
  core::Request* r = pml.requests().allocate();
  Status st = op(pml, r);
  if (!st.ok()) {
    pml.requests().release(r);
    return raise_status(call, comm, st);
  }
  *out = r;
  return MPI_SUCCESS;
}

// Runs the receive (when `recv`) and the send (when `send`) at once and waits for both. The
// status is the receive's; an error of either goes through the communicator's handler.
int exchange(const Call& call, MPI_Comm comm, const pml::SendArgs* send, const pml::RecvArgs* recv,
             MPI_Status* status) {
  pml::Pml& pml = the_pml();
  core::Request* rr = nullptr;
  core::Request* rs = nullptr;
  if (recv != nullptr) {
    auto op = [recv](pml::Pml& p, core::Request* r) { return p.irecv(*recv, r); };
    if (int rc = start_op(call, comm, op, &rr); rc != MPI_SUCCESS) return rc;
  }
  if (send != nullptr && !pml.send_now(*send)) {
    auto op = [send](pml::Pml& p, core::Request* r) { return p.isend(*send, r); };
    if (int rc = start_op(call, comm, op, &rs); rc != MPI_SUCCESS) {
      if (rr != nullptr) orphan_request(rr);  // cannot be taken back; goes when it completes
      return rc;
    }
  }
  StuckReceives stuck;
  wait_until([rr, rs, &stuck] {
    stuck.next_look();
    return (rr == nullptr || rr->complete() || stuck.fail(rr)) && (rs == nullptr || rs->complete());
  });
  int rc = MPI_SUCCESS;
  if (rs != nullptr) {
    rc = raise_request(call, rs);
    release_request(rs);
  }
  if (rr == nullptr) {
    write_status(status, proc_null_status());
    return rc;
  }
  write_status(status, rr->status);
  if (rc == MPI_SUCCESS) rc = raise_request(call, rr);
  release_request(rr);
  return rc;
}

int sendrecv(const Call& call, const SendrecvCall& a, MPI_Status* status) {
  CommEntry* entry = nullptr;
  const core::Datatype* stype = nullptr;
  const core::Datatype* rtype = nullptr;
  if (int rc = check_sendrecv(call, a, &entry, &stype, &rtype); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  const core::Communicator* comm = entry->comm.get();
  pml::SendArgs send{comm, a.sendbuf, a.sendcount, stype, a.dest, a.sendtag};
  pml::RecvArgs recv{comm, a.recvbuf, a.recvcount, rtype, a.source, a.recvtag};
  return exchange(call, a.comm, a.dest == MPI_PROC_NULL ? nullptr : &send,
                  a.source == MPI_PROC_NULL ? nullptr : &recv, status);
}

struct ReplaceCall {
  void* buf;
  MPI_Count count;
  MPI_Datatype datatype;
  int dest;
  int sendtag;
  int source;
  int recvtag;
  MPI_Comm comm;
};

int check_replace(const Call& call, const ReplaceCall& a, CommEntry** entry,
                  const core::Datatype** out_type) {
  GPURUN_CHECK_COMM(comm, a.comm);
  GPURUN_CHECK_COUNT(a.comm, a.count);
  GPURUN_CHECK_TYPE(a.comm, type, a.datatype);
  GPURUN_CHECK_BUFFER(a.comm, a.buf, a.count, type);
  GPURUN_CHECK_RANK(a.comm, comm, "dest", a.dest, false);
  GPURUN_CHECK_TAG_ARG(a.comm, "sendtag", a.sendtag, false);
  GPURUN_CHECK_RANK(a.comm, comm, "source", a.source, true);
  GPURUN_CHECK_TAG_ARG(a.comm, "recvtag", a.recvtag, true);
  *entry = comm;
  *out_type = type;
  return MPI_SUCCESS;
}

// The send goes from the user's buffer when it can leave at once; otherwise from a packed copy,
// since the receive overwrites the buffer while the send may still read it.
int sendrecv_replace(const Call& call, const ReplaceCall& a, MPI_Status* status) {
  CommEntry* entry = nullptr;
  const core::Datatype* type = nullptr;
  if (int rc = check_replace(call, a, &entry, &type); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  const core::Communicator* comm = entry->comm.get();
  pml::SendArgs send{comm, a.buf, a.count, type, a.dest, a.sendtag};
  pml::RecvArgs recv{comm, a.buf, a.count, type, a.source, a.recvtag};
  bool sent = a.dest == MPI_PROC_NULL || the_pml().send_now(send);
  std::unique_ptr<std::byte[]> copy;
  if (!sent) {
    auto bytes = static_cast<std::size_t>(a.count * type->size());
    copy.reset(new (std::nothrow) std::byte[bytes == 0 ? 1 : bytes]);
    if (!copy) {
      return raise(call, a.comm, MPI_ERR_NO_MEM,
                   "cannot allocate %zu bytes to hold the message while it is replaced", bytes);
    }
    type->pack(a.buf, a.count, 0, copy.get(), bytes);
    send.buf = copy.get();
    send.count = static_cast<std::int64_t>(bytes);
    send.type = find_datatype(MPI_BYTE);
  }
  return exchange(call, a.comm, sent ? nullptr : &send, a.source == MPI_PROC_NULL ? nullptr : &recv,
                  status);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

#define GPURUN_SENDRECV_FN(name, count_type)                                                      \
  extern "C" int P##name(const void* sendbuf, count_type sendcount, MPI_Datatype sendtype,        \
                         int dest, int sendtag, void* recvbuf, count_type recvcount,              \
                         MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,           \
                         MPI_Status* status) {                                                    \
    GPURUN_API_ENTER(#name);                                                                      \
    return sendrecv(call,                                                                         \
                    SendrecvCall{sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, \
                                 recvtype, source, recvtag, comm},                                \
                    status);                                                                      \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_REPLACE_FN(name, count_type)                                                     \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, int dest,          \
                         int sendtag, int source, int recvtag, MPI_Comm comm,                   \
                         MPI_Status* status) {                                                  \
    GPURUN_API_ENTER(#name);                                                                    \
    return sendrecv_replace(                                                                    \
        call, ReplaceCall{buf, count, datatype, dest, sendtag, source, recvtag, comm}, status); \
  }                                                                                             \
  GPURUN_MPI_ALIAS(name)

GPURUN_SENDRECV_FN(MPI_Sendrecv, int)
GPURUN_SENDRECV_FN(MPI_Sendrecv_c, MPI_Count)
GPURUN_REPLACE_FN(MPI_Sendrecv_replace, int)
GPURUN_REPLACE_FN(MPI_Sendrecv_replace_c, MPI_Count)
