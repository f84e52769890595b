#include "pml/pml.h"

#include <algorithm>
#include <cstring>

#include "pml/packets.h"
#include "pml/wire.h"
#include "runtime/base/copy.h"
#include "runtime/base/log.h"

namespace gpurun::pml {
namespace {

// A sender's request, as its peer names it: index and a sequence number that tells a reused
// slot from the request the peer means.
std::uint64_t token_of(const core::Request* r) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(r->sequence)) << 32) | r->index;
}

std::size_t pack_thunk(void* request, std::size_t offset, void* dst, std::size_t length) {
  auto* r = static_cast<core::Request*>(request);
  return r->datatype->pack(r->buffer, r->count, offset, dst, length);
}
std::size_t unpack_thunk(void* request, std::size_t offset, const void* src, std::size_t length) {
  auto* r = static_cast<core::Request*>(request);
  return r->datatype->unpack(r->buffer, r->count, offset, src, length);
}

// Staging: a transport that moves only host memory reaches device data through the
// accelerator's copies, fragment by fragment (the shm pipeline then stages through its slots).
std::size_t pack_device_thunk(void* request, std::size_t offset, void* dst, std::size_t length) {
  auto* r = static_cast<core::Request*>(request);
  std::size_t n = std::min<std::size_t>(length, r->size - offset);
  if (!r->accel->copy(dst, first_byte(r) + offset, n).ok()) return 0;
  return n;
}
std::size_t unpack_device_thunk(void* request, std::size_t offset, const void* src,
                                std::size_t length) {
  auto* r = static_cast<core::Request*>(request);
  if (!r->accel->copy(first_byte(r) + offset, src, length).ok()) return 0;
  return length;
}

}  // namespace

transport::Data data_of(core::Request* request, std::size_t size, bool native_device) {
  transport::Data d;
  d.size = size;
  d.context = request;
  d.kind = request->memory;
  d.read_soon = request->read_soon;
  if (on_device(request) && !native_device) {
    d.pack = pack_device_thunk;
    d.unpack = unpack_device_thunk;
    return d;
  }
  if (request->datatype->contiguous()) d.contiguous = first_byte(request);
  d.pack = pack_thunk;
  d.unpack = unpack_thunk;
  return d;
}

Pml::Pml(int job_rank, int job_size)
    : job_rank_(job_rank), routes_(job_size), accel_(&accel::current()), gone_(job_size, 0) {}

Pml::~Pml() = default;

transport::PacketHandler Pml::handler() {
  return transport::PacketHandler{on_packet_thunk, this, on_lost_thunk};
}

void Pml::add_transport(transport::Transport* transport) {
  transports_.push_back(transport);
  pending_words_.push_back(transport->pending_word());
}

void Pml::set_route(int rank, transport::Endpoint* endpoint, std::size_t eager_limit,
                    const char* transport_name) {
  if (static_cast<std::size_t>(rank) >= routes_.size()) {  // a process of another job
    routes_.resize(static_cast<std::size_t>(rank) + 1);
    gone_.resize(routes_.size(), 0);
  }
  Route& route = routes_[rank];
  route.endpoint = endpoint;
  route.eager_limit = eager_limit;
  route.transport_name = transport_name;
  if (scratch_.size() < eager_limit + sizeof(std::uint64_t))
    scratch_.resize(eager_limit + sizeof(std::uint64_t));
}

void Pml::set_device_route(int rank, transport::Endpoint* endpoint, const char* transport_name) {
  routes_[rank].device_endpoint = endpoint;
  routes_[rank].device_transport_name = transport_name;
}

MatchQueues& Pml::make_queues(std::uint32_t context) {
  if (context >= contexts_.size()) contexts_.resize(context + 1);
  if (!contexts_[context]) contexts_[context] = std::make_unique<MatchQueues>();
  return *contexts_[context];
}

void Pml::add_comm(const core::Communicator& comm) {
  queues(context_of(comm, Channel::kUser));
  queues(context_of(comm, Channel::kColl));
}

void Pml::remove_comm(const core::Communicator& comm) {
  // The context id is still this process's, so no peer can have sent for a communicator that
  // reuses it yet: what arrived for it is the freed communicator's, left by an erroneous
  // program (a call that failed after its peers had sent, a send never received), and goes
  // rather than reach the next communicator with this id. Receives still posted stay: pending
  // operations complete normally.
  for (std::uint32_t channel = 0; channel < kChannels; ++channel) {
    std::uint32_t context = context_of(comm, static_cast<Channel>(channel));
    if (context >= contexts_.size() || !contexts_[context]) continue;
    MatchQueues& q = *contexts_[context];
    while (Unexpected* u = q.find_unexpected(kAnySource, kAnyTag, /*take=*/true)) {
      GPURUN_LOG(debug, pml, "freed communicator: message from rank %d (tag %d) dropped", u->source,
                 u->tag);
      free_unexpected(u);
    }
    if (q.idle()) contexts_[context].reset();
  }
  if (comm.context_id() >= retired_.size()) retired_.resize(comm.context_id() + 1);
  retired_[comm.context_id()] = true;
}

