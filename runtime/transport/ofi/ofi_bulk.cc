// Bulk data on ofi: one tagged message per offer, sent at once; the pull posts its receive.
#include <cstring>
#include <string>

#include "runtime/base/log.h"
#include "runtime/transport/ofi/ofi_transport.h"

namespace gpurun::transport::ofi {
namespace {

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
  if (data.contiguous == nullptr && data.size > 0) {
    op->bounce.resize(data.size);
    data.pack(data.context, 0, op->bounce.data(), data.size);
  }
  Status st = t.start_bulk(op);
  if (!st.ok()) {
    t.release_bulk(op);
    return st.prepend("ofi: cannot offer data to rank " + std::to_string(peer_));
  }
  ++t.in_flight_;
  return BulkCookie{next_offer_++, 0};
}

Status OfiEndpoint::pull(const BulkCookie& cookie, const Data& data, Completion done) {
  if (!failed_.ok()) return failed_;
  GPURUN_TRY(host_only(data, peer_));
  OfiTransport& t = *transport_;
  BulkOp* op = t.take_bulk();
  op->kind = Op::Kind::kBulkRecv;
  op->endpoint = this;
  op->data = data;
  op->done = done;
  op->length = data.size;
  op->tag = t.bulk_tag(peer_, static_cast<std::uint32_t>(cookie.id));
  if (data.contiguous == nullptr && data.size > 0) op->bounce.resize(data.size);
  // tcp;ofi_rxm never completes a zero-byte receive of a rendezvous message: take one byte
  // into scratch (and drop it) instead.
  if (data.size == 0) {
    op->bounce.resize(1);
    op->length = 1;
  }
  Status st = t.start_bulk(op);
  if (!st.ok()) {
    t.release_bulk(op);
    return st.prepend("ofi: cannot receive data from rank " + std::to_string(peer_));
  }
  ++t.in_flight_;
  return ok_status();
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
                                      fi_strerror(static_cast<int>(-rc)));
  return ok_status();
}

void OfiTransport::finish_bulk(BulkOp* op, Status status) {
  if (status.ok() && op->kind == Op::Kind::kBulkRecv && !op->bounce.empty() && op->data.size > 0)
    op->data.unpack(op->data.context, 0, op->bounce.data(), op->length);
  if (!status.ok()) status.prepend("ofi transfer with rank " + std::to_string(op->endpoint->peer_));
  Completion done = op->done;
  release_bulk(op);
  ++delivered_;
  done(std::move(status));
}

}  // namespace gpurun::transport::ofi
