// The pml's receiving side: posted receives, arriving packets matched against them or kept as
// unexpected, eager data delivered, large data pulled.
#include <cstring>

#include "pml/packets.h"
#include "pml/pml.h"
#include "pml/wire.h"
#include "runtime/base/copy.h"
#include "runtime/base/log.h"

namespace gpurun::pml {

Status Pml::irecv(const RecvArgs& a, core::Request* r) {
  r->kind = core::RequestKind::kRecv;
  r->comm = a.comm;
  r->buffer = a.buf;
  r->count = a.count;
  r->datatype = a.type;
  r->peer = a.source;
  r->tag = a.tag;
  r->channel = static_cast<std::uint8_t>(a.channel);
  r->memory = a.memory;
  r->read_soon = a.read_soon;
  r->accel = accel_;
  r->status = core::MessageStatus{};
  r->reset_complete();
  if (!memory_ok(r)) [[unlikely]]
    return device_type_error(*r->datatype);
  hold_type(r);
  MatchQueues& q = queues(context_of(*a.comm, a.channel));
  if (Unexpected* u = q.find_unexpected(a.source, a.tag, /*take=*/true)) {
    deliver(r, *u);
    free_unexpected(u);
    return ok_status();
  }
  if (gone_count_ > 0 && fail_if_gone(r)) [[unlikely]]
    return ok_status();
  r->sequence = ++next_sequence_;
  q.post(r);
  return ok_status();
}

void Pml::on_packet_thunk(void* self, const transport::Packet& packet) {
  static_cast<Pml*>(self)->on_packet(packet);
}

void Pml::on_packet(const transport::Packet& p) {
  const transport::PacketHeader& h = *p.header;
  if (h.type >= kAck) {
    if (h.type == kAck)
      on_ack(p);
    else if (h.type == kBye)
      on_bye(p.peer);
    return;
  }
  MatchQueues& q = queues(h.context);
  if (core::Request* r = q.take_posted(h.source, h.tag)) [[likely]] {
    if (h.type == kRts) {
      RtsPayload rts;
      std::memcpy(&rts, p.payload, sizeof rts);
      r->status.source = h.source;
      r->status.tag = h.tag;
      start_pull(r, p.peer, rts.size, rts.cookie, (h.flags & kDeviceRouteFlag) != 0);
    } else {
      deliver_eager(r, h, p.payload, p.length, p.peer);
    }
    return;
  }
  if (std::uint32_t id = h.context / kChannels; id < retired_.size() && retired_[id]) [[unlikely]] {
    GPURUN_LOG(debug, pml, "message from rank %d (tag %d) for a freed communicator dropped",
               h.source, h.tag);
    return;
  }
  Unexpected* u = new_unexpected();
  u->source = h.source;
  u->tag = h.tag;
  u->peer = p.peer;
  u->type = h.type;
  u->context = h.context;
  u->sync = h.type == kEagerSync || (h.type == kRts && (h.flags & kSyncFlag));
  u->device_route = h.type == kRts && (h.flags & kDeviceRouteFlag);
  if (h.type == kRts) {
    RtsPayload rts;
    std::memcpy(&rts, p.payload, sizeof rts);
    u->size = rts.size;
    u->cookie = rts.cookie;
    u->sender_token = rts.token;
    u->length = 0;
  } else {
    u->length = p.length;
    u->size = h.type == kEagerSync ? p.length - sizeof(std::uint64_t) : p.length;
    std::byte* dst = u->inline_data;
    if (p.length > sizeof u->inline_data) {
      u->heap_data.reset(new std::byte[p.length]);
      dst = u->heap_data.get();
    }
    if (p.length > 0) std::memcpy(dst, p.payload, p.length);  // a zero-length payload may be null
  }
  q.hold(u);
}

void Pml::on_ack(const transport::Packet& p) {
  std::uint64_t token;
  std::memcpy(&token, p.payload, sizeof token);
  core::Request* r = requests_.find(static_cast<std::uint32_t>(token));
  if (r == nullptr || static_cast<std::uint32_t>(r->sequence) != (token >> 32) ||
      r->stage != kInFlight) {
    GPURUN_LOG(warn, pml, "ack from rank %d for no pending synchronous send", p.peer);
    return;
  }
  complete(r);
}

// Copies an eager message (payload as it came, token first for a synchronous send) into the
// receive, acknowledges a synchronous send, and completes the receive.
void Pml::deliver_eager(core::Request* r, const transport::PacketHeader& h, const std::byte* data,
                        std::size_t length, int peer) {
  if (h.type == kEagerSync) {
    std::uint64_t token;
    std::memcpy(&token, data, sizeof token);
    send_ack(peer, h.context, token);
    data += sizeof token;
    length -= sizeof token;
  }
  std::size_t capacity = static_cast<std::size_t>(r->count * r->datatype->size());
  std::size_t n = std::min(length, capacity);
  if (on_device(r)) {
    if (Status st = unpack_eager(r, data, n); !st.ok()) r->status.error = st.code();
  } else if (r->datatype->contiguous()) {
    copy_bytes(first_byte(r), data, n);
  } else {
    r->datatype->unpack(r->buffer, r->count, 0, data, n);
  }
  r->status.source = h.source;
  r->status.tag = h.tag;
  r->status.bytes = n;
  r->size = length;
  if (length > capacity) r->status.error = ErrorCode::kTruncated;
  complete(r);
}

void Pml::deliver(core::Request* r, Unexpected& u) {
  if (u.type == kRts) {
    r->status.source = u.source;
    r->status.tag = u.tag;
    start_pull(r, u.peer, u.size, u.cookie, u.device_route);
    return;
  }
  transport::PacketHeader h{u.type, 0, 0, u.context, u.tag, u.source};
  deliver_eager(r, h, u.data(), u.length, u.peer);
}

void Pml::start_pull(core::Request* r, int peer, std::uint64_t size,
                     const transport::BulkCookie& cookie, bool device_route) {
  std::uint64_t capacity = static_cast<std::uint64_t>(r->count * r->datatype->size());
  std::uint64_t wanted = std::min(size, capacity);
  r->status.bytes = wanted;
  r->size = size;
  if (size > capacity) r->status.error = ErrorCode::kTruncated;
  // The bulk data comes on the endpoint it was offered on; device memory is handed to that
  // transport only when it moves device memory itself.
  Route& route = routes_[peer];
  transport::Endpoint* ep = device_route ? route.device_endpoint : route.endpoint;
  Status st = ep == nullptr ? Status(ErrorCode::kInternal,
                                     "no device route from rank " + std::to_string(peer))
                            : ep->pull(cookie, data_of(r, wanted, device_route),
                                       transport::Completion{on_pull_done, r});
  if (!st.ok()) {
    r->status.error = st.code();
    complete(r);
  }
}

void Pml::on_pull_done(void* request, Status status) {
  auto* r = static_cast<core::Request*>(request);
  if (!status.ok()) r->status.error = status.code();
  complete(r);
}

}  // namespace gpurun::pml
