// The self transport: a rank's messages to itself. Packets wait in a queue until the next
// progress() (never delivered from inside send(), so the sender's state is consistent when
// the receive side runs); bulk data is copied straight from the offered buffer by pull().
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "runtime/transport/transport.h"

namespace gpurun::transport::self {

class SelfTransport final : public Transport, private Endpoint {
 public:
  SelfTransport(int rank, PacketHandler handler);
  const Caps& caps() const override { return caps_; }
  std::vector<std::byte> address() const override { return {}; }
  Result<Endpoint*> connect(int rank, std::span<const std::byte> address) override;
  int progress() override;
  const std::size_t* pending_word() const override { return &queued_; }

 private:
  Status send(const PacketHeader& header, const void* payload, std::size_t length) override;
  Result<BulkCookie> offer(const Data& data, Completion done) override;
  Status pull(const BulkCookie& cookie, const Data& data, Completion done) override;
  // The rank itself finalizes: its offers to itself are dropped, their sends failed by the pml.
  bool forget_offers() override;

  struct Queued {
    PacketHeader header;
    std::vector<std::byte> payload;
  };
  struct Offer {
    Data data;
    Completion done;
  };
  int rank_;
  PacketHandler handler_;
  Caps caps_;
  std::deque<Queued> queue_;
  std::size_t queued_ = 0;  // queue_.size()
  std::vector<Offer> offers_;
  std::vector<std::uint64_t> free_offers_;
};

}  // namespace gpurun::transport::self
