#include "runtime/transport/ucx/ucx_transport.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/base/log.h"
#include "runtime/base/param.h"
#include "runtime/transport/ucx/params.h"

namespace gpurun::transport::ucx {
namespace {

// A latency and bandwidth model for path selection: what UCX reaches on the common case of
// the field, an InfiniBand HDR link (about 2 us one way, 20+ GB/s); over TCP it is far less
// (here 4.5 us and 2.5 GB/s on loopback), but no other transport competes for the same reach.
constexpr Model kModel{2.0, 20.0};

ErrorCode code_of(ucs_status_t status) {
  switch (status) {
    case UCS_OK:
      return ErrorCode::kOk;
    case UCS_ERR_CANCELED:
      return ErrorCode::kAborted;
    case UCS_ERR_MESSAGE_TRUNCATED:
      return ErrorCode::kTruncated;
    case UCS_ERR_NO_MEMORY:
      return ErrorCode::kNoMemory;
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
      return ErrorCode::kPeerFailed;
    default:
      return ErrorCode::kIo;
  }
}

}  // namespace

Status ucx_error(const std::string& what, ucs_status_t status) {
  return Status(ErrorCode::kIo, what + ": " + api().status_string(status));
}

Status status_of(ucs_status_t status, int peer) {
  if (status == UCS_OK) return ok_status();
  return Status(code_of(status), "ucx transfer with rank " + std::to_string(peer) + ": " +
                                     api().status_string(status));
}

// ---- UcxEndpoint: packets ----------------------------------------------------------------

Status UcxEndpoint::send(const PacketHeader& header, const void* payload, std::size_t length) {
  if (ep_ == nullptr) [[unlikely]]
    return peer_left(peer_);  // closed once it left and this rank had nothing more of it
  if (!failed_.ok()) [[unlikely]] {
    if (waiting_ != nullptr) {  // the caller hears of the failure from this send alone
      transport_->send_ops_.put(std::exchange(waiting_, nullptr));
      --transport_->offers_waiting_;
    }
    return failed_;
  }
  WireHeader wire{header, id_at_peer_, next_seq_};
  if (waiting_ != nullptr) {
    if (length <= transport_->carry_max_) {  // rides with the offer
      Status st = send_offer(&wire, payload, length);
      if (st.ok()) ++next_seq_;
      return st;
    }
    (void)send_offer(nullptr, nullptr, 0);  // alone: a failure reaches the offer's completion
  }
  // Once UCX holds a copied packet, later ones queue behind it so that order is kept.
  if (queued_ == 0) [[likely]] {
    ucs_status_ptr_t r = length <= kSmallPayloadMax
                             ? send_small(wire, payload, length)
                             : api().am_send_nbx(ep_, kPacketAm, &wire, sizeof wire, payload,
                                                 length, &transport_->immediate_);
    if (r == nullptr) [[likely]] {
      ++next_seq_;
      ++transport_->sends_;
      return ok_status();
    }
    // No resource now, or a packet UCX cannot send at once (fragments, zero-copy): copy it.
    if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE)
      return ucx_error("ucx send to rank " + std::to_string(peer_), UCS_PTR_STATUS(r));
  }
  return send_queued(wire, payload, length);
}

Status UcxEndpoint::send_queued(const WireHeader& wire, const void* payload, std::size_t length) {
  if (queued_ >= transport_->send_queue_) return Status(ErrorCode::kNoResource);
  QueuedPacket* q = transport_->queued_.take();
  q->endpoint = this;
  q->header = wire;
  q->payload.resize(length);
  if (length > 0) std::memcpy(q->payload.data(), payload, length);
  ucp_request_param_t param;
  param.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.cb.send = on_queued_sent;
  param.user_data = q;
  param.flags = UCP_AM_SEND_FLAG_EAGER;
  ucs_status_ptr_t r = api().am_send_nbx(ep_, kPacketAm, &q->header, sizeof q->header,
                                         q->payload.data(), length, &param);
  if (UCS_PTR_IS_ERR(r)) {
    transport_->queued_.put(q);
    return ucx_error("ucx send to rank " + std::to_string(peer_), UCS_PTR_STATUS(r));
  }
  ++next_seq_;
  ++transport_->sends_;
  if (r == nullptr) {
    transport_->queued_.put(q);
  } else {
    ++queued_;
    // To a rank that left, the packet need not keep the transport busy: that rank may no
    // longer make progress, and UCX then never completes it (forget_offers).
    if (!forgotten_) ++transport_->in_flight_;
  }
  return ok_status();
}

