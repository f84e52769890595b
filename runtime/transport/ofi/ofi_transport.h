// The ofi transport: packets and bulk data between hosts through libfabric, on a reliable
// datagram endpoint (FI_EP_RDM) with tagged messages, over the provider that fi_getinfo offers
// (tcp here; verbs, efa, psm3... elsewhere).
//
// Packets are tagged messages with one tag (kPacketTag): the pml's PacketHeader, the sender's
// job rank and a per-peer sequence number, then the payload, copied into a pre-posted send
// buffer; receive buffers are posted for that tag and re-posted as soon as their packet was
// handled. Send buffers bound what is in flight (GPURUN_OFI_SEND_BUFFERS): when none is free,
// send() asks the caller to retry.
//
// Bulk data moves when the receiver asks for it, so that an offer completes only once its
// receiver took it (a synchronous send relies on that): offer() only records the data; pull()
// posts a receive, tagged with the sender and the offer, into the user's buffer and then sends
// the sender a control packet (kCts: offer id, bytes wanted); the sender then sends that many
// bytes as one tagged message, which always finds its receive posted (the provider's own
// rendezvous moves large ones without a copy). Non-contiguous data goes through a packed copy.
//
// Progress: the completion queue is read in progress(); no thread of its own.
// Threading: one thread at a time (FI_THREAD_DOMAIN).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_tagged.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/transport/ofi/ofi_api.h"
#include "runtime/transport/ofi/ofi_info.h"
#include "runtime/transport/transport.h"

namespace gpurun::transport::ofi {

struct Config {
  int rank = 0;  // this process's job rank
  int size = 1;  // ranks in the job
  // The job runs on one host: the loopback domain, so that nothing listens on an outside
  // address (DESIGN.md decision 9).
  bool loopback_only = false;
  std::string nic;  // the NIC the launcher placed this rank near ("eth0", "mlx5_0"), or empty
  // Pieces of bulk data: GPURUN_OFI_PIECE_SIZE and GPURUN_OFI_PIECE_WINDOW unless set.
  std::optional<std::size_t> piece_size;
  std::optional<int> piece_window;
};

struct WireHeader {
  PacketHeader header;
  std::int32_t rank;  // the sender's job rank
  std::uint32_t seq;  // packets from that rank to this one, counted from 0
};
static_assert(sizeof(WireHeader) == 24);

class OfiTransport;
class OfiEndpoint;

// Everything handed to libfabric starts with its context, so a completion finds its operation.
struct Op {
  enum class Kind : std::uint8_t { kPacketSend, kPacketRecv, kBulkSend, kBulkRecv };
  fi_context2 context{};
  Kind kind = Kind::kPacketSend;
};

struct PacketBuffer : Op {
  OfiEndpoint* endpoint = nullptr;  // a send's destination
  std::vector<std::byte> bytes;     // WireHeader + payload
  fid_mr* mr = nullptr;             // when the provider needs local registration
  void* desc = nullptr;
};

struct BulkOp : Op {
  OfiEndpoint* endpoint = nullptr;
  Data data;
  Completion done;
  std::uint64_t tag = 0;
  std::size_t length = 0;         // bytes posted (a pull: what the receiver wants)
  std::vector<std::byte> bounce;  // the packed bytes of non-contiguous data
  fid_mr* mr = nullptr;
  // Pieces (ofi_bulk.cc): a piece's transfer (its lead) and place in the lead's buffer; the
  // lead's piece size (0: it moves whole), pieces, the next to send and those not completed.
  BulkOp* lead = nullptr;
  std::size_t offset = 0;
  std::size_t piece_size = 0;
  std::uint32_t pieces = 0;
  std::uint32_t next_piece = 0;
  std::uint32_t pieces_left = 0;
  Status status;  // the lead's: the first failure of a piece
};

// A transport control packet waiting for a free send buffer.
struct PendingControl {
  OfiEndpoint* endpoint;
  std::uint8_t type;
  std::vector<std::byte> payload;
};

class OfiEndpoint final : public Endpoint {
 public:
  Status send(const PacketHeader& header, const void* payload, std::size_t length) override;
  Result<BulkCookie> offer(const Data& data, Completion done) override;
  Status pull(const BulkCookie& cookie, const Data& data, Completion done) override;
  // The peer left: its offers not asked for (all of them: it asks for nothing more) are
  // dropped without their completions, and it gets no new one (ofi_bulk.cc). Packets still go,
  // and its offers to this rank may still be pulled: a rank that left waits for those, and
  // for this rank's own leaving.
  bool forget_offers() override;

 private:
  friend class OfiTransport;
  OfiTransport* transport_ = nullptr;
  fi_addr_t address_ = FI_ADDR_UNSPEC;
  int peer_ = -1;
  int id_at_peer_ = -1;                      // this process's number at the peer
  std::uint32_t next_seq_ = 0;               // of the next packet to the peer
  std::uint32_t next_offer_ = 0;             // id of the next offer to the peer
  std::map<std::uint32_t, BulkOp*> offers_;  // offered to the peer, not yet asked for
  std::deque<BulkOp*> sending_;              // asked for, with pieces left to send
  int pieces_in_flight_ = 0;                 // sent to the peer, not completed
  Status failed_;                            // a packet to the peer failed
  bool left_ = false;                        // the peer left (forget_offers)
};

class OfiTransport final : public Transport {
 public:
  static Result<std::unique_ptr<OfiTransport>> create(const Config& config, PacketHandler handler);
  ~OfiTransport() override;

