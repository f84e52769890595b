// The point-to-point messaging layer: matching and protocols over the transports.
//
// Protocols, chosen per message by size against the route's eager limit (set once per route at
// connect time):
// - eager: header and data in one packet; the send completes at once (a synchronous send when
//   the receiver acknowledges the match);
// - rendezvous: the sender offers its data to the transport and sends a request-to-send; the
//   receiver, once matched, pulls the data (shm: a fragment pipeline or CMA).
// Sends that find no room wait in their route's queue, in order, and go out from progress().
//
// Every communicator has two matching spaces (channels): user traffic and collective traffic,
// so collectives never match a user's receive.
//
// Threading: not thread-safe; the API layer serialises callers.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pml/match.h"
#include "runtime/accel/accelerator.h"
#include "runtime/accel/memory.h"
#include "runtime/core/communicator.h"
#include "runtime/core/datatype.h"
#include "runtime/core/request.h"
#include "runtime/transport/transport.h"

namespace gpurun::pml {

enum class SendMode : std::uint8_t { kStandard, kSync, kReady };
// Matching spaces of a communicator: the program's messages, the collectives', and the two of
// partitioned communication (api/partitioned.cc: a receiver's setup message to its sender, and
// the partitions).
enum class Channel : std::uint8_t { kUser = 0, kColl = 1, kPartitionSetup = 2, kPartitionData = 3 };
inline constexpr std::uint32_t kChannels = 4;

// Why device memory of `type` cannot move: the pml moves device buffers of contiguous types
// only (what memory_ok checks); also the error of the API calls that copy such a buffer.
Status device_type_error(const core::Datatype& type);

struct SendArgs {
  const core::Communicator* comm = nullptr;
  const void* buf = nullptr;
  std::int64_t count = 0;
  const core::Datatype* type = nullptr;
  int dest = 0;  // rank in comm
  int tag = 0;
  SendMode mode = SendMode::kStandard;
  Channel channel = Channel::kUser;
  accel::MemoryKind memory = accel::MemoryKind::kHost;  // where `buf` is
};

struct RecvArgs {
  const core::Communicator* comm = nullptr;
  void* buf = nullptr;
  std::int64_t count = 0;
  const core::Datatype* type = nullptr;
  int source = kAnySource;  // rank in comm, or kAnySource
  int tag = kAnyTag;
  Channel channel = Channel::kUser;
  accel::MemoryKind memory = accel::MemoryKind::kHost;  // where `buf` is
  bool read_soon = false;                               // core::Request::read_soon
};

// A message that MPI_Mprobe took off the queue, to be received by MPI_Mrecv.
using Message = Unexpected;

class Pml {
 public:
  explicit Pml(int job_rank, int job_size);
  ~Pml();
  Pml(const Pml&) = delete;
  Pml& operator=(const Pml&) = delete;

  // --- wiring, by the composition root ---
  transport::PacketHandler handler();
  void add_transport(transport::Transport* transport);
  // The endpoint that reaches job rank `rank`, and the largest eager message on it. A process
  // of another job (MPI_Comm_connect) has a number at or above the job's size: its route is
  // added then (never from inside progress).
  void set_route(int rank, transport::Endpoint* endpoint, std::size_t eager_limit,
                 const char* transport_name);
  // The endpoint that moves device memory to job rank `rank` itself (cuda_ipc, or a network
  // transport with GPUDirect RDMA), for rendezvous messages in device memory. Without one,
  // device data is staged through host memory on the route's endpoint.
  void set_device_route(int rank, transport::Endpoint* endpoint, const char* transport_name);
  // Messages up to `limit` bytes to job rank `rank` (above its eager limit) go eagerly too
  // while the sender streams to it: an earlier rendezvous send still waits for the peer, and the
  // packet finds room (pml.cc, streams_eagerly).
  void set_stream_eager_limit(int rank, std::size_t limit) {
    routes_[rank].stream_eager_limit = limit;
  }
  // The accelerator that copies device memory (accel::current() unless a test sets one).
  void set_accelerator(accel::Accelerator* accelerator) { accel_ = accelerator; }
  void add_comm(const core::Communicator& comm);
  // A freed communicator: what arrived for it goes, and so does what arrives for its context id
  // until reuse_context_id (the id rests meanwhile, so no new communicator has it).
  void remove_comm(const core::Communicator& comm);
  void reuse_context_id(std::uint32_t id);

