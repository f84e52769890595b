#include "runtime/transport/ofi/ofi_transport.h"

#include <algorithm>
#include <cstring>

#include "runtime/base/log.h"
#include "runtime/transport/ofi/params.h"

namespace gpurun::transport::ofi {
namespace {

// Tags: the top four bits say what a message is. Packets have one tag; bulk data names its
// sender (28 bits) and the offer (32 bits).
constexpr std::uint64_t kPacketTag = std::uint64_t{1} << 60;
constexpr std::uint64_t kBulkKind = std::uint64_t{2} << 60;

// A latency and bandwidth model for path selection: libfabric over a verbs or EFA NIC is in
// the range of UCX (a few microseconds, 10-20 GB/s); over TCP far less (here 228 us and 0.3
// GB/s for fi_pingpong on loopback). It ranks after ucx, which the path policy tries first.
constexpr Model kModel{3.0, 12.0};

Status ofi_error(const std::string& what, ssize_t rc) {
  return Status(ErrorCode::kIo, what + ": " + api().strerror(static_cast<int>(-rc)));
}

}  // namespace

// ---- OfiEndpoint: packets ---------------------------------------------------------------

Status OfiEndpoint::send(const PacketHeader& header, const void* payload, std::size_t length) {
  if (!failed_.ok()) [[unlikely]]
    return failed_;
  return transport_->post_packet(*this, header, payload, length);
}

Status OfiTransport::post_packet(OfiEndpoint& ep, const PacketHeader& header, const void* payload,
                                 std::size_t length) {
  if (free_sends_.empty()) [[unlikely]]
    return Status(ErrorCode::kNoResource);
  PacketBuffer* b = free_sends_.back();
  WireHeader wire{header, ep.id_at_peer_, ep.next_seq_};
  std::memcpy(b->bytes.data(), &wire, sizeof wire);
  if (length > 0) std::memcpy(b->bytes.data() + sizeof wire, payload, length);
  b->endpoint = &ep;
  ssize_t rc = fi_tsend(ep_, b->bytes.data(), sizeof wire + length, b->desc, ep.address_,
                        kPacketTag, &b->context);
  if (rc == -FI_EAGAIN) return Status(ErrorCode::kNoResource);
  if (rc != 0) return ofi_error("ofi send to rank " + std::to_string(ep.peer_), rc);
  free_sends_.pop_back();
  ++ep.next_seq_;
  ++in_flight_;
  return ok_status();
}

// ---- OfiTransport: set-up ---------------------------------------------------------------

OfiTransport::OfiTransport(const Config& config, PacketHandler handler)
    : config_(config), handler_(handler), inbound_(static_cast<std::size_t>(config.size)) {
  endpoints_.resize(static_cast<std::size_t>(config.size));
  caps_.name = "ofi";
  caps_.reach = Reach::kNetwork;
  caps_.max_packet = static_cast<std::size_t>(params::max_packet().get().bytes);
  caps_.model = kModel;
  piece_size_ = piece_size_from(config.piece_size.value_or(params::piece_size().get().bytes));
  piece_window_ = std::max(1, config.piece_window.value_or(params::piece_window().get()));
}

Result<std::unique_ptr<OfiTransport>> OfiTransport::create(const Config& config,
                                                           PacketHandler handler) {
  Preference pref{params::provider().get(), params::domain().get(), config.loopback_only,
                  config.nic};
  GPURUN_ASSIGN_OR_RETURN(fi_info * info, get_info(pref));
  std::unique_ptr<OfiTransport> t(new OfiTransport(config, handler));
  t->info_ = info;
  GPURUN_TRY(t->open(info));
  GPURUN_TRY(t->post_receive_buffers());
  GPURUN_LOG(debug, transport,
             "ofi: provider %s, domain %s, packets up to %zu bytes, %zu bulk receives%s",
             t->provider_.c_str(), t->domain_name_.c_str(), t->caps_.max_packet, t->recv_budget_,
             t->local_mr_ ? ", local registration" : "");
  return t;
}

Status OfiTransport::open(fi_info* info) {
  provider_ = info->fabric_attr->prov_name;
  domain_name_ = info->domain_attr->name;
  local_mr_ = (info->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
  caps_.loopback_only = offer_of(info).loopback;
  caps_.max_packet =
      std::min<std::size_t>(caps_.max_packet, info->ep_attr->max_msg_size - sizeof(WireHeader));
  int rc = api().fabric(info->fabric_attr, &fabric_, nullptr);
  if (rc != 0) return ofi_error("fi_fabric " + provider_, rc);
  rc = fi_domain(fabric_, info, &domain_, nullptr);
  if (rc != 0) return ofi_error("fi_domain " + domain_name_, rc);
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  av_attr.count = static_cast<std::size_t>(config_.size);
  rc = fi_av_open(domain_, &av_attr, &av_, nullptr);
  if (rc != 0) return ofi_error("fi_av_open", rc);
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  cq_attr.wait_obj = FI_WAIT_NONE;
  rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr);
  if (rc != 0) return ofi_error("fi_cq_open", rc);
  rc = fi_endpoint(domain_, info, &ep_, nullptr);
  if (rc != 0) return ofi_error("fi_endpoint", rc);
  rc = fi_ep_bind(ep_, &av_->fid, 0);
  if (rc == 0) rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV);
  if (rc == 0) rc = fi_enable(ep_);
  if (rc != 0) return ofi_error("ofi endpoint set-up", rc);
  std::size_t length = 0;
  fi_getname(&ep_->fid, nullptr, &length);
  address_.resize(length);
  rc = fi_getname(&ep_->fid, address_.data(), &length);
  if (rc != 0) return ofi_error("fi_getname", rc);
  address_.resize(length);
  return ok_status();
}

