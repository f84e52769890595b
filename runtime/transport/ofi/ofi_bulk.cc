// Bulk data on ofi, moved when the receiver asks: offer() records, pull() posts the receive
// and sends a CTS, the sender's answer is one tagged message into the posted buffer.
//
// Pieces: host data larger than GPURUN_OFI_PIECE_SIZE moves as tagged messages of that size,
// each with a tag of its own (the offer's id plus the piece's number: an offer takes as many
// ids as it may have pieces). The receiver posts a receive for each piece before its CTS; the
// sender keeps GPURUN_OFI_PIECE_WINDOW of them in flight to the peer, all into posted
// receives, so that no piece waits for anything but the network. Over libfabric's tcp one
// message of 1M moves at about 2.1 GB/s between two test hosts, pieces of 128K at 5 and more.
//
// Receives beyond the provider's receive queue (less the packet buffers: recv_budget_) wait in
// order and are posted as earlier ones complete; the sender sends in the order the receiver
// asked, so what arrives before its receive is posted is the provider's to hold, briefly.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/base/log.h"
#include "runtime/transport/ofi/ofi_transport.h"

namespace gpurun::transport::ofi {
namespace {

// Transport control packets (types at or above kTransportTypes).
constexpr std::uint8_t kCts = kTransportTypes;  // receiver -> sender: send offer `id`

struct CtsPayload {
  std::uint32_t id;
  std::uint32_t reserved;
  std::uint64_t wanted;  // bytes the receiver takes (a truncating receive wants fewer)
};

std::uint32_t pieces_of(std::size_t length, std::size_t piece_size) {
  return static_cast<std::uint32_t>((length + piece_size - 1) / piece_size);
}

// Where a transfer's bytes lie: the user's block, or the packed copy of non-contiguous data.
std::byte* bytes_of(BulkOp* op) {
  return static_cast<std::byte*>(op->bounce.empty() ? op->data.contiguous : op->bounce.data());
}

Status host_only(const Data& data, int peer) {
  if (accel::is_host(data.kind)) return ok_status();
  return Status(ErrorCode::kUnsupported,
                "ofi does not move device memory to rank " + std::to_string(peer) +
                    " (no FI_HMEM support in gpurun's ofi yet): stage it through host memory");
}

}  // namespace

Result<BulkCookie> OfiEndpoint::offer(const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  if (left_) return peer_left(peer_);
  GPURUN_TRY(host_only(data, peer_));
  OfiTransport& t = *transport_;
  BulkOp* op = t.take_bulk();
  op->kind = Op::Kind::kBulkSend;
  op->endpoint = this;
  op->data = data;
  op->done = done;
  op->length = data.size;
  op->tag = t.bulk_tag(id_at_peer_, next_offer_);
  op->piece_size = t.piece_size_of(data);
  offers_.emplace(next_offer_, op);
  ++t.in_flight_;  // the peer still needs this memory
  BulkCookie cookie{next_offer_, op->piece_size};
  next_offer_ += op->piece_size == 0 ? 1 : pieces_of(data.size, op->piece_size);
  return cookie;
}

bool OfiTransport::only_offers_left() const {
  std::size_t unasked = 0;
  for (const auto& ep : endpoints_)
    if (ep) unasked += ep->offers_.size();
  return static_cast<std::size_t>(in_flight_) == unasked && waiting_sends_.empty() &&
         waiting_recvs_.empty() && controls_.empty();
}

bool OfiEndpoint::forget_offers() {
  OfiTransport& t = *transport_;
  for (auto& [id, op] : offers_) {
    t.release_bulk(op);
    --t.in_flight_;
  }
  offers_.clear();
  left_ = true;
  return true;
}

Status OfiEndpoint::pull(const BulkCookie& cookie, const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  GPURUN_TRY(host_only(data, peer_));
  OfiTransport& t = *transport_;
  CtsPayload cts{static_cast<std::uint32_t>(cookie.id), 0, data.size};
  if (data.size == 0) {  // nothing wanted: the sender completes without sending
    t.send_control(*this, kCts, &cts, sizeof cts);
    done(ok_status());
    return ok_status();
  }
  BulkOp* op = t.take_bulk();
  op->kind = Op::Kind::kBulkRecv;
  op->endpoint = this;
  op->data = data;
  op->done = done;
  op->length = data.size;
  op->tag = t.bulk_tag(peer_, cts.id);
  if (data.contiguous == nullptr) op->bounce.resize(data.size);
  op->piece_size = cookie.address > 0 && data.size > cookie.address ? cookie.address : 0;
  // The receive is posted (or queued to be) before the CTS leaves, so the data always finds it.
  Status st = op->piece_size > 0 ? t.post_pieces(op) : t.start_bulk(op);
  if (!st.ok()) {
    t.release_bulk(op);
    return st.prepend("ofi: cannot receive data from rank " + std::to_string(peer_));
  }
  ++t.in_flight_;
  t.send_control(*this, kCts, &cts, sizeof cts);
  return ok_status();
}

void OfiTransport::handle_control(int rank, const PacketHeader& header, const std::byte* payload,
                                  std::size_t length) {
  CtsPayload cts;
  OfiEndpoint* ep = endpoints_[rank].get();
  if (header.type != kCts || length != sizeof cts || ep == nullptr) [[unlikely]] {
    GPURUN_LOG(error, transport, "ofi: dropped a control packet (type %u) from rank %d",
               header.type, rank);
    return;
  }
  std::memcpy(&cts, payload, sizeof cts);
  auto it = ep->offers_.find(cts.id);
  if (it == ep->offers_.end()) {
    GPURUN_LOG(error, transport, "ofi: rank %d asked for offer %u, which is not pending", rank,
               cts.id);
    return;
  }
  BulkOp* op = it->second;
  ep->offers_.erase(it);
  op->length = std::min<std::uint64_t>(cts.wanted, op->data.size);
  if (op->length == 0) {
    --in_flight_;
    finish_bulk(op, ok_status());
    return;
  }
  if (op->data.contiguous == nullptr) {
    op->bounce.resize(op->length);
    op->data.pack(op->data.context, 0, op->bounce.data(), op->length);
  }
  if (op->piece_size > 0 && op->length > op->piece_size) {
    start_pieces(op);
    return;
  }
  Status st = start_bulk(op);
  if (!st.ok()) {
    --in_flight_;
    finish_bulk(op, std::move(st));
  }
}

void OfiTransport::send_control(OfiEndpoint& ep, std::uint8_t type, const void* payload,
                                std::size_t length) {
  if (controls_.empty()) {
    PacketHeader header{};
    header.type = type;
    Status st = post_packet(ep, header, payload, length);
    if (st.ok()) return;
    if (st.code() != ErrorCode::kNoResource) {
      GPURUN_LOG(error, transport, "%s", st.to_string().c_str());
      return;
    }
  }
  const auto* bytes = static_cast<const std::byte*>(payload);
  controls_.push_back(PendingControl{&ep, type, std::vector<std::byte>(bytes, bytes + length)});
}

int OfiTransport::flush_controls() {
  int sent = 0;
  while (!controls_.empty()) {
    PendingControl& c = controls_.front();
    PacketHeader header{};
    header.type = c.type;
    Status st = post_packet(*c.endpoint, header, c.payload.data(), c.payload.size());
    if (st.code() == ErrorCode::kNoResource) break;
    if (!st.ok()) GPURUN_LOG(error, transport, "%s", st.to_string().c_str());
    controls_.pop_front();
    ++sent;
  }
  return sent;
}

BulkOp* OfiTransport::take_bulk() {
  if (free_bulk_.empty()) return bulk_ops_.emplace_back(std::make_unique<BulkOp>()).get();
  BulkOp* op = free_bulk_.back();
  free_bulk_.pop_back();
  return op;
}

void OfiTransport::release_bulk(BulkOp* op) {
  if (op->mr != nullptr) fi_close(&op->mr->fid);
  op->mr = nullptr;
  op->bounce = std::vector<std::byte>();  // large, and rarely the same size again
  op->done = Completion{};
  op->lead = nullptr;
  op->offset = 0;
  op->piece_size = 0;
  op->status = ok_status();
  free_bulk_.push_back(op);
}

Status OfiTransport::start_bulk(BulkOp* op) {
  bool send = op->kind == Op::Kind::kBulkSend;
  std::deque<BulkOp*>& waiting = send ? waiting_sends_ : waiting_recvs_;
  if (waiting.empty() && (send || recvs_posted_ < recv_budget_)) {
    GPURUN_ASSIGN_OR_RETURN(bool posted, post_bulk(op));
    if (posted) return ok_status();
  }
  waiting.push_back(op);
  return ok_status();
}

Result<bool> OfiTransport::post_bulk(BulkOp* op) {
  bool send = op->kind == Op::Kind::kBulkSend;
  BulkOp* owner = op->lead != nullptr ? op->lead : op;  // whose buffer and registration
  void* buffer = bytes_of(owner) + op->offset;
  void* desc = nullptr;
  if (owner->mr != nullptr) {
    desc = fi_mr_desc(owner->mr);
  } else {
    GPURUN_TRY(register_buffer(buffer, op->length, send ? FI_SEND : FI_RECV, &op->mr, &desc));
  }
  ssize_t rc =
      send ? fi_tsend(ep_, buffer, op->length, desc, op->endpoint->address_, op->tag, &op->context)
           : fi_trecv(ep_, buffer, op->length, desc, FI_ADDR_UNSPEC, op->tag, 0, &op->context);
  if (rc == -FI_EAGAIN) {
    if (!send) ++receives_refused_;
    return false;
  }
  if (rc != 0)
    return Status(ErrorCode::kIo, std::string(send ? "fi_tsend: " : "fi_trecv: ") +
                                      api().strerror(static_cast<int>(-rc)));
  if (!send) ++recvs_posted_;
  return true;
}

void OfiTransport::finish_bulk(BulkOp* op, Status status) {
  if (status.ok() && op->kind == Op::Kind::kBulkRecv && !op->bounce.empty())
    op->data.unpack(op->data.context, 0, op->bounce.data(), op->length);
  if (!status.ok()) status.prepend("ofi transfer with rank " + std::to_string(op->endpoint->peer_));
  Completion done = op->done;
  release_bulk(op);
  ++delivered_;
  done(std::move(status));
}

// ---- pieces ------------------------------------------------------------------------------

std::size_t OfiTransport::piece_size_of(const Data& data) const {
  return piece_size_ > 0 && data.size > piece_size_ ? piece_size_ : 0;
}

void OfiTransport::end_bulk(BulkOp* op, Status status) {
  if (op->lead != nullptr)
    piece_done(op, std::move(status));
  else
    finish_bulk(op, std::move(status));
}

BulkOp* OfiTransport::make_piece(BulkOp* lead, std::uint32_t number) {
  BulkOp* piece = take_bulk();
  piece->kind = lead->kind;
  piece->endpoint = lead->endpoint;
  piece->lead = lead;
  piece->offset = std::size_t{number} * lead->piece_size;
  piece->length = std::min(lead->piece_size, lead->length - piece->offset);
  // The offer's id plus the piece's number, in the id's 32 bits.
  piece->tag =
      (lead->tag & ~std::uint64_t{0xffffffff}) | ((lead->tag + number) & std::uint64_t{0xffffffff});
  return piece;
}

// One registration of the whole buffer serves every piece (where the provider needs one).
Status OfiTransport::begin_pieces(BulkOp* lead, std::uint64_t access) {
  void* desc = nullptr;
  GPURUN_TRY(register_buffer(bytes_of(lead), lead->length, access, &lead->mr, &desc));
  lead->pieces = pieces_of(lead->length, lead->piece_size);
  lead->next_piece = 0;
  lead->pieces_left = lead->pieces;
  lead->status = ok_status();
  return ok_status();
}

Status OfiTransport::post_pieces(BulkOp* lead) {
  GPURUN_TRY(begin_pieces(lead, FI_RECV));
  for (std::uint32_t k = 0; k < lead->pieces; ++k) {
    BulkOp* piece = make_piece(lead, k);
    Status st = start_bulk(piece);
    if (st.ok()) {
      ++in_flight_;
      continue;
    }
    release_bulk(piece);
    if (k == 0) return st;
    // The sender sends what was not posted; it stays with the provider. The pull fails.
    lead->status = st;
    lead->pieces_left -= lead->pieces - k;
    break;
  }
  return ok_status();
}

void OfiTransport::start_pieces(BulkOp* lead) {
  Status st = begin_pieces(lead, FI_SEND);
  if (!st.ok()) {
    --in_flight_;
    finish_bulk(lead, std::move(st));
    return;
  }
  lead->endpoint->sending_.push_back(lead);
  send_pieces(*lead->endpoint);
}

void OfiTransport::send_pieces(OfiEndpoint& ep) {
  while (ep.pieces_in_flight_ < piece_window_ && !ep.sending_.empty()) {
    BulkOp* lead = ep.sending_.front();
    std::uint32_t k = lead->next_piece++;
    if (lead->next_piece == lead->pieces) ep.sending_.pop_front();
    BulkOp* piece = make_piece(lead, k);
    ++in_flight_;
    ++ep.pieces_in_flight_;
    Status st = start_bulk(piece);
    if (st.ok()) continue;
    // This piece and those after it never leave: the transfer ends with those sent.
    --in_flight_;
    if (lead->next_piece < lead->pieces) ep.sending_.pop_front();
    lead->pieces_left -= lead->pieces - lead->next_piece;
    lead->next_piece = lead->pieces;
    piece_done(piece, std::move(st));
  }
}

void OfiTransport::piece_done(BulkOp* piece, Status status) {
  BulkOp* lead = piece->lead;
  OfiEndpoint& ep = *piece->endpoint;
  bool send = piece->kind == Op::Kind::kBulkSend;
  release_bulk(piece);
  if (!status.ok() && lead->status.ok()) lead->status = std::move(status);
  if (send) --ep.pieces_in_flight_;
  if (--lead->pieces_left == 0) {
    --in_flight_;  // the lead's own count: the offer's or the pull's
    finish_bulk(lead, std::move(lead->status));
  }
  if (send) send_pieces(ep);
}

}  // namespace gpurun::transport::ofi