  // --- messaging ---
  core::RequestPool& requests() { return requests_; }
  // Sends at once when the message fits one eager packet and nothing waits before it on the
  // route: returns true when the send is complete (the blocking fast path, no request).
  bool send_now(const SendArgs& args);
  // The same for a nonblocking send: true when the send left at once and `request` (fresh from
  // requests()) is complete; false when it has to go through isend().
  bool isend_now(const SendArgs& args, core::Request* request);
  // Starts a send or a receive on `request`; it completes later (request->complete()).
  Status isend(const SendArgs& args, core::Request* request);
  Status irecv(const RecvArgs& args, core::Request* request);
  // Whether a message matching source/tag has arrived; fills `status` (source, tag, bytes).
  bool iprobe(const core::Communicator& comm, int source, int tag, Channel channel,
              core::MessageStatus* status);
  // Like iprobe, but takes the message off the queue for mrecv.
  Message* improbe(const core::Communicator& comm, int source, int tag, Channel channel,
                   core::MessageStatus* status);
  Status mrecv(Message* message, const RecvArgs& args, core::Request* request);
  // Cancels a receive not yet matched, or a send not yet gone; false when too late.
  bool cancel(core::Request* request);
  // The requests not yet complete whose owner (core::Request::owner) is one of `owners`, the
  // operations of a call given up on: receives are cancelled (they complete, cancelled); a
  // send the pml cannot take back stays with it, and MPI_Finalize no longer waits for it.
  // `detach`: their owner and completion callback are cleared first (the owner goes away).
  // Error path only: it scans the request pool.
  void give_up(std::span<const void* const> owners, bool detach);
  // Runs the transports and the queued sends. Returns the events handled.
  int progress();
  // Nothing is queued for sending (sends and acknowledgements).
  bool idle() const { return busy_routes_.empty(); }

  const char* route_name(int rank) const { return routes_[rank].transport_name; }