Status OfiTransport::register_buffer(void* buffer, std::size_t length, std::uint64_t access,
                                     fid_mr** mr, void** desc) {
  *desc = nullptr;
  if (!local_mr_ || length == 0) return ok_status();
  int rc = fi_mr_reg(domain_, buffer, length, access, 0, 0, 0, mr, nullptr);
  if (rc != 0) return ofi_error("fi_mr_reg", rc);
  *desc = fi_mr_desc(*mr);
  return ok_status();
}

Status OfiTransport::post_receive_buffers() {
  std::size_t bytes = sizeof(WireHeader) + caps_.max_packet;
  int receives = std::max(1, params::recv_buffers().get());
  int sends = std::max(1, params::send_buffers().get());
  // A provider that gives no size queues what it is given (or says -FI_EAGAIN).
  std::size_t queue = info_->rx_attr->size > 0 ? info_->rx_attr->size : 65536;
  recv_budget_ = std::max<std::size_t>(16, queue - std::min<std::size_t>(queue, receives));
  for (int i = 0; i < receives + sends; ++i) {
    auto b = std::make_unique<PacketBuffer>();
    b->kind = i < receives ? Op::Kind::kPacketRecv : Op::Kind::kPacketSend;
    b->bytes.resize(bytes);
    GPURUN_TRY(register_buffer(b->bytes.data(), bytes, i < receives ? FI_RECV : FI_SEND, &b->mr,
                               &b->desc));
    if (i < receives) {
      GPURUN_TRY(post_receive(b.get()));
    } else {
      free_sends_.push_back(b.get());
    }
    buffers_.push_back(std::move(b));
  }
  return ok_status();
}

Status OfiTransport::post_receive(PacketBuffer* b) {
  ssize_t rc = fi_trecv(ep_, b->bytes.data(), b->bytes.size(), b->desc, FI_ADDR_UNSPEC, kPacketTag,
                        0, &b->context);
  if (rc == -FI_EAGAIN) {
    unposted_.push_back(b);
    return ok_status();
  }
  if (rc != 0) return ofi_error("ofi: posting a packet receive", rc);
  return ok_status();
}

Result<Endpoint*> OfiTransport::connect(int rank, std::span<const std::byte> address) {
  if (rank < 0 || rank >= config_.size)
    return Status(ErrorCode::kInvalidArgument, "ofi: no rank " + std::to_string(rank));
  return make_endpoint(rank, config_.rank, address);
}