void Pml::reuse_context_id(std::uint32_t id) {
  if (id < retired_.size()) retired_[id] = false;
}

// ---- sending ---------------------------------------------------------------------------

bool Pml::send_now(const SendArgs& a) {
  std::int64_t size = a.count * a.type->size();
  Route& route = routes_[a.comm->group().job_rank(a.dest)];
  if (static_cast<std::size_t>(size) > route.eager_limit || !a.type->contiguous() ||
      a.mode == SendMode::kSync || !route.pending.empty() || a.memory != accel::MemoryKind::kHost)
    return false;
  transport::PacketHeader header{kEager,        0, 0, context_of(*a.comm, a.channel), a.tag,
                                 a.comm->rank()};
  const auto* data = static_cast<const std::byte*>(a.buf) + a.type->true_lb();
  if (!route.endpoint->send(header, data, static_cast<std::size_t>(size)).ok()) return false;
  count_sent(true, static_cast<std::uint64_t>(size));
  return true;
}

namespace {
// The send `a` on `r`: what it moves, with whom.
void describe_send(const SendArgs& a, core::Request* r) {
  r->kind = core::RequestKind::kSend;
  r->comm = a.comm;
  r->buffer = const_cast<void*>(a.buf);
  r->count = a.count;
  r->datatype = a.type;
  r->peer = a.dest;
  r->tag = a.tag;
  r->mode = static_cast<std::uint8_t>(a.mode);
  r->channel = static_cast<std::uint8_t>(a.channel);
  r->memory = a.memory;
  r->size = static_cast<std::uint64_t>(a.count * a.type->size());
}
}  // namespace

bool Pml::isend_now(const SendArgs& a, core::Request* r) {
  if (gone_count_ > 0 || !send_now(a)) return false;
  // A completed send holds no reference on its type and has the status a fresh request has.
  describe_send(a, r);
  r->set_complete();
  return true;
}

Status Pml::isend(const SendArgs& a, core::Request* r) {
  describe_send(a, r);
  r->accel = accel_;
  if (!memory_ok(r)) [[unlikely]]
    return device_type_error(*r->datatype);
  hold_type(r);
  r->stage = kNew;
  r->sequence = ++next_sequence_;
  r->status = core::MessageStatus{};
  r->reset_complete();
  if (gone_count_ > 0 && fail_if_gone(r)) [[unlikely]]
    return ok_status();
  Route& route = routes_[a.comm->group().job_rank(a.dest)];
  if (route.pending.empty() && start_send(route, r)) return ok_status();
  queue_send(route, r);
  return ok_status();
}

// Puts the send on the wire, or returns false when the route has no room for it now.
bool Pml::start_send(Route& route, core::Request* r) {
  if (r->size <= route.eager_limit || streams_eagerly(route, r)) return send_eager(route, r);
  return send_rts(route, r);
}

// A message a little above the eager limit, sent while an earlier rendezvous send to the same
// peer still waits for it, and with room for it in the send queue: in one packet, so that this
// core copies it in while the peer's copies out the ones before (by rendezvous the receiver's
// core alone would copy them all, and this one would wait). Without room it would wait for the
// peer to read, which costs more than the copy it saves (osu_bibw 8K with every 8K message in one
// packet: 12.7 GB/s against 16.6 by rendezvous; 19.0 with the room check). Plain sends only
// (contiguous host data, not synchronous).
bool Pml::streams_eagerly(const Route& route, const core::Request* r) {
  return r->size <= route.stream_eager_limit && r->stage == kNew &&
         route.endpoint->offers_out() > 0 &&
         r->mode != static_cast<std::uint8_t>(SendMode::kSync) && r->datatype->contiguous() &&
         !on_device(r) && route.endpoint->has_room_for(r->size);
}