void UcxEndpoint::on_queued_sent(void* request, ucs_status_t status, void* user_data) {
  auto* q = static_cast<QueuedPacket*>(user_data);
  UcxEndpoint* ep = q->endpoint;
  api().request_free(request);
  --ep->queued_;
  if (!ep->forgotten_) --ep->transport_->in_flight_;  // else taken off when it was forgotten
  ep->transport_->queued_.put(q);
  if (ep->forgotten_) ep->transport_->close_when_unused(*ep);  // once its last send completes
  if (status != UCS_OK && status != UCS_ERR_CANCELED && ep->failed_.ok() && !ep->forgotten_) {
    ep->failed_ = status_of(status, ep->peer_);
    GPURUN_LOG(error, transport, "%s", ep->failed_.to_string().c_str());
    ep->transport_->report_lost(ep->peer_, ep->failed_);
  }
}

void UcxEndpoint::on_error(void* arg, ucp_ep_h /*ep*/, ucs_status_t status) {
  auto* ep = static_cast<UcxEndpoint*>(arg);
  if (ep->transport_->closing_ || !ep->failed_.ok()) return;
  ep->failed_ =
      Status(ErrorCode::kPeerFailed, "ucx connection to rank " + std::to_string(ep->peer_) +
                                         " failed: " + api().status_string(status));
  if (ep->forgotten_) return;  // it left: its going is no news
  GPURUN_LOG(error, transport, "%s", std::string(ep->failed_.message()).c_str());
  ep->transport_->report_lost(ep->peer_, ep->failed_);
}

void UcxTransport::report_lost(int peer, const Status& why) {
  if (!closing_ && handler_.lost != nullptr) handler_.lost(handler_.context, peer, why);
}

// ---- UcxTransport: set-up --------------------------------------------------------------

UcxTransport::UcxTransport(const Config& config, PacketHandler handler)
    : config_(config), handler_(handler), inbound_(static_cast<std::size_t>(config.size)) {
  endpoints_.resize(static_cast<std::size_t>(config.size));
  immediate_.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  immediate_.flags = UCP_AM_SEND_FLAG_EAGER;
  send_queue_ = std::max(1, params::send_queue().get());
  piece_size_ = piece_size_from(config.piece_size.value_or(params::piece_size().get().bytes));
  piece_size_ = std::min<std::size_t>(piece_size_, std::uint32_t{1} << 31);  // BulkHeader
  piece_window_ = std::max(1, config.piece_window.value_or(params::piece_window().get()));
  caps_.name = "ucx";
  caps_.reach = Reach::kNetwork;
  caps_.max_packet = static_cast<std::size_t>(params::max_packet().get().bytes);
  caps_.model = kModel;
}

Result<std::unique_ptr<UcxTransport>> UcxTransport::create(const Config& config,
                                                           PacketHandler handler) {
  GPURUN_TRY(load_api());
  std::unique_ptr<UcxTransport> t(new UcxTransport(config, handler));
  GPURUN_TRY(t->init_context());
  GPURUN_TRY(t->init_worker());
  GPURUN_LOG(debug, transport,
             "ucx: worker address %zu bytes, packets up to %zu bytes (up to %zu ride with an "
             "offer)%s",
             t->address_.size(), t->caps_.max_packet, t->carry_max_,
             t->caps_.device_memory ? ", device memory" : "");
  return t;
}