Result<Endpoint*> OfiTransport::connect_other_job(int id, int id_at_peer,
                                                  std::span<const std::byte> address) {
  if (id < config_.size || id_at_peer < 0)
    return Status(ErrorCode::kInvalidArgument,
                  "ofi: " + std::to_string(id) + " is no number of another job's process");
  if (static_cast<std::size_t>(id) >= endpoints_.size()) {
    endpoints_.resize(static_cast<std::size_t>(id) + 1);
    if (inbound_.size() < endpoints_.size()) inbound_.resize(endpoints_.size());
  }
  return make_endpoint(id, id_at_peer, address);
}

Result<Endpoint*> OfiTransport::make_endpoint(int rank, int id_at_peer,
                                              std::span<const std::byte> address) {
  if (endpoints_[rank]) return static_cast<Endpoint*>(endpoints_[rank].get());
  auto ep = std::make_unique<OfiEndpoint>();
  ep->transport_ = this;
  ep->peer_ = rank;
  ep->id_at_peer_ = id_at_peer;
  int rc = fi_av_insert(av_, address.data(), 1, &ep->address_, 0, nullptr);
  if (rc != 1)
    return Status(ErrorCode::kIo, "ofi: cannot add the address of rank " + std::to_string(rank) +
                                      " (" + provider_ + ")");
  endpoints_[rank] = std::move(ep);
  return static_cast<Endpoint*>(endpoints_[rank].get());
}

std::uint64_t OfiTransport::bulk_tag(int sender, std::uint32_t id) const {
  return kBulkKind | (static_cast<std::uint64_t>(sender) << 32) | id;
}

// ---- progress ---------------------------------------------------------------------------

int OfiTransport::progress() {
  delivered_ = 0;
  int events = 0;
  fi_cq_tagged_entry entries[16];
  while (true) {
    ssize_t n = fi_cq_read(cq_, entries, 16);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      events += read_error();
      continue;
    }
    if (n < 0) {
      GPURUN_LOG(error, transport, "ofi: fi_cq_read: %s", api().strerror(static_cast<int>(-n)));
      break;
    }
    for (ssize_t i = 0; i < n; ++i)
      complete(static_cast<Op*>(entries[i].op_context), entries[i].len, ok_status());
    events += static_cast<int>(n);
    if (n < 16) break;
  }
  bool waiting = !waiting_sends_.empty() || !waiting_recvs_.empty();
  if (waiting || !unposted_.empty() || !controls_.empty()) [[unlikely]]
    events += retry() + flush_controls();
  return events + delivered_;
}

int OfiTransport::read_error() {
  fi_cq_err_entry err{};
  if (fi_cq_readerr(cq_, &err, 0) != 1) return 0;
  auto* op = static_cast<Op*>(err.op_context);
  char text[256] = "";
  fi_cq_strerror(cq_, err.prov_errno, err.err_data, text, sizeof text);
  std::string why =
      std::string(api().strerror(err.err)) + (text[0] ? std::string(" (") + text + ")" : "");
  if (err.err == FI_ETRUNC && op->kind == Op::Kind::kPacketRecv) {
    why = "a packet larger than GPURUN_OFI_MAX_PACKET (" + std::to_string(caps_.max_packet) +
          " bytes) arrived: give every rank the same GPURUN_OFI_MAX_PACKET";
  }
  if (err.err != FI_ECANCELED) GPURUN_LOG(error, transport, "ofi: %s", why.c_str());
  complete(op, 0, Status(ErrorCode::kIo, "ofi: " + why));
  return 1;
}

void OfiTransport::complete(Op* op, std::size_t length, Status status) {
  switch (op->kind) {
    case Op::Kind::kPacketSend: {
      auto* b = static_cast<PacketBuffer*>(op);
      --in_flight_;
      free_sends_.push_back(b);
      if (!status.ok() && b->endpoint->failed_.ok())
        b->endpoint->failed_ = status.prepend("rank " + std::to_string(b->endpoint->peer_));
      break;
    }
    case Op::Kind::kPacketRecv: {
      auto* b = static_cast<PacketBuffer*>(op);
      if (status.ok()) receive_packet(b, length);
      Status st = post_receive(b);
      if (!st.ok()) GPURUN_LOG(error, transport, "%s", st.to_string().c_str());
      break;
    }
    case Op::Kind::kBulkRecv:
      --recvs_posted_;
      [[fallthrough]];
    case Op::Kind::kBulkSend:
      --in_flight_;
      end_bulk(static_cast<BulkOp*>(op), std::move(status));
      break;
  }
}

