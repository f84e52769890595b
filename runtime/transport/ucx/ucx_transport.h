// The ucx transport: packets and bulk data between hosts through UCX (UCP active messages).
//
// Packets are UCP active messages (id kPacketAm) whose UCX header is the pml's PacketHeader
// plus the sender's job rank and a per-peer sequence number; the payload goes as AM data, sent
// eagerly. Small packets go as tagged messages instead, header and payload in one buffer
// (ucx_small.cc). A packet UCX can take at once costs no copy of ours and no allocation; while the
// network is busy, packets are copied into pooled buffers that UCX holds (in order), up to
// GPURUN_UCX_SEND_QUEUE per peer, after which send() asks the caller to retry.
//
// Bulk data uses UCX's own rendezvous: the data goes as an active message (id kBulkAm) with
// UCP_AM_SEND_FLAG_RNDV, so only UCX's request-to-send travels; the receiver keeps the
// descriptor UCX hands it, and pull() receives the data into the user's buffer with
// ucp_am_recv_data_nbx (zero-copy where UCX can). Non-contiguous data and truncated pulls go
// through a UCP generic datatype that calls the Data's pack/unpack. Host data larger than
// GPURUN_UCX_PIECE_SIZE goes as several such messages (pieces) at once (ucx_bulk.cc).
// offer() only prepares that message: the next packet to the same peer (the pml's
// request-to-send, which carries the cookie) rides in its UCX header, so a rendezvous costs
// one message, not two (ucx_bulk.cc). progress() sends an offer that no packet followed.
//
// Progress: ucp_worker_progress() inside progress(), no thread of its own; callbacks (packets,
// completions) run there. Threading: one thread at a time (UCS_THREAD_MODE_SERIALIZED).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/transport/transport.h"
#include "runtime/transport/ucx/ucx_api.h"

namespace gpurun::transport::ucx {

struct Config {
  int rank = 0;  // this process's job rank
  int size = 1;  // ranks in the job
  // The job runs on one host: unless UCX_NET_DEVICES says otherwise, UCX uses the loopback
  // device only, so that nothing listens on an outside address (DESIGN.md decision 9).
  bool loopback_only = false;
  // Pieces of offered host data: GPURUN_UCX_PIECE_SIZE and GPURUN_UCX_PIECE_WINDOW unless set.
  std::optional<std::size_t> piece_size;
  std::optional<int> piece_window;
};

// The UCX header of a packet.
struct WireHeader {
  PacketHeader header;
  std::int32_t rank;  // the sender's job rank (its number here, when of another job)
  std::uint32_t seq;  // packets from that rank to this one, counted from 0
};
static_assert(sizeof(WireHeader) == 24);

// The UCX header of offered bulk data: one piece of an offer.
struct BulkHeader {
  std::int32_t rank;         // the sender's job rank
  std::uint32_t piece;       // this piece's number; it starts at piece * piece_size
  std::uint64_t id;          // the offer's number on the sender's endpoint (BulkCookie::id)
  std::uint32_t pieces;      // of the offer, at least 1
  std::uint32_t piece_size;  // bytes in each piece but the last (0: one piece)
};
static_assert(sizeof(BulkHeader) == 24);

// A packet of at most this much payload rides in the UCX header of the offer before it.
inline constexpr std::size_t kCarriedPayloadMax = 64;

// The UCX header of offered bulk data as sent: the BulkHeader alone, or followed by a carried
// packet (its WireHeader and payload).
struct OfferHeader {
  BulkHeader bulk;
  WireHeader wire;
  std::byte payload[kCarriedPayloadMax];
};
static_assert(offsetof(OfferHeader, wire) == sizeof(BulkHeader));
static_assert(offsetof(OfferHeader, payload) == sizeof(BulkHeader) + sizeof(WireHeader));

// Objects handed to UCX by address live in a Pool: stable addresses, reused, no allocation
// once warm.
template <class T>
class Pool {
 public:
  T* take() {
    if (free_.empty()) return &items_.emplace_back();
    T* item = free_.back();
    free_.pop_back();
    return item;
  }
  void put(T* item) { free_.push_back(item); }

