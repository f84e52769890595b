#include "runtime/transport/self/self_transport.h"

#include <algorithm>
#include <cstring>

namespace gpurun::transport::self {
namespace {
// Bounce buffer for copies between two non-contiguous buffers.
constexpr std::size_t kBounce = 64 * 1024;
}  // namespace

SelfTransport::SelfTransport(int rank, PacketHandler handler) : rank_(rank), handler_(handler) {
  caps_.name = "self";
  caps_.reach = Reach::kSelf;
  caps_.max_packet = 1 << 20;
  caps_.model = Model{0.05, 50.0};
}

Result<Endpoint*> SelfTransport::connect(int rank, std::span<const std::byte> /*address*/) {
  if (rank != rank_)
    return Status(ErrorCode::kInvalidArgument, "the self transport reaches only its own rank");
  return static_cast<Endpoint*>(this);
}

Status SelfTransport::send(const PacketHeader& header, const void* payload, std::size_t length) {
  const auto* bytes = static_cast<const std::byte*>(payload);
  queue_.push_back(Queued{header, std::vector<std::byte>(bytes, bytes + length)});
  queued_ = queue_.size();
  return ok_status();
}

int SelfTransport::progress() {
  if (queue_.empty()) return 0;  // the common case, polled on every spin
  int events = 0;
  // Only what was queued before this call: handlers may queue more.
  for (std::size_t n = queue_.size(); n > 0 && !queue_.empty(); --n) {
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    queued_ = queue_.size();
    handler_.fn(handler_.context, Packet{rank_, &q.header, q.payload.data(), q.payload.size()});
    ++events;
  }
  return events;
}

Result<BulkCookie> SelfTransport::offer(const Data& data, Completion done) {
  std::uint64_t id;
  if (!free_offers_.empty()) {
    id = free_offers_.back();
    free_offers_.pop_back();
    offers_[id] = Offer{data, done};
  } else {
    id = offers_.size();
    offers_.push_back(Offer{data, done});
  }
  return BulkCookie{id, 0};
}

bool SelfTransport::forget_offers() {
  offers_.clear();
  free_offers_.clear();
  return true;
}

Status SelfTransport::pull(const BulkCookie& cookie, const Data& data, Completion done) {
  if (cookie.id >= offers_.size() || offers_[cookie.id].done.fn == nullptr)
    return Status(ErrorCode::kPeerFailed, "the offer was withdrawn: this rank finalized");
  Offer offer = offers_[cookie.id];
  offers_[cookie.id].done = Completion{};
  free_offers_.push_back(cookie.id);
  std::size_t size = std::min(data.size, offer.data.size);
  if (offer.data.contiguous != nullptr && data.contiguous != nullptr) {
    std::memcpy(data.contiguous, offer.data.contiguous, size);
  } else if (offer.data.contiguous != nullptr) {
    data.unpack(data.context, 0, offer.data.contiguous, size);
  } else if (data.contiguous != nullptr) {
    offer.data.pack(offer.data.context, 0, data.contiguous, size);
  } else {
    std::vector<std::byte> bounce(std::min(size, kBounce));
    for (std::size_t at = 0; at < size; at += bounce.size()) {
      std::size_t n = std::min(bounce.size(), size - at);
      offer.data.pack(offer.data.context, at, bounce.data(), n);
      data.unpack(data.context, at, bounce.data(), n);
    }
  }
  offer.done(ok_status());
  done(ok_status());
  return ok_status();
}

}  // namespace gpurun::transport::self