Status UcxTransport::init_context() {
  ucp_config_t* ucx_config = nullptr;
  ucs_status_t st = api().config_read(nullptr, nullptr, &ucx_config);
  if (st != UCS_OK) return ucx_error("ucp_config_read", st);
  auto devices = param::external_env("UCX_NET_DEVICES");
  if (config_.loopback_only && !devices) st = api().config_modify(ucx_config, "NET_DEVICES", "lo");
  caps_.loopback_only = devices ? *devices == "lo" : config_.loopback_only;
  ucp_params_t p{};
  p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                 UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
  p.features = UCP_FEATURE_AM | UCP_FEATURE_TAG;
  p.estimated_num_eps = static_cast<std::size_t>(config_.size);
  p.mt_workers_shared = 0;
  p.name = "gpurun";
  if (st == UCS_OK)
    st = api().init_version(UCP_API_MAJOR, UCP_API_MINOR, &p, ucx_config, &context_);
  api().config_release(ucx_config);
  if (st != UCS_OK) return ucx_error("ucp_init", st);
  ucp_context_attr_t attr{};
  attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (api().context_query(context_, &attr) == UCS_OK)
    caps_.device_memory = (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
  return ok_status();
}

Status UcxTransport::init_worker() {
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  ucs_status_t st = api().worker_create(context_, &wp, &worker_);
  if (st != UCS_OK) return ucx_error("ucp_worker_create", st);
  ucp_worker_attr_t wattr{};
  wattr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  st = api().worker_query(worker_, &wattr);
  if (st != UCS_OK) return ucx_error("ucp_worker_query", st);
  if (wattr.max_am_header < sizeof(WireHeader))
    return Status(ErrorCode::kUnsupported, "ucx: active-message headers of at most " +
                                               std::to_string(wattr.max_am_header) + " bytes");
  constexpr std::size_t kCarryOverhead = sizeof(BulkHeader) + sizeof(WireHeader);
  if (wattr.max_am_header > kCarryOverhead)
    carry_max_ = std::min(kCarriedPayloadMax, wattr.max_am_header - kCarryOverhead);
  auto set_handler = [&](unsigned id, ucp_am_recv_callback_t cb, std::uint32_t flags) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = id;
    hp.cb = cb;
    hp.arg = this;
    hp.flags = flags;
    return api().worker_set_am_recv_handler(worker_, &hp);
  };
  st = set_handler(kPacketAm, on_packet, UCP_AM_FLAG_WHOLE_MSG);
  if (st == UCS_OK)
    st = set_handler(kBulkAm, on_bulk, UCP_AM_FLAG_WHOLE_MSG | UCP_AM_FLAG_PERSISTENT_DATA);
  if (st != UCS_OK) return ucx_error("ucp_worker_set_am_recv_handler", st);
  ucp_address_t* address = nullptr;
  std::size_t length = 0;
  st = api().worker_get_address(worker_, &address, &length);
  if (st != UCS_OK) return ucx_error("ucp_worker_get_address", st);
  const auto* bytes = reinterpret_cast<const std::byte*>(address);
  address_.assign(bytes, bytes + length);
  api().worker_release_address(worker_, address);
  st = api().dt_create_generic(&generic_ops(), nullptr, &generic_);
  if (st != UCS_OK) return ucx_error("ucp_dt_create_generic", st);
  return init_small();
}

Result<Endpoint*> UcxTransport::connect(int rank, std::span<const std::byte> address) {
  if (rank < 0 || rank >= config_.size)
    return Status(ErrorCode::kInvalidArgument, "ucx: no rank " + std::to_string(rank));
  return make_endpoint(rank, config_.rank, address);
}

Result<Endpoint*> UcxTransport::connect_other_job(int id, int id_at_peer,
                                                  std::span<const std::byte> address) {
  if (id < config_.size || id_at_peer < 0)
    return Status(ErrorCode::kInvalidArgument,
                  "ucx: " + std::to_string(id) + " is no number of another job's process");
  if (static_cast<std::size_t>(id) >= endpoints_.size()) {
    endpoints_.resize(static_cast<std::size_t>(id) + 1);
    if (inbound_.size() < endpoints_.size()) inbound_.resize(endpoints_.size());
  }
  return make_endpoint(id, id_at_peer, address);
}

Result<Endpoint*> UcxTransport::make_endpoint(int rank, int id_at_peer,
                                              std::span<const std::byte> address) {
  if (endpoints_[rank]) return static_cast<Endpoint*>(endpoints_[rank].get());
  auto ep = std::make_unique<UcxEndpoint>();
  ep->transport_ = this;
  ep->peer_ = rank;
  ep->id_at_peer_ = id_at_peer;
  ucp_ep_params_t p{};
  p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  p.address = reinterpret_cast<const ucp_address_t*>(address.data());
  p.err_mode = UCP_ERR_HANDLING_MODE_NONE;
  // Processes of another job come and go on their own: UCX is asked to notice when one has
  // gone, so that no flush waits for it.
  if (params::peer_failure().get() || rank >= config_.size) {
    p.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
    p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    p.err_handler.cb = UcxEndpoint::on_error;
    p.err_handler.arg = ep.get();
  }
  ucs_status_t st = api().ep_create(worker_, &p, &ep->ep_);
  if (st != UCS_OK && rank >= config_.size && !params::peer_failure().get()) {
    // Transports that cannot tell (shared memory alone): without the detection, as in the job.
    p.field_mask &= ~static_cast<std::uint64_t>(UCP_EP_PARAM_FIELD_ERR_HANDLER);
    p.err_mode = UCP_ERR_HANDLING_MODE_NONE;
    st = api().ep_create(worker_, &p, &ep->ep_);
  }
  if (st != UCS_OK) return ucx_error("ucx: cannot connect to rank " + std::to_string(rank), st);
  ep->detects_failure_ = p.err_mode == UCP_ERR_HANDLING_MODE_PEER;
  endpoints_[rank] = std::move(ep);
  return static_cast<Endpoint*>(endpoints_[rank].get());
}

// ---- UcxTransport: receiving packets and progress ------------------------------------------

