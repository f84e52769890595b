// MPI_Sendrecv and MPI_Sendrecv_replace (and their _c forms): a receive and a send run at once,
// and the call returns when both are complete, so that ranks exchanging in a ring never wait
// for each other's sends.
#include "api/sendrecv.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>

#include "api/checks.h"
#include "api/datatypes.h"
#include "api/memory.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "runtime/base/log.h"

namespace gpurun::api {
namespace {

// Bytes that the two sides of an exchange share, looked at where both move data and are
// contiguous (strided sides may interleave in one array without sharing a byte): the standard
// makes the two buffers disjoint, and where they are not the receive could overwrite what the
// send has yet to read.
std::uint64_t overlap(const SendrecvCall& a, const core::Datatype& stype,
                      const core::Datatype& rtype) {
  if (a.sendcount == 0 || a.recvcount == 0 || a.dest == MPI_PROC_NULL ||
      a.source == MPI_PROC_NULL || !stype.contiguous() || !rtype.contiguous())
    return 0;
  auto first = [](const void* buf, const core::Datatype& t) {
    return reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(t.true_lb());
  };
  std::uintptr_t send = first(a.sendbuf, stype), recv = first(a.recvbuf, rtype);
  std::uintptr_t send_end = send + static_cast<std::uintptr_t>(a.sendcount * stype.size());
  std::uintptr_t recv_end = recv + static_cast<std::uintptr_t>(a.recvcount * rtype.size());
  if (send >= recv_end || recv >= send_end) return 0;
  return std::min(send_end, recv_end) - std::max(send, recv);
}

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

// The message of a replace, packed into `args->copy`, which the send then reads.
int copy_for_replace(const Call& call, MPI_Comm comm, ExchangeArgs* args) {
  pml::SendArgs& send = args->send;
  auto bytes = static_cast<std::size_t>(send.count * send.type->size());
  args->copy.reset(new (std::nothrow) std::byte[bytes == 0 ? 1 : bytes]);
  if (!args->copy) {
    return raise(call, comm, MPI_ERR_NO_MEM,
                 "cannot allocate %zu bytes to hold the message while it is replaced", bytes);
  }
  if (int rc = pack_to_host(call, comm, send, args->copy.get()); rc != MPI_SUCCESS) return rc;
  send.buf = args->copy.get();
  send.count = static_cast<std::int64_t>(bytes);
  send.type = find_datatype(MPI_BYTE);
  send.memory = accel::MemoryKind::kHost;
  return MPI_SUCCESS;
}

// The send of an exchange whose receive may overwrite its buffer: gone at once, or from a copy.
int send_or_copy(const Call& call, MPI_Comm comm, ExchangeArgs* args) {
  if (args->has_send && the_pml().send_now(args->send)) args->has_send = false;  // gone already
  if (!args->has_send) return MPI_SUCCESS;
  return copy_for_replace(call, comm, args);
}

// An MPI_Sendrecv whose buffers overlap (one buffer passed as both, most often, where
// MPI_Sendrecv_replace was meant) is erroneous, yet works elsewhere while its messages are
// small: it runs as MPI_Sendrecv_replace would, on a copy of what it sends, with a warning the
// first time.
int overlapping(const Call& call, MPI_Comm comm, std::uint64_t common, ExchangeArgs* args) {
  static bool warned = false;
  if (!warned) {
    warned = true;
    GPURUN_LOG(warn, pml,
               "%s: arguments sendbuf and recvbuf overlap (%llu bytes in common), which the "
               "standard forbids; gpurun sends from a copy, as MPI_Sendrecv_replace does (said "
               "once)",
               call.name, static_cast<unsigned long long>(common));
  }
  return send_or_copy(call, comm, args);
}

// The pml's arguments of both halves, from checked arguments.
void fill_exchange(const CommEntry& entry, const SendrecvCall& a, const core::Datatype* stype,
                   const core::Datatype* rtype, ExchangeArgs* out) {
  const core::Communicator* comm = entry.comm.get();
  out->send = pml::SendArgs{.comm = comm,
                            .buf = a.sendbuf,
                            .count = a.sendcount,
                            .type = stype,
                            .dest = a.dest,
                            .tag = a.sendtag,
                            .memory = memory_of(a.sendbuf)};
  out->recv = pml::RecvArgs{.comm = comm,
                            .buf = a.recvbuf,
                            .count = a.recvcount,
                            .type = rtype,
                            .source = a.source,
                            .tag = a.recvtag,
                            .memory = memory_of(a.recvbuf)};
  out->has_send = a.dest != MPI_PROC_NULL;
  out->has_recv = a.source != MPI_PROC_NULL;
}

}  // namespace

int check_exchange(const Call& call, const SendrecvCall& a, ExchangeArgs* out) {
  CommEntry* entry = nullptr;
  const core::Datatype* stype = nullptr;
  const core::Datatype* rtype = nullptr;
  if (int rc = check_sendrecv(call, a, &entry, &stype, &rtype); rc != MPI_SUCCESS) return rc;
  fill_exchange(*entry, a, stype, rtype, out);
  if (std::uint64_t common = overlap(a, *stype, *rtype); common != 0) [[unlikely]]
    return overlapping(call, a.comm, common, out);
  return MPI_SUCCESS;
}

int check_replace_exchange(const Call& call, const ReplaceCall& a, ExchangeArgs* out) {
  CommEntry* entry = nullptr;
  const core::Datatype* type = nullptr;
  if (int rc = check_replace(call, a, &entry, &type); rc != MPI_SUCCESS) return rc;
  SendrecvCall both{a.buf,   a.count,    a.datatype, a.dest,    a.sendtag, a.buf,
                    a.count, a.datatype, a.source,   a.recvtag, a.comm};
  fill_exchange(*entry, both, type, type, out);
  return send_or_copy(call, a.comm, out);
}

namespace {

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
  ExchangeArgs args;
  if (int rc = check_exchange(call, a, &args); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  return exchange(call, a.comm, args.has_send ? &args.send : nullptr,
                  args.has_recv ? &args.recv : nullptr, status);
}

int sendrecv_replace(const Call& call, const ReplaceCall& a, MPI_Status* status) {
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  ExchangeArgs args;
  if (int rc = check_replace_exchange(call, a, &args); rc != MPI_SUCCESS) return rc;
  return exchange(call, a.comm, args.has_send ? &args.send : nullptr,
                  args.has_recv ? &args.recv : nullptr, status);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

GPURUN_SENDRECV_ENTRY(MPI_Sendrecv, int, sendrecv, MPI_Status*)
GPURUN_SENDRECV_ENTRY(MPI_Sendrecv_c, MPI_Count, sendrecv, MPI_Status*)
GPURUN_REPLACE_ENTRY(MPI_Sendrecv_replace, int, sendrecv_replace, MPI_Status*)
GPURUN_REPLACE_ENTRY(MPI_Sendrecv_replace_c, MPI_Count, sendrecv_replace, MPI_Status*)