  // --- leaving (pml/leave.cc) ---
  // MPI_Finalize, once idle(): tells every other rank, behind everything this rank sent it,
  // that nothing more comes. There, a receive that only this rank could match, posted or still
  // to come, and a send to it, fail (kPeerFailed) instead of waiting forever.
  void leave();
  // MPI_Finalize: whether a request nobody waits for (one the user freed with MPI_Request_free,
  // a buffered send) is still in flight: its operation must complete before the process leaves.
  // Receives that no message has matched are left out (cancel_unmatched_orphans), and without
  // `offers_too`, so are sends whose offer is out (kInFlight): before this rank leaves, waiting
  // for a send its receiver never takes would wait for ever with every rank in MPI_Finalize;
  // after, the send completes when the receiver takes it or fails when the receiver leaves
  // too. Scans the request pool.
  bool orphans_in_flight(bool offers_too);
  // MPI_Finalize, before leave(): cancels the receives the user freed that no message has
  // matched (the standard asks every receive to complete before MPI_Finalize; waiting for
  // them could wait for ever, with every rank in MPI_Finalize). Returns how many.
  int cancel_unmatched_orphans();
  // Whether `r` is a receive from MPI_ANY_SOURCE whose communicator has no other member left
  // (every other one has left): only this rank could still match it.
  bool unmatchable(const core::Request& r) const {
    return gone_count_ > 0 && r.kind == core::RequestKind::kRecv && r.peer == kAnySource &&
           r.comm != nullptr && all_others_left(*r.comm);
  }
  // Fails such a receive (kPeerFailed) if no message has matched it; false when one has. For a
  // rank blocked on it with no other thread: a send to itself was the only way left.
  bool fail_unmatchable(core::Request* r);
  // Job rank `rank` is lost for the reason `why`: its connection failed, or no transport reaches
  // it (and so it cannot reach this rank either). What waits for it fails instead of waiting for
  // ever, saying why.
  void mark_lost(int rank, const std::string& why) {
    lost_why_.emplace(rank, why);
    on_bye(rank, kLost);
  }
  // "rank N is lost: why" for rank `rank` of `comm`, or empty when it is not lost.
  std::string lost_message(const core::Communicator& comm, int rank) const {
    auto it = lost_why_.find(comm.group().job_rank(rank));
    if (it == lost_why_.end()) return {};
    return "rank " + std::to_string(rank) + " is lost: " + it->second;
  }
  // Whether job rank `rank` has left (finalized, or lost: its connection failed).
  bool left(int rank) const { return gone_count_ > 0 && gone_[rank] != 0; }
  // Whether job rank `rank` is lost: it did not finalize, its connection failed.
  bool lost(int rank) const { return gone_count_ > 0 && gone_[rank] == kLost; }
  // Whether rank `rank` of `comm` has left (false for MPI_ANY_SOURCE and other non-ranks).
  bool left(const core::Communicator& comm, int rank) const {
    return gone_count_ > 0 && rank >= 0 && rank < comm.size() && left(comm.group().job_rank(rank));
  }
  // Whether every member of `comm` but this rank has left (false for a one-rank communicator).
  bool all_others_left(const core::Communicator& comm) const;
  // Whether rank `rank` of `comm` may be running while this rank waits for it
  // (transport::Endpoint::peer_alongside); false for MPI_ANY_SOURCE and other non-ranks.
  bool peer_alongside(const core::Communicator& comm, int rank) const {
    if (rank < 0 || rank >= comm.size()) return false;
    const transport::Endpoint* endpoint = routes_[comm.group().job_rank(rank)].endpoint;
    return endpoint != nullptr && endpoint->peer_alongside();
  }
  // The process id of rank `rank` of `comm` when this rank may copy from its memory by CMA
  // (transport::Endpoint::cma_pid); 0 otherwise.
  int cma_pid(const core::Communicator& comm, int rank) const {
    if (rank < 0 || rank >= comm.size()) return 0;
    const transport::Endpoint* endpoint = routes_[comm.group().job_rank(rank)].endpoint;
    return endpoint != nullptr ? endpoint->cma_pid() : 0;
  }

 private:
  struct QueuedAck {
    std::uint32_t context;
    std::uint64_t token;
  };
  struct Route {
    transport::Endpoint* endpoint = nullptr;
    std::size_t eager_limit = 0;
    std::size_t stream_eager_limit = 0;  // set_stream_eager_limit
    const char* transport_name = "none";
    transport::Endpoint* device_endpoint = nullptr;  // moves device memory natively
    const char* device_transport_name = "none";
    std::deque<core::Request*> pending;  // sends waiting for room, in order
    std::deque<QueuedAck> acks;          // acknowledgements waiting for room
    bool flagged = false;                // in busy_routes_
  };

