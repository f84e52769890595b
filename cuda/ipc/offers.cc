// The sending side of the cuda_ipc transport: offers of device data by IPC, the fds peers ask
// for, the staged fallback, and release notices for buffers the application freed.
#include <unistd.h>

#include <algorithm>

#include "cuda/ipc/transport_ops.h"
#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {
namespace {

// Exported buffers checked for a free at each IPC offer: a freed buffer is noticed within a few
// offers, at the cost of a pointer query or two per large message.
constexpr int kSweepBudget = 2;

}  // namespace

Result<transport::BulkCookie> CudaIpcTransport::offer_device(CudaIpcEndpoint& ep,
                                                             const transport::Data& data,
                                                             transport::Completion done) {
  if (data.contiguous == nullptr)
    return Status(ErrorCode::kUnsupported,
                  "cuda_ipc: non-contiguous datatypes in device memory need the device pack "
                  "kernels");
  if (data.size < min_size_ || offer_refused(ep) || ep.free_slots_.empty())
    return offer_staged(ep, data, done);
  Status ready = gpu_.ready(data.contiguous);
  if (!ready.ok()) return ready.prepend("cuda_ipc: a device buffer, but CUDA is not usable");
  Gpu::Scope scope(gpu_);
  auto described = exporter_.describe(data.contiguous, data.size);
  std::string why;
  if (!described.ok())
    why = std::string(described.status().message());
  else if (described->kind != HandleKind::kLegacy && ep.peer_socket_.empty())
    why = "rank " + std::to_string(ep.peer_rank_) + " cannot take the fd of a " +
          handle_kind_name(described->kind) + " allocation (no socket)";
  if (!why.empty()) {
    GPURUN_LOG(debug, transport, "cuda_ipc: %zu bytes to rank %d staged: %s", data.size,
               ep.peer_rank_, why.c_str());
    return offer_staged(ep, data, done);
  }
  post_releases();
  std::uint32_t index = ep.free_slots_.back();
  ep.free_slots_.pop_back();
  Slot& s = table_->slot(ep.peer_index_, index);
  s.descriptor = *described;
  s.error = 0;
  s.fallback = transport::BulkCookie{};
  s.state.store(static_cast<std::uint32_t>(SlotState::kOffered), std::memory_order_release);
  exporter_.shared_with(described->buffer_id, ep.peer_index_);
  auto op = std::make_unique<OfferOp>();
  op->transport = this;
  op->ep = &ep;
  op->slot = index;
  op->data = data;
  op->done = done;
  offers_.push_back(std::move(op));
  return make_cookie(index, s.generation);
}

bool CudaIpcTransport::offer_refused(CudaIpcEndpoint& ep) {
  if (!ep.refusal_.empty()) return true;
  if (table_->lane(ep.peer_index_).refused.load(std::memory_order_relaxed) == 0) return false;
  ep.refusal_ = "rank " + std::to_string(ep.peer_rank_) +
                " cannot map this rank's GPU memory (its log says why)";
  GPURUN_LOG(info, transport, "peer %d: device buffers staged: %s", ep.peer_rank_,
             ep.refusal_.c_str());
  return true;
}

Result<transport::BulkCookie> CudaIpcTransport::offer_staged(CudaIpcEndpoint& ep,
                                                             const transport::Data& data,
                                                             transport::Completion done) {
  Status ready = gpu_.ready(data.contiguous);
  if (!ready.ok()) return ready.prepend("cuda_ipc: a device buffer, but CUDA is not usable");
  GPURUN_ASSIGN_OR_RETURN(StagedTransfer * t,
                          staging_.start(StagedTransfer::Direction::kSend, data, done));
  auto cookie = ep.host_->offer(t->data(), t->completion());
  if (!cookie.ok()) staging_.abandon(t);
  return cookie;
}

// Tells peers which buffers they may have mapped are gone, so that they unmap them (a mapping
// keeps the memory allocated). A full ring drops the notice: the peer's cache bound still holds.
void CudaIpcTransport::post_releases() {
  for (const Exporter::Gone& gone : exporter_.sweep(kSweepBudget)) {
    for (std::uint32_t peer : gone.peers) {
      LaneControl& lane = table_->lane(peer);
      std::uint64_t head = lane.released_head.load(std::memory_order_relaxed);
      std::uint64_t tail = lane.released_tail.load(std::memory_order_acquire);
      if (head - tail >= kReleaseRing) continue;
      lane.released[head % kReleaseRing] = gone.buffer_id;
      lane.released_head.store(head + 1, std::memory_order_release);
    }
  }
}

int CudaIpcTransport::progress_offers() {
  int events = 0;
  for (std::size_t i = 0; i < offers_.size();) {
    OfferOp& op = *offers_[i];
    Slot& s = table_->slot(op.ep->peer_index_, op.slot);
    auto state = static_cast<SlotState>(s.state.load(std::memory_order_acquire));
    if (op.staged || state == SlotState::kOffered || state == SlotState::kFdSent) {
      ++i;
      continue;
    }
    ++events;
    if (state == SlotState::kDone || state == SlotState::kFailed) {
      finish_read(&op, state);  // offers_[i] is now another op
      continue;
    }
    if (state == SlotState::kNeedFd) {
      // A buffer whose handle cannot be exported is staged alone; a socket that fails stages
      // everything for that peer from then on.
      Result<int> fd = export_fd(op);
      if (fd.ok()) {
        Status sent = pass_fd(op, *fd);
        if (sent.ok()) {
          s.state.store(static_cast<std::uint32_t>(SlotState::kFdSent), std::memory_order_release);
          op.ep->ring();
          ++i;
          continue;
        }
        op.ep->refusal_ = "cannot pass an fd to rank " + std::to_string(op.ep->peer_rank_) + ": " +
                          sent.to_string();
        GPURUN_LOG(warn, transport, "cuda_ipc: %s; staging device buffers to it",
                   op.ep->refusal_.c_str());
      } else {
        GPURUN_LOG(info, transport, "cuda_ipc: a device buffer for rank %d is staged: %s",
                   op.ep->peer_rank_, fd.status().to_string().c_str());
      }
    }
    std::size_t before = offers_.size();
    fall_back(op);
    if (offers_.size() == before) ++i;
  }
  return events;
}