ucs_status_t UcxTransport::on_packet(void* arg, const void* header, std::size_t header_length,
                                     void* data, std::size_t length,
                                     const ucp_am_recv_param_t* param) {
  auto* t = static_cast<UcxTransport*>(arg);
  if (header_length != sizeof(WireHeader) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0)
      [[unlikely]] {
    GPURUN_LOG(error, transport, "ucx: dropped a malformed packet (%zu-byte header)",
               header_length);
    return UCS_OK;
  }
  WireHeader wire;
  std::memcpy(&wire, header, sizeof wire);
  t->receive_packet(wire, static_cast<const std::byte*>(data), length);
  return UCS_OK;
}

void UcxTransport::receive_packet(const WireHeader& wire, const std::byte* payload,
                                  std::size_t length) {
  if (wire.rank < 0 || !known(wire.rank)) [[unlikely]] {
    GPURUN_LOG(error, transport, "ucx: dropped a packet from unknown rank %d", wire.rank);
    return;
  }
  Inbound& in = inbound_[wire.rank];
  // UCX does not promise order across its lanes and protocols: a packet that overtook an
  // earlier one waits (copied) until the earlier one is delivered.
  if (wire.seq != in.next_seq) [[unlikely]] {
    std::vector<std::byte> copy(sizeof wire + length);
    std::memcpy(copy.data(), &wire, sizeof wire);
    if (length > 0) std::memcpy(copy.data() + sizeof wire, payload, length);
    in.early.emplace(wire.seq, std::move(copy));
    return;
  }
  ++in.next_seq;
  ++delivered_;
  handler_.fn(handler_.context, Packet{wire.rank, &wire.header, payload, length});
  if (!in.early.empty()) [[unlikely]]
    deliver_early(wire.rank, in);
}

void UcxTransport::deliver_early(int rank, Inbound& in) {
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

int UcxTransport::progress() {
  if (worker_ == nullptr) [[unlikely]]
    return 0;  // shut down
  delivered_ = 0;
  int events = static_cast<int>(api().worker_progress(worker_));
  // Receives are posted again once a call finds nothing to do, so that the work stays off the
  // path from a packet's arrival to its reply; at once only when half of them are gone.
  if (!small_repost_.empty() &&
      (events + delivered_ == 0 || small_repost_.size() >= kSmallReceives / 2)) {
    Status st = post_small();
    if (!st.ok()) [[unlikely]]
      GPURUN_LOG(error, transport, "%s", st.to_string().c_str());
  }
  if (offers_waiting_ > 0) [[unlikely]]
    send_waiting_offers();
  if (!to_pump_.empty()) send_opened_pieces();
  if (!to_close_.empty()) [[unlikely]]
    close_forgotten();
  if (!deferred_.empty()) [[unlikely]]
    events += run_deferred();
  return events + delivered_;
}

void UcxTransport::defer(Completion done, Status status) {
  deferred_.emplace_back(done, std::move(status));
}

int UcxTransport::run_deferred() {
  std::vector<std::pair<Completion, Status>> ready;
  ready.swap(deferred_);
  for (auto& [done, status] : ready) done(std::move(status));
  return static_cast<int>(ready.size());
}

bool UcxTransport::quiescent() const {
  if (in_flight_ > 0 || offers_waiting_ > 0 || opened_offers_ > 0 || !deferred_.empty())
    return false;
  if (flushed_ == sends_) return true;
  if (flush_running_) {
    if (!sends_abandoned_ || std::chrono::steady_clock::now() - flush_began_ < kAbandonedFlushWait)
      return false;
    GPURUN_LOG(debug, transport, "ucx: flush given up: sends to a rank that left never complete");
    flush_given_up_ = true;
    flushed_ = flushing_;
    return flushed_ == sends_;
  }
  // Sends UCX completed at once may still sit in its buffers (a busy socket): flush them out
  // before the process may leave.
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = on_flushed;
  p.user_data = const_cast<UcxTransport*>(this);
  flushing_ = sends_;
  ucs_status_ptr_t r = api().worker_flush_nbx(worker_, &p);
  if (r == nullptr || UCS_PTR_IS_ERR(r)) {
    if (UCS_PTR_IS_ERR(r))
      GPURUN_LOG(warn, transport, "ucx: flush failed: %s", api().status_string(UCS_PTR_STATUS(r)));
    flushed_ = flushing_;
    return flushed_ == sends_;
  }
  flush_running_ = true;
  flush_began_ = std::chrono::steady_clock::now();
  return false;
}

void UcxTransport::on_flushed(void* request, ucs_status_t status, void* user_data) {
  auto* t = static_cast<UcxTransport*>(user_data);
  api().request_free(request);
  if (status != UCS_OK)
    GPURUN_LOG(warn, transport, "ucx: flush failed: %s", api().status_string(status));
  t->flushed_ = t->flushing_;
  t->flush_running_ = false;
}

}  // namespace gpurun::transport::ucx