bool Pml::send_eager(Route& route, core::Request* r) {
  bool sync = r->mode == static_cast<std::uint8_t>(SendMode::kSync);
  transport::PacketHeader header{sync ? kEagerSync : kEager,
                                 0,
                                 0,
                                 context_of(*r->comm, static_cast<Channel>(r->channel)),
                                 r->tag,
                                 r->comm->rank()};
  const void* payload;
  std::size_t length;
  if (!sync && r->datatype->contiguous() && !on_device(r)) {
    payload = first_byte(r);
    length = r->size;
  } else {
    std::size_t prefix = sync ? sizeof(std::uint64_t) : 0;
    if (sync) {
      std::uint64_t token = token_of(r);
      std::memcpy(scratch_.data(), &token, sizeof token);
    }
    if (Status st = pack_eager(r, scratch_.data() + prefix); !st.ok()) {
      r->status.error = st.code();
      complete(r);
      return true;
    }
    payload = scratch_.data();
    length = prefix + r->size;
  }
  Status st = route.endpoint->send(header, payload, length);
  if (st.code() == ErrorCode::kNoResource) return false;
  if (!st.ok()) {
    r->status.error = st.code();
    complete(r);
  } else {
    count_sent(true, r->size);
    if (sync)
      r->stage = kInFlight;
    else
      complete(r);
  }
  return true;
}

bool Pml::send_rts(Route& route, core::Request* r) {
  // Device data goes on the device endpoint when the route has one, else staged on the host one.
  bool device_route = on_device(r) && route.device_endpoint != nullptr;
  if (r->stage == kNew) {
    transport::Endpoint* ep = device_route ? route.device_endpoint : route.endpoint;
    auto cookie =
        ep->offer(data_of(r, r->size, device_route), transport::Completion{on_offer_done, r});
    if (!cookie.ok()) {
      r->status.error = cookie.status().code();
      complete(r);
      return true;
    }
    r->remote[0] = cookie->id;
    r->remote[1] = cookie->address;
    r->stage = kOffered;
  }
  bool sync = r->mode == static_cast<std::uint8_t>(SendMode::kSync);
  auto flags =
      static_cast<std::uint8_t>((sync ? kSyncFlag : 0) | (device_route ? kDeviceRouteFlag : 0));
  transport::PacketHeader header{kRts,   flags,
                                 0,      context_of(*r->comm, static_cast<Channel>(r->channel)),
                                 r->tag, r->comm->rank()};
  RtsPayload rts{r->size, transport::BulkCookie{r->remote[0], r->remote[1]}, token_of(r)};
  Status st = route.endpoint->send(header, &rts, sizeof rts);
  if (st.code() == ErrorCode::kNoResource) return false;
  r->stage = kInFlight;
  if (!st.ok()) {
    r->status.error = st.code();
    complete(r);
  } else {
    count_sent(false, r->size);
  }
  return true;
}

void Pml::queue_send(Route& route, core::Request* r) {
  route.pending.push_back(r);
  if (!route.flagged) {
    route.flagged = true;
    busy_routes_.push_back(static_cast<int>(&route - routes_.data()));
  }
}

void Pml::send_ack(int peer, std::uint32_t context, std::uint64_t token) {
  Route& route = routes_[peer];
  transport::PacketHeader header{kAck, 0, 0, context, 0, 0};
  if (route.acks.empty() && route.endpoint->send(header, &token, sizeof token).ok()) return;
  route.acks.push_back(QueuedAck{context, token});
  if (!route.flagged) {
    route.flagged = true;
    busy_routes_.push_back(peer);
  }
}

int Pml::flush_routes() {
  int events = 0;
  for (std::size_t i = 0; i < busy_routes_.size();) {
    Route& route = routes_[busy_routes_[i]];
    while (!route.acks.empty()) {
      transport::PacketHeader header{kAck, 0, 0, route.acks.front().context, 0, 0};
      if (!route.endpoint->send(header, &route.acks.front().token, sizeof(std::uint64_t)).ok())
        break;
      route.acks.pop_front();
      ++events;
    }
    while (!route.pending.empty() && start_send(route, route.pending.front())) {
      route.pending.pop_front();
      ++events;
    }
    if (route.pending.empty() && route.acks.empty()) {
      route.flagged = false;
      busy_routes_[i] = busy_routes_.back();
      busy_routes_.pop_back();
    } else {
      ++i;
    }
  }
  return events;
}

void Pml::on_offer_done(void* request, Status status) {
  auto* r = static_cast<core::Request*>(request);
  if (!status.ok()) r->status.error = status.code();
  complete(r);
}

// Device memory moves as one block: strided device data would need device pack kernels.
Status device_type_error(const core::Datatype& type) {
  return Status(ErrorCode::kUnsupported,
                "a non-contiguous datatype (" + type.name() +
                    ") in device memory: gpurun moves device buffers of contiguous types only "
                    "so far; pack into a contiguous device buffer first");
}