Result<int> CudaIpcTransport::export_fd(OfferOp& op) {
  Gpu::Scope scope(gpu_);
  return exporter_.export_fd(table_->slot(op.ep->peer_index_, op.slot).descriptor);
}

// Passes `fd` (closed here) to the peer over its socket, connected on first use.
Status CudaIpcTransport::pass_fd(OfferOp& op, int fd) {
  CudaIpcEndpoint& ep = *op.ep;
  if (!ep.fd_sender_) {
    Result<std::unique_ptr<FdSender>> sender = FdSender::connect(ep.peer_socket_);
    if (!sender.ok()) {
      close(fd);
      return sender.status();
    }
    ep.fd_sender_ = std::move(*sender);
  }
  const Descriptor& d = table_->slot(ep.peer_index_, op.slot).descriptor;
  FdMessage message;
  message.rank = config_.rank;
  message.kind = static_cast<std::uint32_t>(d.kind);
  message.key = d.kind == HandleKind::kPool ? d.pool_id : d.buffer_id;
  Status sent = ep.fd_sender_->send(message, fd);
  close(fd);
  return sent;
}

// The peer cannot map the memory: the data goes through the shm endpoint, staged, and the slot
// hands the peer the shm cookie.
void CudaIpcTransport::fall_back(OfferOp& op) {
  auto t = staging_.start(StagedTransfer::Direction::kSend, op.data,
                          transport::Completion{staged_offer_done, &op});
  if (!t.ok()) {
    finish_offer(&op, std::move(t).status());
    return;
  }
  auto cookie = op.ep->host_->offer((*t)->data(), (*t)->completion());
  if (!cookie.ok()) {
    staging_.abandon(*t);
    finish_offer(&op, std::move(cookie).status());
    return;
  }
  Slot& s = table_->slot(op.ep->peer_index_, op.slot);
  s.fallback = *cookie;
  op.staged = true;
  op.transfer = *t;
  s.state.store(static_cast<std::uint32_t>(SlotState::kStaged), std::memory_order_release);
  op.ep->ring();
}

// The peer read the data of an IPC offer (kDone) or could not (kFailed).
void CudaIpcTransport::finish_read(OfferOp* op, SlotState state) {
  Status status;
  if (state == SlotState::kFailed) {
    const Slot& s = table_->slot(op->ep->peer_index_, op->slot);
    status = Status(static_cast<ErrorCode>(s.error),
                    "rank " + std::to_string(op->ep->peer_rank_) + " failed to read the data");
  }
  finish_offer(op, std::move(status));
}

void CudaIpcTransport::staged_offer_done(void* op, Status status) {
  auto* o = static_cast<OfferOp*>(op);
  o->transport->finish_offer(o, std::move(status));
}

// Frees the op's slot for reuse (a new generation, so stale cookies are told apart), drops the
// op and completes the offer.
void CudaIpcTransport::finish_offer(OfferOp* op, Status status) {
  CudaIpcEndpoint& ep = *op->ep;
  Slot& s = table_->slot(ep.peer_index_, op->slot);
  ++s.generation;
  s.state.store(static_cast<std::uint32_t>(SlotState::kFree), std::memory_order_release);
  ep.free_slots_.push_back(op->slot);
  transport::Completion done = op->done;
  auto it = std::find_if(offers_.begin(), offers_.end(),
                         [op](const std::unique_ptr<OfferOp>& o) { return o.get() == op; });
  if (it != offers_.end()) {
    std::swap(*it, offers_.back());
    offers_.pop_back();
  }
  done(std::move(status));
}

bool CudaIpcEndpoint::forget_offers() {
  if (!host_->forget_offers()) return false;
  transport_->forget_offers_to(*this);
  return true;
}

// Frees the slots of the offers to `ep` (a new generation each) and drops the offers without
// completing them; a fallen-back offer's staged transfer is abandoned (the shm endpoint forgot
// its offer). An offer the peer finished reading before it left (its slot says so: the peer
// wrote that before its last packet) completes as usual.
void CudaIpcTransport::forget_offers_to(CudaIpcEndpoint& ep) {
  for (std::size_t i = 0; i < offers_.size();) {
    OfferOp& op = *offers_[i];
    if (op.ep != &ep) {
      ++i;
      continue;
    }
    Slot& s = table_->slot(ep.peer_index_, op.slot);
    auto state = static_cast<SlotState>(s.state.load(std::memory_order_acquire));
    if (!op.staged && (state == SlotState::kDone || state == SlotState::kFailed)) {
      finish_read(&op, state);  // offers_[i] is now another op
      continue;
    }
    if (op.transfer != nullptr) staging_.abandon(op.transfer);
    ++s.generation;
    s.state.store(static_cast<std::uint32_t>(SlotState::kFree), std::memory_order_release);
    ep.free_slots_.push_back(op.slot);
    std::swap(offers_[i], offers_.back());
    offers_.pop_back();
  }
}

}  // namespace gpurun::cuda::ipc