 private:
  std::deque<T> items_;
  std::vector<T*> free_;
};

class UcxTransport;
class UcxEndpoint;

// How long a rank waits, as it ends, for its sends to ranks that left to complete (once in
// quiescent(), once at shut-down) and for the releases of offers no receive took to go out.
inline constexpr auto kAbandonedFlushWait = std::chrono::seconds(1);

// Active-message ids.
inline constexpr unsigned kPacketAm = 0;
inline constexpr unsigned kBulkAm = 1;

// Small packets (ucx_small.cc): tagged messages of at most this much payload, received into
// kSmallReceives posted receives.
inline constexpr std::size_t kSmallPayloadMax = 1024;
inline constexpr int kSmallReceives = 32;
inline constexpr ucp_tag_t kSmallTag = 0x6770757275'6e0001;  // "gpurun" 1; no other tag is used

// Shared by the parts of the transport (ucx_transport.cc, ucx_bulk.cc).
const ucp_generic_dt_ops_t& generic_ops();        // GenericState through Data's pack/unpack
Status status_of(ucs_status_t status, int peer);  // a transfer's outcome, naming the peer
Status ucx_error(const std::string& what, ucs_status_t status);

// Data seen through a UCP generic datatype: the pml's Data and the bytes on the wire.
struct GenericState {
  Data data;
  std::size_t length = 0;  // bytes on the wire (offered, or arriving)
  std::size_t base = 0;    // where they start in the data's packed stream (a piece's offset)
};

struct SmallReceive {  // a posted receive of small packets
  UcxTransport* transport = nullptr;
  void* request = nullptr;  // UCX's, while posted
  bool posted = false;
  alignas(8) std::byte buffer[sizeof(WireHeader) + kSmallPayloadMax];
};

struct QueuedPacket {  // a packet UCX holds while the network is busy
  UcxEndpoint* endpoint = nullptr;
  WireHeader header{};
  std::vector<std::byte> payload;
};

struct SendOp : GenericState {  // a piece of offered bulk data
  UcxTransport* transport = nullptr;
  int peer = -1;
  OfferHeader header{};    // UCX reads it until the send completes
  SendOp* lead = nullptr;  // the offer's first piece, which holds what follows
  Completion done;
  std::uint32_t pieces_left = 0;  // not completed yet
  std::uint32_t next_piece = 0;   // the next one to send
  bool windowed = false;          // counts in the window (UcxEndpoint::pieces_in_flight_)
  // The lead: whether its first piece completed (the peer receives the offer), and its
  // pieces sent before that still in flight, which count in the window from then on.
  bool opened = false;
  std::uint32_t early_in_flight = 0;
  Status status;  // the first failure of a piece
};

struct RecvOp : GenericState {  // a piece of bulk data being received
  UcxTransport* transport = nullptr;
  int peer = -1;
  std::uint64_t id = 0;  // the offer's
};

// A piece of offered bulk data that arrived before its pull.
struct Piece {
  void* desc = nullptr;  // UCX's descriptor
  std::size_t length = 0;
  std::uint32_t number = 0;
};

// Offered bulk data whose pieces arrived before its pull, or a pull and what it received.
struct Arrival {
  std::vector<Piece> waiting;    // pieces that came before the pull
  std::uint32_t pieces = 0;      // of the offer (0: none came yet)
  std::uint32_t piece_size = 0;  // BulkHeader::piece_size
  std::uint32_t finished = 0;    // pieces received (or dropped: beyond a truncated pull)
  bool pulled = false;
  Data data;  // the pull's, when pulled
  Completion done;
  Status status;  // the first failure of a piece
};

// What arrives from one peer.
struct Inbound {
  std::uint32_t next_seq = 0;
  std::map<std::uint32_t, std::vector<std::byte>> early;  // packets that overtook others
  std::unordered_map<std::uint64_t, Arrival> arrivals;    // by offer id
};

class UcxEndpoint final : public Endpoint {
 public:
  Status send(const PacketHeader& header, const void* payload, std::size_t length) override;
  Result<BulkCookie> offer(const Data& data, Completion done) override;
  Status pull(const BulkCookie& cookie, const Data& data, Completion done) override;
  // The peer left: its offers' completions are skipped from now on, a waiting offer is
  // dropped, and its offers and packets in flight no longer keep the transport busy (UCX may
  // never complete them: the peer takes nothing more, and may no longer make progress); a
  // flush that waits for them is given up after a while (quiescent). Until the peer's own
  // offers to this rank are all pulled (a rank that left waits for that, or for this rank's
  // leaving), packets still go and those pulls are served; then the next progress() closes
  // the endpoint, so that UCX no longer watches a peer that has stopped (ucx_bulk.cc).
  bool forget_offers() override;

 private:
  friend class UcxTransport;
  Status send_queued(const WireHeader& header, const void* payload, std::size_t length);
  // Sends the waiting offer, carrying the packet `wire` (with its payload) when not null.
  Status send_offer(const WireHeader* wire, const void* payload, std::size_t length);
  // Sends one piece of an offer with `header_length` bytes of its header; UCS_OK when UCX
  // took it (the piece then completes later or was deferred), else why it could not.
  ucs_status_t send_piece(SendOp* piece, std::size_t header_length);
  // Sends the next piece of the offer that `lead` heads; false when it failed, which ended
  // the offer.
  bool send_next_piece(SendOp* lead, bool windowed);
  // The first piece of an offer completed with `outcome`: the peer receives the offer. Its
  // pieces sent early count in the window from now on; those not sent yet may go
  // (UcxTransport::send_opened_pieces), or never do when the first failed.
  void open(SendOp* lead, const Status& outcome);
  ucs_status_ptr_t send_small(const WireHeader& wire, const void* payload, std::size_t length);
  static void on_queued_sent(void* request, ucs_status_t status, void* user_data);
  static void on_error(void* arg, ucp_ep_h ep, ucs_status_t status);