Status Pml::pack_eager(core::Request* r, std::byte* dst) {
  if (!on_device(r)) {
    r->datatype->pack(r->buffer, r->count, 0, dst, r->size);
    return ok_status();
  }
  return accel_->copy(dst, first_byte(r), r->size);
}

Status Pml::unpack_eager(core::Request* r, const std::byte* src, std::size_t length) {
  return r->accel->copy(first_byte(r), src, length);
}

// A user datatype stays alive while an operation uses it, even if the user frees it
// meanwhile; predefined ones live for the whole process and need no counting.
void Pml::hold_type(core::Request* r) {
  if (!r->datatype->predefined()) r->datatype->retain();
}

void Pml::complete_slow(core::Request* r) {
  if (!r->datatype->predefined()) r->datatype->release();
  r->set_complete();
  if (r->on_complete != nullptr) r->on_complete(r);
  if (r->orphan && r->pool != nullptr) r->pool->release(r);
}

// ---- probing, cancelling, progress ---------------------------------------------------

bool Pml::iprobe(const core::Communicator& comm, int source, int tag, Channel channel,
                 core::MessageStatus* status) {
  Unexpected* u = queues(context_of(comm, channel)).find_unexpected(source, tag, false);
  if (u == nullptr) return false;
  *status = core::MessageStatus{u->source, u->tag, ErrorCode::kOk, u->size, false};
  return true;
}

Message* Pml::improbe(const core::Communicator& comm, int source, int tag, Channel channel,
                      core::MessageStatus* status) {
  Unexpected* u = queues(context_of(comm, channel)).find_unexpected(source, tag, true);
  if (u != nullptr)
    *status = core::MessageStatus{u->source, u->tag, ErrorCode::kOk, u->size, false};
  return u;
}

Status Pml::mrecv(Message* message, const RecvArgs& a, core::Request* r) {
  r->kind = core::RequestKind::kRecv;
  r->comm = a.comm;
  r->buffer = a.buf;
  r->count = a.count;
  r->datatype = a.type;
  r->peer = message->source;
  r->tag = message->tag;
  r->channel = static_cast<std::uint8_t>(a.channel);
  r->memory = a.memory;
  r->accel = accel_;
  r->status = core::MessageStatus{};
  r->reset_complete();
  if (!memory_ok(r)) [[unlikely]]
    return device_type_error(*r->datatype);
  hold_type(r);
  deliver(r, *message);
  free_unexpected(message);
  return ok_status();
}

bool Pml::cancel(core::Request* r) {
  if (r->complete()) return cancel_failed_by_leaving(r);
  bool removed = false;
  if (r->kind == core::RequestKind::kRecv) {
    removed = queues(context_of(*r->comm, static_cast<Channel>(r->channel))).unpost(r);
  } else if (r->kind == core::RequestKind::kSend && r->stage == kNew) {
    Route& route = routes_[r->comm->group().job_rank(r->peer)];
    auto it = std::find(route.pending.begin(), route.pending.end(), r);
    if (it != route.pending.end()) {
      route.pending.erase(it);
      removed = true;
    }
  }
  if (!removed) return false;
  r->status.cancelled = true;
  complete(r);
  return true;
}

void Pml::give_up(std::span<const void* const> owners, bool detach) {
  std::vector<core::Request*> theirs;
  requests().for_each([&](core::Request* r) {
    if (!r->complete() && std::find(owners.begin(), owners.end(), r->owner) != owners.end())
      theirs.push_back(r);
  });
  for (core::Request* r : theirs) {
    if (detach) {
      r->on_complete = nullptr;
      r->owner = nullptr;
    }
    if (!cancel(r)) r->orphan = false;
  }
}

int Pml::progress() {
  int events = 0;
  for (std::size_t i = 0; i < transports_.size(); ++i) {
    const std::size_t* pending = pending_words_[i];
    if (pending == nullptr || *pending != 0) events += transports_[i]->progress();
  }
  if (!busy_routes_.empty()) [[unlikely]]
    events += flush_routes();
  return events;
}

Unexpected* Pml::new_unexpected() {
  if (unexpected_pool_.empty()) return new Unexpected();
  Unexpected* u = unexpected_pool_.back().release();
  unexpected_pool_.pop_back();
  return u;
}

void Pml::free_unexpected(Unexpected* u) {
  u->heap_data.reset();
  unexpected_pool_.emplace_back(u);
}

}  // namespace gpurun::pml