  static void on_packet_thunk(void* self, const transport::Packet& packet);
  static void on_lost_thunk(void* self, int peer, const Status& why);
  static void on_offer_done(void* request, Status status);
  static void on_pull_done(void* request, Status status);
  void on_packet(const transport::Packet& packet);
  void on_ack(const transport::Packet& packet);
  // Rank `peer` is gone (`how`: kLeft on its kBye, kLost when its connection failed).
  void on_bye(int peer, std::uint8_t how = kLeft);
  // Fails the sends to `peer` that wait for it (pml/leave.cc).
  void fail_sends_to(int peer);
  // Fails a receive from, or a send to, a specific rank that left; false when it has not.
  bool fail_if_gone(core::Request* request);
  // MPI_Finalize's warning for a receive it cancels (cancel_unmatched_orphans).
  static void warn_cancelled(const core::Request& request);
  // A request fail_if_gone() failed never matched or went: cancelling it still succeeds.
  bool cancel_failed_by_leaving(core::Request* request);
  MatchQueues& queues(std::uint32_t context) {
    if (context < contexts_.size() && contexts_[context]) [[likely]]
      return *contexts_[context];
    return make_queues(context);
  }
  MatchQueues& make_queues(std::uint32_t context);
  std::uint32_t context_of(const core::Communicator& comm, Channel channel) const {
    return comm.context_id() * kChannels + static_cast<std::uint32_t>(channel);
  }

  bool start_send(Route& route, core::Request* request);
  bool streams_eagerly(const Route& route, const core::Request* request);
  bool send_eager(Route& route, core::Request* request);
  bool send_rts(Route& route, core::Request* request);
  void queue_send(Route& route, core::Request* request);
  void send_ack(int peer, std::uint32_t context, std::uint64_t token);
  int flush_routes();
  void deliver(core::Request* request, Unexpected& message);
  void deliver_eager(core::Request* request, const transport::PacketHeader& header,
                     const std::byte* data, std::size_t length, int peer);
  void start_pull(core::Request* request, int peer, std::uint64_t size,
                  const transport::BulkCookie& cookie, bool device_route);
  // Packs a request's eager payload into `dst` (host memory), wherever the data lives.
  Status pack_eager(core::Request* request, std::byte* dst);
  Status unpack_eager(core::Request* request, const std::byte* src, std::size_t length);
  // Completes a request: drops the reference on its type, runs its on_complete, returns an
  // orphan to its pool. Inline for a request with none of those to do (most).
  static void complete(core::Request* r) {
    if (r->datatype->predefined() && r->on_complete == nullptr && !r->orphan) [[likely]] {
      r->set_complete();
      return;
    }
    complete_slow(r);
  }
  static void complete_slow(core::Request* request);
  // Whether the pml can move the request's buffer: device memory of a contiguous type only.
  static bool memory_ok(const core::Request* r) {
    return r->memory == accel::MemoryKind::kHost || r->datatype->contiguous();
  }
  static void hold_type(core::Request* request);
  Unexpected* new_unexpected();
  void free_unexpected(Unexpected* u);

  int job_rank_;
  core::RequestPool requests_;
  std::vector<Route> routes_;
  std::vector<int> busy_routes_;
  std::vector<transport::Transport*> transports_;
  std::vector<const std::size_t*> pending_words_;  // transports_[i]->pending_word()
  std::vector<std::unique_ptr<MatchQueues>> contexts_;
  std::vector<bool> retired_;  // per context id: freed, not in use again
  std::vector<std::unique_ptr<Unexpected>> unexpected_pool_;
  std::vector<std::byte> scratch_;  // packing buffer for non-contiguous eager sends
  std::vector<std::byte> staging_;  // host copy of a device buffer's extent (eager, strided)
  accel::Accelerator* accel_;
  std::uint64_t next_sequence_ = 0;
  static constexpr std::uint8_t kLeft = 1;
  static constexpr std::uint8_t kLost = 2;
  std::vector<std::uint8_t> gone_;  // by job rank: 0, or kLeft (its kBye arrived) or kLost
  int gone_count_ = 0;
  std::map<int, std::string> lost_why_;  // by job rank, for the lost ones
};

// Where a request's data is, as the transports see it: `native_device` when the transport moves
// device memory itself; otherwise device data comes and goes through accelerator copies.
transport::Data data_of(core::Request* request, std::size_t size, bool native_device = false);

}  // namespace gpurun::pml