void OfiTransport::receive_packet(PacketBuffer* b, std::size_t length) {
  WireHeader wire;
  if (length < sizeof wire) [[unlikely]] {
    GPURUN_LOG(error, transport, "ofi: dropped a %zu-byte packet", length);
    return;
  }
  std::memcpy(&wire, b->bytes.data(), sizeof wire);
  if (wire.rank < 0 || !known(wire.rank)) [[unlikely]] {
    GPURUN_LOG(error, transport, "ofi: dropped a packet from unknown rank %d", wire.rank);
    return;
  }
  Inbound& in = inbound_[wire.rank];
  const std::byte* payload = b->bytes.data() + sizeof wire;
  // The provider keeps order (FI_ORDER_SAS); should a packet still overtake another, it waits.
  if (wire.seq != in.next_seq) [[unlikely]] {
    in.early.emplace(wire.seq, std::vector<std::byte>(b->bytes.data(), b->bytes.data() + length));
    return;
  }
  ++in.next_seq;
  ++delivered_;
  if (wire.header.type >= kTransportTypes) [[unlikely]] {
    handle_control(wire.rank, wire.header, payload, length - sizeof wire);
  } else {
    handler_.fn(handler_.context, Packet{wire.rank, &wire.header, payload, length - sizeof wire});
  }
  if (!in.early.empty()) [[unlikely]]
    deliver_early(wire.rank);
}

void OfiTransport::deliver_early(int rank) {
  Inbound& in = inbound_[rank];
  while (!in.early.empty() && in.early.begin()->first == in.next_seq) {
    std::vector<std::byte> bytes = std::move(in.early.begin()->second);
    in.early.erase(in.early.begin());
    WireHeader wire;
    std::memcpy(&wire, bytes.data(), sizeof wire);
    ++in.next_seq;
    ++delivered_;
    handler_.fn(handler_.context,
                Packet{rank, &wire.header, bytes.data() + sizeof wire, bytes.size() - sizeof wire});
  }
}

int OfiTransport::retry() {
  int events = 0;
  while (!unposted_.empty()) {
    PacketBuffer* b = unposted_.front();
    unposted_.pop_front();
    ssize_t rc = fi_trecv(ep_, b->bytes.data(), b->bytes.size(), b->desc, FI_ADDR_UNSPEC,
                          kPacketTag, 0, &b->context);
    if (rc == -FI_EAGAIN) {
      unposted_.push_front(b);
      break;
    }
    ++events;
  }
  return events + retry_bulk(waiting_sends_, false) + retry_bulk(waiting_recvs_, true);
}

// Posts what waits, in order, until the provider or the receive budget has no more room.
int OfiTransport::retry_bulk(std::deque<BulkOp*>& waiting, bool receives) {
  int events = 0;
  while (!waiting.empty() && (!receives || recvs_posted_ < recv_budget_)) {
    BulkOp* op = waiting.front();
    Result<bool> posted = post_bulk(op);
    if (posted.ok() && !*posted) break;
    waiting.pop_front();
    ++events;
    if (!posted.ok()) {
      --in_flight_;
      end_bulk(op, posted.status());
    }
  }
  return events;
}

// ---- teardown ---------------------------------------------------------------------------

OfiTransport::~OfiTransport() {
  if (ep_ != nullptr) fi_close(&ep_->fid);
  for (auto& b : buffers_)
    if (b->mr != nullptr) fi_close(&b->mr->fid);
  for (auto& op : bulk_ops_)
    if (op->mr != nullptr) fi_close(&op->mr->fid);
  if (cq_ != nullptr) fi_close(&cq_->fid);
  if (av_ != nullptr) fi_close(&av_->fid);
  if (domain_ != nullptr) fi_close(&domain_->fid);
  if (fabric_ != nullptr) fi_close(&fabric_->fid);
  if (info_ != nullptr) api().freeinfo(info_);
}

}  // namespace gpurun::transport::ofi