  UcxTransport* transport_ = nullptr;
  ucp_ep_h ep_ = nullptr;
  int peer_ = -1;
  int id_at_peer_ = -1;           // this process's number at the peer: its job rank, or not
  std::uint32_t next_seq_ = 0;    // of the next packet to the peer
  std::uint64_t next_offer_ = 0;  // id of the next offer to the peer
  SendOp* waiting_ = nullptr;     // an offer not sent yet: the next packet rides with it
  int queued_ = 0;                // packets UCX holds for us (copied)
  Status failed_;                 // set when UCX reports the connection broken
  bool forgotten_ = false;        // the peer left (forget_offers)
  bool detects_failure_ = false;  // made with UCP_ERR_HANDLING_MODE_PEER
  int offers_in_flight_ = 0;      // offers sent that UCX has not completed
  // Offers whose first piece completed (the peer is receiving them) with pieces left to send,
  // and those pieces in flight.
  std::deque<SendOp*> opened_;
  int pieces_in_flight_ = 0;
  bool listed_ = false;  // in UcxTransport::to_pump_
  // UCX still holds sends of this process to the peer (offers or queued packets).
  bool sending() const { return offers_in_flight_ > 0 || queued_ > 0; }
};

class UcxTransport final : public Transport {
 public:
  static Result<std::unique_ptr<UcxTransport>> create(const Config& config, PacketHandler handler);
  ~UcxTransport() override;
  void shut_down() override;

  const Caps& caps() const override { return caps_; }
  std::vector<std::byte> address() const override { return address_; }
  Result<Endpoint*> connect(int rank, std::span<const std::byte> address) override;
  Result<Endpoint*> connect_other_job(int id, int id_at_peer,
                                      std::span<const std::byte> address) override;
  int progress() override;
  // No packet, offer or pull in flight, and the worker flushed since the last send.
  bool quiescent() const override;
  bool only_offers_left() const override {
    return in_flight_ == offers_out_ && offers_waiting_ == 0 && deferred_.empty();
  }

 private:
  friend class UcxEndpoint;
  UcxTransport(const Config& config, PacketHandler handler);
  Status init_context();
  Status init_worker();

  static ucs_status_t on_packet(void* arg, const void* header, std::size_t header_length,
                                void* data, std::size_t length, const ucp_am_recv_param_t* param);
  static ucs_status_t on_bulk(void* arg, const void* header, std::size_t header_length, void* data,
                              std::size_t length, const ucp_am_recv_param_t* param);
  static void on_offer_sent(void* request, ucs_status_t status, void* user_data);
  static void on_received(void* request, ucs_status_t status, std::size_t length, void* user_data);
  static void on_flushed(void* request, ucs_status_t status, void* user_data);
  static void on_small(void* request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                       void* user_data);

  Result<Endpoint*> make_endpoint(int id, int id_at_peer, std::span<const std::byte> address);
  // Whether `rank` (not negative) names a process this transport may hear from.
  bool known(int rank) const { return static_cast<std::size_t>(rank) < inbound_.size(); }
  Status init_small();
  Status post_small();
  void deliver_small(const SmallReceive& slot, std::size_t length);
  void cancel_small();