  const Caps& caps() const override { return caps_; }
  std::vector<std::byte> address() const override { return address_; }
  Result<Endpoint*> connect(int rank, std::span<const std::byte> address) override;
  Result<Endpoint*> connect_other_job(int id, int id_at_peer,
                                      std::span<const std::byte> address) override;
  int progress() override;
  // Every send (packets and offers) completed and every pull posted has completed.
  bool quiescent() const override {
    return in_flight_ == 0 && waiting_sends_.empty() && waiting_recvs_.empty() && controls_.empty();
  }
  // Offers no peer has asked for (OfiEndpoint::offers_) are all that is in flight.
  bool only_offers_left() const override;
  const std::string& provider() const { return provider_; }
  // Bulk receives the provider refused (-FI_EAGAIN) and that waited to be posted again: none
  // where the provider's receive queue is as large as it says (the receive budget).
  std::size_t receives_refused() const { return receives_refused_; }
  const std::string& domain_name() const { return domain_name_; }

 private:
  friend class OfiEndpoint;
  OfiTransport(const Config& config, PacketHandler handler);
  Status open(fi_info* info);
  Status post_receive_buffers();
  Status register_buffer(void* buffer, std::size_t length, std::uint64_t access, fid_mr** mr,
                         void** desc);
  Status post_receive(PacketBuffer* buffer);
  BulkOp* take_bulk();
  void release_bulk(BulkOp* op);
  // Posts a bulk send or receive, or queues it (in order) while the provider has no room or
  // the bulk receives posted fill recv_budget_.
  Status start_bulk(BulkOp* op);
  Result<bool> post_bulk(BulkOp* op);  // false: -FI_EAGAIN, not posted
  // Sends a packet now, or kNoResource.
  Status post_packet(OfiEndpoint& ep, const PacketHeader& header, const void* payload,
                     std::size_t length);
  void send_control(OfiEndpoint& ep, std::uint8_t type, const void* payload, std::size_t length);
  void handle_control(int rank, const PacketHeader& header, const std::byte* payload,
                      std::size_t length);
  int flush_controls();
  void complete(Op* op, std::size_t length, Status status);
  void receive_packet(PacketBuffer* buffer, std::size_t length);
  void deliver_early(int rank);
  void finish_bulk(BulkOp* op, Status status);
  void end_bulk(BulkOp* op, Status status);           // a piece (piece_done) or a whole transfer
  std::size_t piece_size_of(const Data& data) const;  // 0: it moves whole
  // Registers a lead's buffer for `access` (FI_SEND, FI_RECV) and counts its pieces.
  Status begin_pieces(BulkOp* lead, std::uint64_t access);
  // Posts the receives of the pieces of a pull; fails when none could be posted.
  Status post_pieces(BulkOp* lead);
  void start_pieces(BulkOp* lead);    // the sender's, once asked for
  void send_pieces(OfiEndpoint& ep);  // while fewer than the window are in flight
  BulkOp* make_piece(BulkOp* lead, std::uint32_t number);
  void piece_done(BulkOp* piece, Status status);
  int read_error();
  int retry();
  int retry_bulk(std::deque<BulkOp*>& waiting, bool receives);
  std::uint64_t bulk_tag(int sender, std::uint32_t id) const;
  Result<Endpoint*> make_endpoint(int id, int id_at_peer, std::span<const std::byte> address);
  // Whether `rank` (not negative) names a process this transport may hear from.
  bool known(int rank) const { return static_cast<std::size_t>(rank) < inbound_.size(); }

  Config config_;
  PacketHandler handler_;
  Caps caps_;
  std::string provider_;
  std::string domain_name_;
  bool local_mr_ = false;  // the provider needs buffers registered (FI_MR_LOCAL)
  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_ep* ep_ = nullptr;
  std::vector<std::byte> address_;
  std::vector<std::unique_ptr<OfiEndpoint>> endpoints_;  // by job rank (or number, other jobs)
  std::vector<std::unique_ptr<PacketBuffer>> buffers_;   // every packet buffer, send and receive
  std::vector<PacketBuffer*> free_sends_;
  std::deque<PacketBuffer*> unposted_;            // receive buffers waiting to be posted again
  std::deque<std::unique_ptr<BulkOp>> bulk_ops_;  // stable addresses; reused through free_bulk_
  std::vector<BulkOp*> free_bulk_;
  std::deque<BulkOp*> waiting_sends_;  // bulk sends the provider had no room for, in order
  std::deque<BulkOp*> waiting_recvs_;  // bulk receives not posted yet, in order
  // Bulk receives the provider holds, and at most how many: its receive queue less the packet
  // buffers, so that a packet buffer always finds room to be posted again.
  std::size_t recvs_posted_ = 0;
  std::size_t recv_budget_ = 0;
  std::size_t receives_refused_ = 0;
  std::deque<PendingControl> controls_;  // control packets waiting for a send buffer
  struct Inbound {
    std::uint32_t next_seq = 0;
    std::map<std::uint32_t, std::vector<std::byte>> early;  // packets that overtook others
  };
  std::deque<Inbound> inbound_;  // by job rank; grows (in place) with processes of other jobs
  int in_flight_ = 0;            // packet sends, offers and pulls (and pieces) not completed
  std::size_t piece_size_ = 0;   // GPURUN_OFI_PIECE_SIZE
  int piece_window_ = 0;         // GPURUN_OFI_PIECE_WINDOW
  int delivered_ = 0;
};

}  // namespace gpurun::transport::ofi
