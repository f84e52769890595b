// Bulk data on ucx: offer() prepares a UCX rendezvous, which leaves with the next packet to
// the peer riding in its header (or from progress()); pull() receives it once both the pull
// and UCX's descriptor are there, whichever comes first.
//
// Why the packet rides along: the pml sends its request-to-send (the cookie) right after the
// offer. Sent apart, the two cost the sender two socket writes and the receiver two reads;
// osu_bw at 128 KiB between two test hosts made 3 sendto() a message where MPICH makes 2.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/base/log.h"
#include "runtime/transport/ucx/ucx_transport.h"

namespace gpurun::transport::ucx {
namespace {

// UCP generic datatype over a GenericState (a SendOp or a RecvOp): UCX asks for the bytes of
// the packed stream by offset, in increasing order on one lane.
void* start_pack(void* /*context*/, const void* buffer, std::size_t /*count*/) {
  return const_cast<void*>(buffer);
}
void* start_unpack(void* /*context*/, void* buffer, std::size_t /*count*/) { return buffer; }
std::size_t packed_size(void* state) { return static_cast<GenericState*>(state)->length; }

std::size_t pack(void* state, std::size_t offset, void* dest, std::size_t max_length) {
  const Data& d = static_cast<GenericState*>(state)->data;
  std::size_t n = std::min(max_length, d.size - std::min(offset, d.size));
  if (n == 0) return 0;
  if (d.contiguous != nullptr) {
    std::memcpy(dest, static_cast<const std::byte*>(d.contiguous) + offset, n);
    return n;
  }
  return d.pack(d.context, offset, dest, n);
}

// Bytes beyond what the receiver wants (a truncated pull) are dropped.
ucs_status_t unpack(void* state, std::size_t offset, const void* src, std::size_t length) {
  const Data& d = static_cast<GenericState*>(state)->data;
  if (offset >= d.size) return UCS_OK;
  std::size_t n = std::min(length, d.size - offset);
  if (d.contiguous != nullptr) {
    std::memcpy(static_cast<std::byte*>(d.contiguous) + offset, src, n);
  } else {
    d.unpack(d.context, offset, src, n);
  }
  return UCS_OK;
}

void finish(void* /*state*/) {}

const ucp_generic_dt_ops_t kGenericOps = {start_pack, start_unpack, packed_size,
                                          pack,       unpack,       finish};

}  // namespace

const ucp_generic_dt_ops_t& generic_ops() { return kGenericOps; }

// ---- sender ------------------------------------------------------------------------------

// Prepares the offer; it leaves with the next packet to the peer, or from progress().
Result<BulkCookie> UcxEndpoint::offer(const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  GPURUN_TRY(transport_->check_memory(data.kind, peer_));
  UcxTransport& t = *transport_;
  // The earlier offer leaves alone; a failure reaches its own completion, not this offer.
  if (waiting_ != nullptr) (void)send_offer(nullptr, nullptr, 0);
  SendOp* op = t.send_ops_.take();
  op->transport = &t;
  op->peer = peer_;
  op->data = data;
  op->length = data.size;
  op->done = done;
  op->header.bulk = BulkHeader{t.config_.rank, 0, next_offer_};
  waiting_ = op;
  ++t.offers_waiting_;
  return BulkCookie{next_offer_++, 0};
}

// When it fails, an offer that carries a packet reports the failure through the packet's
// send, as the caller's only completion; one that travels alone, through its own.
Status UcxEndpoint::send_offer(const WireHeader* wire, const void* payload, std::size_t length) {
  SendOp* op = std::exchange(waiting_, nullptr);
  UcxTransport& t = *transport_;
  --t.offers_waiting_;
  std::size_t header_length = sizeof(BulkHeader);
  if (wire != nullptr) {
    op->header.wire = *wire;
    if (length > 0) std::memcpy(op->header.payload, payload, length);
    header_length += sizeof(WireHeader) + length;
  }
  bool contiguous = op->data.contiguous != nullptr;
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE;
  p.cb.send = UcxTransport::on_offer_sent;
  p.user_data = op;
  p.flags = UCP_AM_SEND_FLAG_RNDV;
  p.datatype = contiguous ? ucp_dt_make_contig(1) : t.generic_;
  t.set_memory_type(p, op->data.kind);
  ucs_status_ptr_t r = api().am_send_nbx(ep_, kBulkAm, &op->header, header_length,
                                         contiguous ? op->data.contiguous : op, op->length, &p);
  Completion done = op->done;
  if (UCS_PTR_IS_ERR(r)) {
    t.send_ops_.put(op);
    Status st =
        ucx_error("ucx: cannot offer data to rank " + std::to_string(peer_), UCS_PTR_STATUS(r));
    if (wire == nullptr) t.defer(done, st);
    return st;
  }
  ++t.sends_;
  if (r == nullptr) {
    // Sent at once (UCX chose an eager protocol): the caller hears it from progress().
    t.send_ops_.put(op);
    t.defer(done, ok_status());
  } else {
    ++t.in_flight_;
    ++offers_in_flight_;
  }
  return ok_status();
}

void UcxTransport::send_waiting_offers() {
  for (auto& ep : endpoints_) {
    if (offers_waiting_ == 0) return;
    if (ep && ep->waiting_ != nullptr) (void)ep->send_offer(nullptr, nullptr, 0);
  }
}

bool UcxEndpoint::forget_offers() {
  if (forgotten_) return true;
  forgotten_ = true;
  if (failed_.ok()) failed_ = peer_left(peer_);
  if (waiting_ != nullptr) {
    transport_->send_ops_.put(std::exchange(waiting_, nullptr));
    --transport_->offers_waiting_;
  }
  transport_->in_flight_ -= offers_in_flight_ + queued_;
  transport_->to_close_.push_back(this);
  return true;
}

void UcxTransport::on_offer_sent(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<SendOp*>(user_data);
  UcxTransport* t = op->transport;
  api().request_free(request);
  UcxEndpoint& ep = *t->endpoints_[op->peer];
  --ep.offers_in_flight_;
  if (!ep.forgotten_) --t->in_flight_;  // a forgotten one was taken off when it was forgotten
  Completion done = op->done;
  int peer = op->peer;
  t->send_ops_.put(op);
  if (t->closing_ || ep.forgotten_) return;
  ++t->delivered_;
  done(status_of(status, peer));
}

// ---- receiver ----------------------------------------------------------------------------

Status UcxEndpoint::pull(const BulkCookie& cookie, const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  GPURUN_TRY(transport_->check_memory(data.kind, peer_));
  Inbound& in = transport_->inbound_[peer_];
  auto [it, inserted] = in.arrivals.try_emplace(cookie.id);
  Arrival& a = it->second;
  if (!a.arrived) {  // UCX's part has not come yet: on_bulk starts the receive
    a.pulled = true;
    a.data = data;
    a.done = done;
    return ok_status();
  }
  void* desc = a.desc;
  std::size_t length = a.length;
  in.arrivals.erase(it);
  transport_->receive_bulk(peer_, desc, length, data, done);
  return ok_status();
}

ucs_status_t UcxTransport::on_bulk(void* arg, const void* header, std::size_t header_length,
                                   void* data, std::size_t length,
                                   const ucp_am_recv_param_t* param) {
  auto* t = static_cast<UcxTransport*>(arg);
  OfferHeader h;
  bool carries = header_length > sizeof h.bulk;
  if ((carries && (header_length < sizeof h.bulk + sizeof h.wire || header_length > sizeof h)) ||
      header_length < sizeof h.bulk) [[unlikely]] {
    GPURUN_LOG(error, transport, "ucx: dropped malformed bulk data (%zu-byte header)",
               header_length);
    return UCS_OK;
  }
  std::memcpy(&h, header, header_length);
  int rank = h.bulk.rank;
  if (rank < 0 || rank >= t->config_.size ||
      (param->recv_attr & (UCP_AM_RECV_ATTR_FLAG_RNDV | UCP_AM_RECV_ATTR_FLAG_DATA)) == 0)
      [[unlikely]] {
    GPURUN_LOG(error, transport, "ucx: dropped bulk data from rank %d", rank);
    return UCS_OK;
  }
  Inbound& in = t->inbound_[rank];
  auto [it, inserted] = in.arrivals.try_emplace(h.bulk.id);
  Arrival& a = it->second;
  if (a.pulled) {
    Data wanted = a.data;
    Completion done = a.done;
    in.arrivals.erase(it);
    t->receive_bulk(rank, data, length, wanted, done);
  } else {
    a.arrived = true;
    a.desc = data;
    a.length = length;
  }
  // The carried packet comes after: the pull it leads to finds the data there.
  if (carries) t->receive_packet(h.wire, h.payload, header_length - sizeof h.bulk - sizeof h.wire);
  // The descriptor now belongs to a receive, or waits for its pull.
  return UCS_INPROGRESS;
}

void UcxTransport::receive_bulk(int peer, void* desc, std::size_t length, const Data& data,
                                Completion done) {
  if (data.size == 0) {  // nothing wanted: let the sender go
    api().am_data_release(worker_, desc);
    ++delivered_;
    done(ok_status());
    return;
  }
  RecvOp* op = recv_ops_.take();
  op->transport = this;
  op->peer = peer;
  op->data = data;
  op->length = length;
  op->done = done;
  // Straight into the user's buffer when it is one block that takes it all; else through the
  // generic datatype (non-contiguous, or truncated: the surplus is dropped).
  bool direct = data.contiguous != nullptr && data.size >= length;
  ucp_request_param_t p;
  p.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  p.cb.recv_am = on_received;
  p.user_data = op;
  p.datatype = direct ? ucp_dt_make_contig(1) : generic_;
  set_memory_type(p, data.kind);
  ucs_status_ptr_t r =
      api().am_recv_data_nbx(worker_, desc, direct ? data.contiguous : op, length, &p);
  if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
    ++in_flight_;
    return;
  }
  recv_ops_.put(op);
  ++delivered_;
  done(r == nullptr ? ok_status() : status_of(UCS_PTR_STATUS(r), peer));
}

void UcxTransport::on_received(void* request, ucs_status_t status, std::size_t /*length*/,
                               void* user_data) {
  auto* op = static_cast<RecvOp*>(user_data);
  UcxTransport* t = op->transport;
  api().request_free(request);
  --t->in_flight_;
  Completion done = op->done;
  int peer = op->peer;
  t->recv_ops_.put(op);
  if (t->closing_) return;
  ++t->delivered_;
  done(status_of(status, peer));
}

// ---- memory kinds ------------------------------------------------------------------------

Status UcxTransport::check_memory(accel::MemoryKind kind, int peer) const {
  if (accel::is_host(kind) || caps_.device_memory) return ok_status();
  return Status(ErrorCode::kUnsupported,
                "ucx cannot move device memory to rank " + std::to_string(peer) +
                    ": this UCX was built without CUDA (stage it through host memory)");
}

void UcxTransport::set_memory_type(ucp_request_param_t& param, accel::MemoryKind kind) const {
  if (accel::is_host(kind)) return;
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  param.memory_type =
      kind == accel::MemoryKind::kCudaManaged ? UCS_MEMORY_TYPE_CUDA_MANAGED : UCS_MEMORY_TYPE_CUDA;
}

}  // namespace gpurun::transport::ucx