  void receive_packet(const WireHeader& header, const std::byte* payload, std::size_t length);
  void deliver_early(int rank, Inbound& in);
  // Receives a piece of the pulled offer `id` from `peer` into the pull's data.
  void receive_piece(int peer, std::uint64_t id, const Piece& piece);
  // A piece of the offer `id` from `peer` was received: the pull completes with its last.
  void piece_received(int peer, std::uint64_t id, Status status);
  // A piece of an offer left or failed (`deferred`: outside progress(), so its completion
  // waits for the next one): the offer completes with its last.
  void piece_sent(SendOp* piece, Status status, bool deferred);
  // Sets the pieces of the offer that `lead` heads (the lead is the first); returns how many.
  std::uint32_t cut_into_pieces(SendOp* lead) const;
  // Sends pieces of opened offers while fewer than GPURUN_UCX_PIECE_WINDOW are in flight.
  void send_opened_pieces();
  void list_for_pieces(UcxEndpoint& ep);  // for the next send_opened_pieces()
  // The offer that `lead` heads ends with the pieces sent so far; returns how many are not.
  std::uint32_t drop_unsent_pieces(SendOp* lead);
  Status check_memory(accel::MemoryKind kind, int peer) const;
  void set_memory_type(ucp_request_param_t& param, accel::MemoryKind kind) const;
  void send_waiting_offers();  // those no packet followed
  void defer(Completion done, Status status);
  int run_deferred();
  // Takes the small packets that arrived after the receives for them were cancelled (MPI has
  // ended: nothing reads them) out of UCX's queue, which reports them at worker_destroy.
  void discard_unexpected_small();
  void close_endpoint(UcxEndpoint& ep);
  // Gives UCX back the pieces of offers no receive took (their senders then complete them);
  // how many pieces.
  int release_waiting();
  // At shut-down, for at most kAbandonedFlushWait: runs the worker until the offers no receive
  // took here (also those still arriving) are released and those releases flushed out, and the
  // peers' releases of the offers sent from here (to ranks that left) have come in, so that
  // UCX holds no request or descriptor of either at worker_destroy.
  void settle_abandoned();
  // Then closes (forced) the endpoints made with peer-failure detection
  // (GPURUN_UCX_PEER_FAILURE, or to another job) that UCX still holds sends on: their requests
  // complete as cancelled. Left with UCX, its worker_destroy aborts on them (an assertion that
  // the endpoint has no request left). Other endpoints keep theirs: UCX defines a forced close
  // only with the detection, and reports them ("was not returned to mpool").
  void cancel_unanswered_sends();
  // A forgotten endpoint is closed by the next progress() once no offer of its peer waits for
  // a pull here and no send to it is in flight. Closed earlier, UCX would keep a rendezvous the
  // peer never answered for good (and report it at worker_destroy); the peer answers it when it
  // releases the offer at its shut-down.
  void close_when_unused(UcxEndpoint& ep);
  void close_forgotten();
  // Tells the packet handler that `peer`'s connection failed (PacketHandler::lost).
  void report_lost(int peer, const Status& why);

  Config config_;
  PacketHandler handler_;
  Caps caps_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_datatype_t generic_ = 0;  // GenericState through the Data's pack/unpack
  std::vector<std::byte> address_;
  std::vector<std::unique_ptr<UcxEndpoint>> endpoints_;  // by job rank (or number, other jobs)
  std::deque<Inbound> inbound_;       // by job rank; grows (in place) with processes of other jobs
  ucp_request_param_t immediate_{};   // packets: eager, at once or not at all
  ucp_request_param_t small_send_{};  // small packets: at once or not at all
  std::vector<std::unique_ptr<SmallReceive>> small_;  // the posted receives of small packets
  std::vector<SmallReceive*> small_repost_;           // completed, to post again
  int send_queue_ = 0;                                // GPURUN_UCX_SEND_QUEUE
  std::size_t piece_size_ = 0;                        // GPURUN_UCX_PIECE_SIZE
  int piece_window_ = 0;                              // GPURUN_UCX_PIECE_WINDOW
  int opened_offers_ = 0;                             // in the endpoints' opened_ lists
  std::vector<UcxEndpoint*> to_pump_;  // endpoints that may send pieces of opened offers now
  std::vector<UcxEndpoint*> to_close_;  // forgotten endpoints, closed by the next progress()
  Pool<QueuedPacket> queued_;
  Pool<SendOp> send_ops_;
  Pool<RecvOp> recv_ops_;
  std::vector<std::pair<Completion, Status>> deferred_;
  int in_flight_ = 0;          // queued packets, offers and receives that UCX has not completed
  int offers_waiting_ = 0;     // endpoints with a waiting offer
  int offers_out_ = 0;         // of in_flight_: offers (pieces) sent that UCX has not completed
  std::size_t carry_max_ = 0;  // payload a carried packet may have (0: UCX headers too small)
  int delivered_ = 0;          // events handled inside callbacks during this progress()
  bool closing_ = false;
  // Flushing before the process leaves: sends counted, and those a completed flush covered.
  std::uint64_t sends_ = 0;
  mutable std::uint64_t flushed_ = 0;
  mutable std::uint64_t flushing_ = 0;  // sends_ when the running flush began
  mutable bool flush_running_ = false;
  mutable bool flush_given_up_ = false;  // quiescent() waited kAbandonedFlushWait in vain
  int settle_flushes_ = 0;               // settle_abandoned's flushes not completed
  mutable std::chrono::steady_clock::time_point flush_began_;
  // A peer left while UCX still had sends of this process to it: they never complete, and a
  // flush of the worker waits for them; quiescent() then waits for the flush a second at most.
  bool sends_abandoned_ = false;
};

}  // namespace gpurun::transport::ucx
