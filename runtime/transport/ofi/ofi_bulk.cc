// Bulk data on ofi, moved when the receiver asks: offer() records, pull() posts the receive
// and sends a CTS, the sender's answer is one tagged message into the posted buffer.
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

Status host_only(const Data& data, int peer) {
  if (accel::is_host(data.kind)) return ok_status();
  return Status(ErrorCode::kUnsupported,
                "ofi does not move device memory to rank " + std::to_string(peer) +
                    " (no FI_HMEM support in gpurun's ofi yet): stage it through host memory");
}

}  // namespace

Result<BulkCookie> OfiEndpoint::offer(const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  GPURUN_TRY(host_only(data, peer_));
  OfiTransport& t = *transport_;
  BulkOp* op = t.take_bulk();
  op->kind = Op::Kind::kBulkSend;
  op->endpoint = this;
  op->data = data;
  op->done = done;
  op->length = data.size;
  op->tag = t.bulk_tag(t.config_.rank, next_offer_);
  offers_.emplace(next_offer_, op);
  ++t.in_flight_;  // the peer still needs this memory
  return BulkCookie{next_offer_++, 0};
}

bool OfiEndpoint::forget_offers() {
  OfiTransport& t = *transport_;
  for (auto& [id, op] : offers_) {
    t.release_bulk(op);
    --t.in_flight_;
  }
  offers_.clear();
  if (failed_.ok()) failed_ = peer_left(peer_);
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
  // The receive is posted (or queued to be) before the CTS leaves, so the data always finds it.
  Status st = t.start_bulk(op);
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
  free_bulk_.push_back(op);
}

Status OfiTransport::start_bulk(BulkOp* op) {
  bool send = op->kind == Op::Kind::kBulkSend;
  void* buffer = op->bounce.empty() ? op->data.contiguous : op->bounce.data();
  void* desc = nullptr;
  if (op->mr != nullptr) {
    desc = fi_mr_desc(op->mr);
  } else {
    GPURUN_TRY(register_buffer(buffer, op->length, send ? FI_SEND : FI_RECV, &op->mr, &desc));
  }
  ssize_t rc =
      send ? fi_tsend(ep_, buffer, op->length, desc, op->endpoint->address_, op->tag, &op->context)
           : fi_trecv(ep_, buffer, op->length, desc, FI_ADDR_UNSPEC, op->tag, 0, &op->context);
  if (rc == -FI_EAGAIN) {
    retry_.push_back(op);
    return ok_status();
  }
  if (rc != 0)
    return Status(ErrorCode::kIo, std::string(send ? "fi_tsend: " : "fi_trecv: ") +
                                      api().strerror(static_cast<int>(-rc)));
  return ok_status();
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

}  // namespace gpurun::transport::ofi
