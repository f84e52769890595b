// The shm transport: packets and bulk data between the ranks of one host through their
// inboxes (see inbox.h). Packets go through per-pair rings; bulk data through a per-pair
// fragment pipeline that the sender fills once the receiver asked for the data (a CTS), or,
// when it measures faster on this machine, by CMA: the receiver reads half of the sender's
// buffer (process_vm_readv) while the sender writes the other half into the receiver's
// (process_vm_writev), so both cores copy at once.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/transport/shm/inbox.h"
#include "runtime/transport/shm/segment.h"
#include "runtime/transport/transport.h"

namespace gpurun::transport::shm {

struct Config {
  int rank = 0;                  // this process's job rank
  std::vector<int> local_ranks;  // job ranks on this host, ascending, this one included
  std::string job_token;         // names the fallback POSIX segments
  // Whether CMA beats the copy pipeline between this host's cores, as gpurun's copy probe found
  // for every rank of the host alike (topo::HostCopy); nullopt: unknown, measured here.
  std::optional<bool> cma_wins;
};

class ShmTransport;

// Bulk data a sender offered, waiting for the receiver's CTS or being streamed.
struct SendOp {
  Data data;
  Completion done;
  std::uint64_t wanted = 0;  // bytes the receiver asked for
  std::uint64_t sent = 0;
  bool active = false;
};

// Bulk data a receiver pulls through the fragment pipeline.
struct PullOp {
  Data data;
  Completion done;
  std::uint64_t received = 0;
};

// A CMA transfer is split in two: the receiver reads [0, split) of the sender's buffer while
// the sender writes [split, wanted) into the receiver's, so both cores copy at once.
struct CmaCtsPayload {
  std::uint64_t id;
  std::uint64_t wanted;
  std::uint64_t split;
  std::uint64_t address;  // the receiver's buffer
};

// A CMA pull whose own share is read, waiting for the sender's share (kWrote).
struct CmaWait {
  Completion done;
  Status status;  // of our share
};

class ShmEndpoint final : public Endpoint {
 public:
  Status send(const PacketHeader& header, const void* payload, std::size_t length) override;
  Result<BulkCookie> offer(const Data& data, Completion done) override;
  Status pull(const BulkCookie& cookie, const Data& data, Completion done) override;
  // An offer completes when the peer's CTS has been served; a peer that left sends none, so
  // nothing is to be done (the offer's slot stays taken).
  bool forget_offers() override { return true; }
  int offers_out() const override { return offers_out_; }
  bool has_room_for(std::size_t length) override { return writer_.has_room_for(length); }
  bool peer_alongside() const override { return peer_alongside_; }
  int cma_pid() const override { return cma_ ? peer_pid_ : 0; }
  // The peer's doorbell, in its inbox mapped here (others that post to the peer through
  // shared memory ring it too: coll/shm's flags).
  progress::Doorbell* peer_doorbell() const { return peer_doorbell_; }

 private:
  friend class ShmTransport;
  // Sends a transport control packet, queueing it behind earlier ones when the ring is full.
  void send_control(std::uint8_t type, const void* payload, std::size_t length);
  int flush_controls();
  int push_fragments();
  int drain_fragments();
  void cma_pull(const BulkCookie& cookie, const Data& data, Completion done);
  void cma_write(const CmaCtsPayload& cts);

  ShmTransport* transport_ = nullptr;
  int peer_rank_ = -1;
  int peer_pid_ = 0;
  bool peer_alongside_ = false;  // bound to other CPUs than ours (Endpoint::peer_alongside)
  std::unique_ptr<Segment> peer_inbox_;
  progress::Doorbell* peer_doorbell_ = nullptr;
  RingWriter writer_;  // into the peer's inbox, our lane
  RingReader reader_;  // from our inbox, the peer's lane
  // Our lane of fragments in the peer's inbox (we send) and theirs in ours (we receive).
  void* peer_base_ = nullptr;
  void* own_base_ = nullptr;
  std::uint32_t own_lane_in_peer_ = 0;
  std::uint32_t peer_lane_in_own_ = 0;
  std::uint64_t fragments_written_ = 0;
  std::uint64_t consumed_cached_ = 0;
  std::uint64_t fragments_read_ = 0;
  std::deque<std::uint64_t> streams_;  // SendOp ids the peer asked for, in CTS order
  std::deque<PullOp> pulls_;           // what we asked the peer for, in CTS order
  std::deque<std::vector<std::byte>> pending_controls_;  // type byte + payload
  std::deque<CmaWait> cma_waits_;                        // split CMA pulls, in CTS order
  int offers_out_ = 0;  // bulk sends offered to the peer and not yet finished
  bool cma_ = false;  // the transport uses CMA and the peer's memory is reachable
  // Something besides packets to look after (controls, streams, pulls): one flag on the hot path.
  bool busy_ = false;
  void update_busy() {
    busy_ = !pending_controls_.empty() || !streams_.empty() || !pulls_.empty();
  }
};

class ShmTransport final : public Transport {
 public:
  static Result<std::unique_ptr<ShmTransport>> create(const Config& config,
                                                      PacketHandler handler);
  ~ShmTransport() override;

  const Caps& caps() const override { return caps_; }
  std::vector<std::byte> address() const override;
  Result<Endpoint*> connect(int rank, std::span<const std::byte> address) override;
  int progress() override;
  // Every local peer has mapped this rank's inbox (a memfd inbox can only be mapped while its
  // owner lives).
  bool quiescent() const override;

  // This rank's doorbell, in its inbox, where local peers ring it.
  progress::Doorbell* doorbell() const { return InboxLayout::doorbell(inbox_->base()); }
  bool cma_enabled() const { return cma_; }

 private:
  friend class ShmEndpoint;
  ShmTransport(Config config, PacketHandler handler, InboxLayout layout)
      : config_(std::move(config)), handler_(handler), layout_(layout) {}
  void handle_control(ShmEndpoint& ep, const Cell& cell);
  std::uint32_t local_index(int rank) const;
  std::uint64_t add_op(SendOp op);
  void decide_cma();
  // Takes the host's first rank's choice of CMA (its inbox's owner_cma); see the .cc.
  void adopt_cma_of_first(std::uint32_t first_cma);

  Config config_;
  PacketHandler handler_;
  InboxLayout layout_;
  Caps caps_;
  std::unique_ptr<Segment> inbox_;
  std::vector<std::unique_ptr<ShmEndpoint>> endpoints_;
  std::vector<ShmEndpoint*> active_;  // connected endpoints, polled in order
  std::vector<SendOp> ops_;           // offered bulk data, by id
  std::vector<std::uint64_t> free_ops_;
  bool cma_ = false;
  bool cma_timed_here_ = false;  // cma_ is this rank's own timing, not yet the first rank's
};

}  // namespace gpurun::transport::shm
