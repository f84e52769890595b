// Bulk data on ucx: offer() prepares a UCX rendezvous, which leaves with the next packet to
// the peer riding in its header (or from progress()); pull() receives it once both the pull
// and UCX's descriptor are there, whichever comes first.
//
// Why the packet rides along: the pml sends its request-to-send (the cookie) right after the
// offer. Sent apart, the two cost the sender two socket writes and the receiver two reads;
// osu_bw at 128 KiB between two test hosts made 3 sendto() a message where MPICH makes 2.
//
// Pieces: host data larger than GPURUN_UCX_PIECE_SIZE leaves as several rendezvous of that
// size, all at once; the first carries the packet, the offer completes with the last piece
// sent, the pull with the last received. Over TCP, UCX writes a rendezvous to the socket in one
// call, which some kernels take far more slowly when it is large (one 1M write 464 us, a 128K
// one 19 us, between two test hosts on an Intel VM; the knob's text has the figures).
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/base/log.h"
#include "runtime/transport/ucx/ucx_transport.h"

namespace gpurun::transport::ucx {
namespace {

// Pieces of an offer that leave at once when nothing else is in flight to the peer. Between
// two test hosts (medians of 7-9 interleaved runs), 2 against 4: osu_latency 512K 108 us
// against 97; osu_allreduce -np 2 1M 413 us against 742, 4M 1.9 ms against 3.8 (both ranks
// send at once); osu_bw 1M 4.9 GB/s against 5.3. Sending only the first: osu_latency 256K
// 81-90 us against 58.
constexpr std::uint32_t kEarlyPieces = 2;

// UCP generic datatype over a GenericState (a SendOp or a RecvOp): UCX asks for the bytes of
// the packed stream by offset, in increasing order on one lane.
void* start_pack(void* /*context*/, const void* buffer, std::size_t /*count*/) {
  return const_cast<void*>(buffer);
}
void* start_unpack(void* /*context*/, void* buffer, std::size_t /*count*/) { return buffer; }
std::size_t packed_size(void* state) { return static_cast<GenericState*>(state)->length; }

std::size_t pack(void* state, std::size_t offset, void* dest, std::size_t max_length) {
  const auto* s = static_cast<GenericState*>(state);
  const Data& d = s->data;
  offset += s->base;
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
  const auto* s = static_cast<GenericState*>(state);
  const Data& d = s->data;
  offset += s->base;
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
  if (forgotten_) return peer_left(peer_);
  GPURUN_TRY(transport_->check_memory(data.kind, peer_));
  UcxTransport& t = *transport_;
  // The earlier offer leaves alone; a failure reaches its own completion, not this offer.
  if (waiting_ != nullptr) (void)send_offer(nullptr, nullptr, 0);
  SendOp* op = t.send_ops_.take();
  op->transport = &t;
  op->peer = peer_;
  op->data = data;
  op->base = 0;
  op->length = data.size;
  op->lead = op;
  op->windowed = false;
  op->opened = false;
  op->early_in_flight = 0;
  op->done = done;
  op->status = ok_status();
  op->header.bulk = BulkHeader{id_at_peer_, 0, next_offer_, 1, 0};
  waiting_ = op;
  ++t.offers_waiting_;
  return BulkCookie{next_offer_++, 0};
}

std::uint32_t UcxTransport::cut_into_pieces(SendOp* lead) const {
  const Data& data = lead->data;
  bool whole = piece_size_ == 0 || data.size <= piece_size_ || !accel::is_host(data.kind);
  std::size_t piece_size = whole ? 0 : piece_size_;
  auto pieces = static_cast<std::uint32_t>(whole ? 1 : (data.size + piece_size - 1) / piece_size);
  lead->pieces_left = pieces;
  lead->next_piece = 1;
  lead->header.bulk.pieces = pieces;
  lead->header.bulk.piece_size = static_cast<std::uint32_t>(piece_size);
  if (!whole) lead->length = piece_size;
  return pieces;
}

// When it fails, an offer that carries a packet reports the failure through the packet's
// send, as the caller's only completion; one that travels alone, through its own. A piece
// after the first that fails ends the offer with the failure once the pieces sent are done.
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
  std::uint32_t pieces = t.cut_into_pieces(op);
  // Nothing else in flight to the peer: the first kEarlyPieces go at once, not waiting for the
  // first to complete. They count in the window once the offer opened: until then the peer
  // may receive other offers first, whose pieces must not wait for these.
  bool idle = offers_in_flight_ == 0;
  ucs_status_t st = send_piece(op, header_length);
  if (st != UCS_OK) {
    Completion done = op->done;
    t.send_ops_.put(op);
    Status failed = ucx_error("ucx: cannot offer data to rank " + std::to_string(peer_), st);
    if (wire == nullptr) t.defer(done, failed);
    return failed;
  }
  std::uint32_t early = std::min(pieces, kEarlyPieces);
  while (idle && pieces > 1 && !op->opened && op->next_piece < early)
    idle = send_next_piece(op, false);
  return ok_status();
}

bool UcxEndpoint::send_next_piece(SendOp* lead, bool windowed) {
  UcxTransport& t = *transport_;
  const BulkHeader& bulk = lead->header.bulk;
  std::uint32_t i = lead->next_piece++;
  SendOp* op = t.send_ops_.take();
  op->transport = &t;
  op->peer = peer_;
  op->data = lead->data;
  op->base = std::size_t{i} * bulk.piece_size;
  op->length = std::min<std::size_t>(bulk.piece_size, op->data.size - op->base);
  op->lead = lead;
  op->windowed = windowed;
  op->header.bulk = bulk;
  op->header.bulk.piece = i;
  ucs_status_t st = send_piece(op, sizeof(BulkHeader));
  if (st == UCS_OK) return true;
  t.send_ops_.put(op);
  lead->next_piece = i;  // this piece never left either
  // The offer ends with the pieces sent; the lead stands for the one that failed.
  lead->pieces_left -= t.drop_unsent_pieces(lead) - 1;
  t.piece_sent(lead, ucx_error("ucx: cannot offer data to rank " + std::to_string(peer_), st),
               true);
  return false;
}

// Only the endpoints listed since the last call: a piece completed there (room in the window)
// or an offer opened. One whose window is still full leaves the list until its next piece
// completes.
void UcxTransport::send_opened_pieces() {
  for (std::size_t i = 0; i < to_pump_.size(); ++i) {
    UcxEndpoint& ep = *to_pump_[i];
    ep.listed_ = false;
    while (!ep.opened_.empty() && ep.pieces_in_flight_ < piece_window_) {
      SendOp* lead = ep.opened_.front();
      // The lead stays until its last piece completes; a failure drops the pieces unsent.
      bool last = lead->next_piece + 1 == lead->header.bulk.pieces;
      bool sent = ep.send_next_piece(lead, true);
      if (last || !sent) {
        ep.opened_.pop_front();
        --opened_offers_;
      }
    }
  }
  to_pump_.clear();
}

void UcxTransport::list_for_pieces(UcxEndpoint& ep) {
  if (ep.listed_ || ep.opened_.empty()) return;
  ep.listed_ = true;
  to_pump_.push_back(&ep);
}

void UcxEndpoint::open(SendOp* lead, const Status& outcome) {
  lead->opened = true;
  pieces_in_flight_ += static_cast<int>(lead->early_in_flight);
  if (lead->next_piece == lead->header.bulk.pieces) return;
  if (outcome.ok() && !forgotten_ && !transport_->closing_) {
    opened_.push_back(lead);
    ++transport_->opened_offers_;
    transport_->list_for_pieces(*this);
  } else {
    lead->pieces_left -= transport_->drop_unsent_pieces(lead);
  }
}

std::uint32_t UcxTransport::drop_unsent_pieces(SendOp* lead) {
  std::uint32_t unsent = lead->header.bulk.pieces - lead->next_piece;
  lead->next_piece = lead->header.bulk.pieces;
  return unsent;
}

ucs_status_t UcxEndpoint::send_piece(SendOp* op, std::size_t header_length) {
  UcxTransport& t = *transport_;
  bool contiguous = op->data.contiguous != nullptr;
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE;
  p.cb.send = UcxTransport::on_offer_sent;
  p.user_data = op;
  p.flags = UCP_AM_SEND_FLAG_RNDV;
  p.datatype = contiguous ? ucp_dt_make_contig(1) : t.generic_;
  t.set_memory_type(p, op->data.kind);
  void* buffer =
      contiguous ? static_cast<std::byte*>(op->data.contiguous) + op->base : static_cast<void*>(op);
  ucs_status_ptr_t r =
      api().am_send_nbx(ep_, kBulkAm, &op->header, header_length, buffer, op->length, &p);
  if (UCS_PTR_IS_ERR(r)) return UCS_PTR_STATUS(r);
  ++t.sends_;
  if (r == nullptr) {
    // Sent at once (UCX chose an eager protocol): the caller hears it from progress().
    if (op == op->lead) open(op, ok_status());
    t.piece_sent(op, ok_status(), true);
  } else {
    ++t.in_flight_;
    ++t.offers_out_;
    ++offers_in_flight_;
    if (op->windowed)
      ++pieces_in_flight_;
    else if (op != op->lead)
      ++op->lead->early_in_flight;
  }
  return UCS_OK;
}

void UcxTransport::piece_sent(SendOp* op, Status status, bool deferred) {
  SendOp* lead = op->lead;
  if (!status.ok() && lead->status.ok()) lead->status = std::move(status);
  if (op != lead) send_ops_.put(op);
  if (--lead->pieces_left > 0) return;
  Completion done = lead->done;
  Status outcome = std::move(lead->status);
  int peer = lead->peer;
  send_ops_.put(lead);
  if (deferred) {
    defer(done, std::move(outcome));
    return;
  }
  if (closing_ || endpoints_[peer]->forgotten_) return;
  ++delivered_;
  done(std::move(outcome));
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
  if (offers_in_flight_ > 0 || pieces_in_flight_ > 0) transport_->sends_abandoned_ = true;
  if (waiting_ != nullptr) {
    transport_->send_ops_.put(std::exchange(waiting_, nullptr));
    --transport_->offers_waiting_;
  }
  transport_->in_flight_ -= offers_in_flight_ + queued_;
  transport_->offers_out_ -= offers_in_flight_;
  for (SendOp* lead : opened_) {  // their completions are skipped: only the ops go back
    lead->pieces_left -= transport_->drop_unsent_pieces(lead);
    if (lead->pieces_left == 0) transport_->send_ops_.put(lead);
  }
  transport_->opened_offers_ -= static_cast<int>(opened_.size());
  opened_.clear();
  transport_->close_when_unused(*this);
  return true;
}

void UcxTransport::on_offer_sent(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<SendOp*>(user_data);
  UcxTransport* t = op->transport;
  api().request_free(request);
  UcxEndpoint& ep = *t->endpoints_[op->peer];
  --ep.offers_in_flight_;
  if (!ep.forgotten_) {  // a forgotten one was taken off when it was forgotten
    --t->in_flight_;
    --t->offers_out_;
  }
  Status outcome = status_of(status, op->peer);
  SendOp* lead = op->lead;
  if (op->windowed) {
    --ep.pieces_in_flight_;
  } else if (op != lead) {
    --lead->early_in_flight;
    if (lead->opened) --ep.pieces_in_flight_;
  } else {
    ep.open(lead, outcome);
  }
  t->list_for_pieces(ep);  // room in its window
  t->piece_sent(op, std::move(outcome), false);
  if (ep.forgotten_) t->close_when_unused(ep);  // once its last send completes
}

// ---- receiver ----------------------------------------------------------------------------

Status UcxEndpoint::pull(const BulkCookie& cookie, const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  if (ep_ == nullptr) return peer_left(peer_);
  GPURUN_TRY(transport_->check_memory(data.kind, peer_));
  Arrival& a = transport_->inbound_[peer_].arrivals[cookie.id];
  a.pulled = true;
  a.data = data;
  a.done = done;
  a.status = ok_status();
  // Pieces still to come are received as they arrive (on_bulk). The arrival goes with its
  // last piece received, maybe within this loop, which therefore no longer looks at it.
  std::vector<Piece> waiting = std::move(a.waiting);
  for (const Piece& piece : waiting) transport_->receive_piece(peer_, cookie.id, piece);
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
  if (rank < 0 || !t->known(rank) || h.bulk.piece >= h.bulk.pieces ||
      (h.bulk.pieces > 1 && h.bulk.piece_size == 0) ||
      (param->recv_attr & (UCP_AM_RECV_ATTR_FLAG_RNDV | UCP_AM_RECV_ATTR_FLAG_DATA)) == 0)
      [[unlikely]] {
    GPURUN_LOG(error, transport, "ucx: dropped bulk data from rank %d", rank);
    return UCS_OK;
  }
  Arrival& a = t->inbound_[rank].arrivals[h.bulk.id];
  a.pieces = h.bulk.pieces;
  a.piece_size = h.bulk.piece_size;
  Piece piece{data, length, h.bulk.piece};
  if (a.pulled)
    t->receive_piece(rank, h.bulk.id, piece);
  else
    a.waiting.push_back(piece);
  // The carried packet comes after: the pull it leads to finds the data there.
  if (carries) t->receive_packet(h.wire, h.payload, header_length - sizeof h.bulk - sizeof h.wire);
  // The descriptor now belongs to a receive, or waits for its pull.
  return UCS_INPROGRESS;
}

void UcxTransport::receive_piece(int peer, std::uint64_t id, const Piece& piece) {
  const Arrival& a = inbound_[peer].arrivals[id];
  const Data& data = a.data;
  std::size_t base = std::size_t{piece.number} * a.piece_size;
  if (base >= data.size) {  // nothing wanted (a truncated pull): let the sender go
    api().am_data_release(worker_, piece.desc);
    piece_received(peer, id, ok_status());
    return;
  }
  RecvOp* op = recv_ops_.take();
  op->transport = this;
  op->peer = peer;
  op->id = id;
  op->data = data;
  op->base = base;
  op->length = piece.length;
  // Straight into the user's buffer when it is one block that takes it all; else through the
  // generic datatype (non-contiguous, or truncated: the surplus is dropped).
  bool direct = data.contiguous != nullptr && data.size - base >= piece.length;
  ucp_request_param_t p;
  p.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  p.cb.recv_am = on_received;
  p.user_data = op;
  p.datatype = direct ? ucp_dt_make_contig(1) : generic_;
  set_memory_type(p, data.kind);
  void* buffer = direct ? static_cast<std::byte*>(data.contiguous) + base : static_cast<void*>(op);
  ucs_status_ptr_t r = api().am_recv_data_nbx(worker_, piece.desc, buffer, piece.length, &p);
  if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
    ++in_flight_;
    return;
  }
  recv_ops_.put(op);
  piece_received(peer, id, r == nullptr ? ok_status() : status_of(UCS_PTR_STATUS(r), peer));
}

void UcxTransport::on_received(void* request, ucs_status_t status, std::size_t /*length*/,
                               void* user_data) {
  auto* op = static_cast<RecvOp*>(user_data);
  UcxTransport* t = op->transport;
  api().request_free(request);
  --t->in_flight_;
  int peer = op->peer;
  std::uint64_t id = op->id;
  t->recv_ops_.put(op);
  if (t->closing_) return;
  t->piece_received(peer, id, status_of(status, peer));
}

void UcxTransport::piece_received(int peer, std::uint64_t id, Status status) {
  auto& arrivals = inbound_[peer].arrivals;
  auto it = arrivals.find(id);
  Arrival& a = it->second;
  if (!status.ok() && a.status.ok()) a.status = std::move(status);
  if (++a.finished < a.pieces) return;
  Completion done = a.done;
  Status outcome = std::move(a.status);
  arrivals.erase(it);
  if (endpoints_[peer] && endpoints_[peer]->forgotten_) close_when_unused(*endpoints_[peer]);
  ++delivered_;
  done(std::move(outcome));
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
