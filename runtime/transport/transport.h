// Transports move packets and bulk data between processes; the pml above gives them meaning
// (matching, protocols). Every transport describes itself (Caps: reach, memory kinds, packet
// size, a latency and bandwidth model) so that path selection is a pure function of topology,
// transports and knobs (DESIGN.md decision 3).
//
// Packets are active messages: a fixed 16-byte header the pml fills, and a payload of at most
// caps().max_packet bytes. Large messages move as bulk transfers: the sender offers its data
// and gets a cookie that it sends to the receiver in a packet; the receiver, once it has
// matched the message, pulls the data into its buffer with that cookie.
//
// Threading: one thread at a time calls into a transport (the API layer serialises callers).
// Callbacks (packet handler, completions) run inside progress() or inside the call that
// completes the operation; they may call send()/offer()/pull() again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/accel/memory.h"
#include "runtime/base/status.h"

namespace gpurun::transport {

enum class Reach : std::uint8_t { kSelf, kHost, kNetwork };

struct Model {
  double latency_us;     // one small packet, one way
  double bandwidth_gbs;  // large transfers
};

struct Caps {
  std::string name;  // "self", "shm", "ucx", "ofi", "cuda_ipc": the one name used everywhere
  Reach reach = Reach::kHost;
  bool host_memory = true;
  bool device_memory = false;  // moves CUDA device memory without staging
  std::size_t max_packet = 0;  // largest packet payload
  // A network transport whose only device is the loopback: it reaches this host's processes
  // only (started so in a job on one host).
  bool loopback_only = false;
  Model model{};
};

// Packet types at or above this value belong to the transports themselves.
inline constexpr std::uint8_t kTransportTypes = 0xf0;

struct PacketHeader {
  std::uint8_t type;  // the pml's message type
  std::uint8_t flags;
  std::uint16_t aux;  // type-specific
  std::uint32_t context;
  std::int32_t tag;
  std::int32_t source;  // the sender's rank in the communicator
};
static_assert(sizeof(PacketHeader) == 16);

// Copies a header field by field, each field read with a load of its own size. A sender builds
// the header on its stack, one store per field (or a few merged ones); a 16-byte load of it is
// not served from those stores and waits until every older store has reached the cache, among
// them the previous packet's stores to shared lines that the receiver's core holds.
inline void copy_header(PacketHeader* to, const PacketHeader& from) {
  const volatile PacketHeader& field = from;
  to->type = field.type;
  to->flags = field.flags;
  to->aux = field.aux;
  to->context = field.context;
  to->tag = field.tag;
  to->source = field.source;
}

struct Packet {
  int peer;  // the sender's job rank
  const PacketHeader* header;
  const std::byte* payload;  // valid only during the handler call
  std::size_t length;
};

struct PacketHandler {
  void (*fn)(void* context, const Packet& packet);
  void* context;
  // Called (when set) once a transport knows that `peer` is gone (its connection failed): no
  // packet from it will come any more, and none sent to it will arrive.
  void (*lost)(void* context, int peer, const Status& why) = nullptr;
};

// Where bulk data comes from or goes: one contiguous block, or a packer over a typed buffer.
struct Data {
  std::size_t size = 0;        // bytes in packed form
  void* contiguous = nullptr;  // the bytes when they are one block, else nullptr
  // Copies [offset, offset + length) of the packed stream out of / into the typed buffer.
  // Calls come with increasing offsets.
  std::size_t (*pack)(void* context, std::size_t offset, void* dst, std::size_t length) = nullptr;
  std::size_t (*unpack)(void* context, std::size_t offset, const void* src,
                        std::size_t length) = nullptr;
  void* context = nullptr;
  accel::MemoryKind kind = accel::MemoryKind::kHost;
  // Pulled data that the receiver reads as soon as it has arrived (core::Request::read_soon).
  bool read_soon = false;
};

struct Completion {
  void (*fn)(void* context, Status status) = nullptr;
  void* context = nullptr;
  void operator()(Status status) const { fn(context, std::move(status)); }
};

// Identifies offered data across processes; travels inside a pml packet.
// Network transports cut large bulk data into pieces (ucx, ofi): the piece size a knob asks
// for, at least 4K so that a small value cannot make a message into millions of transfers
// (0: data moves whole).
inline constexpr std::uint64_t kMinPieceSize = 4096;
inline std::uint64_t piece_size_from(std::uint64_t asked) {
  return asked == 0 || asked >= kMinPieceSize ? asked : kMinPieceSize;
}

struct BulkCookie {
  std::uint64_t id = 0;
  std::uint64_t address = 0;  // transport-specific (e.g. the sender's buffer address)
};
static_assert(sizeof(BulkCookie) == 16);

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  // Sends one packet. Never blocks: kNoResource when there is no room now (retry after
  // progress). Packets to one endpoint arrive in the order they were sent.
  virtual Status send(const PacketHeader& header, const void* payload, std::size_t length) = 0;
  // Offers `data` (which must stay valid until `done`) for a pull by the peer; `done` runs
  // when the data has left the buffer.
  virtual Result<BulkCookie> offer(const Data& data, Completion done) = 0;
  // Pulls the data the peer offered under `cookie` into `data`; `done` runs when it is all
  // there. `data.size` may be smaller than what was offered (the receiver truncates).
  virtual Status pull(const BulkCookie& cookie, const Data& data, Completion done) = 0;
  // The peer left (it finalized: it pulls nothing more). True when this transport then never
  // runs the `done` of an offer to it, so that its owner may finish the send; false (the
  // default) when it cannot promise that.
  virtual bool forget_offers() { return false; }
  // Whether the peer is bound to other CPUs than this rank, so that it may be running while
  // this rank waits for it (ranks bound to the same CPUs take turns on them). False when not
  // known.
  virtual bool peer_alongside() const { return false; }
  // The peer's process id when this rank may copy from and to the peer's memory by CMA
  // (runtime/transport/shm/cma.h; the transport uses CMA and reached the peer with it); 0
  // otherwise.
  virtual int cma_pid() const { return 0; }
  // Bulk sends offered to the peer whose data has not left the buffer yet (0 when the
  // transport does not count them).
  virtual int offers_out() const { return 0; }
  // Whether a packet of `length` bytes sent now would find room in the endpoint's send queue
  // (false when the transport cannot tell).
  virtual bool has_room_for(std::size_t /*length*/) { return false; }
};

// What an endpoint whose peer (job rank `peer`) left answers from then on.
inline Status peer_left(int peer) {
  return Status(ErrorCode::kPeerFailed, "rank " + std::to_string(peer) + " left");
}

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const Caps& caps() const = 0;
  // What peers need to connect to this process, published through the bootstrap.
  virtual std::vector<std::byte> address() const = 0;
  // The endpoint to the process of job rank `rank`, from the address it published. The
  // transport owns the endpoint.
  virtual Result<Endpoint*> connect(int rank, std::span<const std::byte> address) = 0;
  // The endpoint to a process of another job (MPI_Comm_connect and MPI_Comm_accept), numbered
  // `id` here (at or above the job's size), which numbers this process `id_at_peer`: packets
  // to it carry that number, and packets from it arrive with peer `id`. kUnsupported where the
  // transport cannot reach other jobs.
  virtual Result<Endpoint*> connect_other_job(int id, int id_at_peer,
                                              std::span<const std::byte> address) {
    (void)id;
    (void)id_at_peer;
    (void)address;
    return Status(ErrorCode::kUnsupported, caps().name + " does not reach other jobs");
  }
  // Delivers arrived packets to the handler and moves bulk transfers along. Returns how many
  // events it handled.
  virtual int progress() = 0;
  // A word that is 0 while progress() has nothing to do (or nullptr: call it always). The pml
  // reads it on every poll instead of calling a transport that waits for its own sends.
  virtual const std::size_t* pending_word() const { return nullptr; }
  // Whether this process may leave: no peer still needs anything of it (its memory, data it
  // owes). MPI_Finalize makes progress until every transport says so.
  virtual bool quiescent() const { return true; }
  // Whether nothing is in flight but offers no peer has taken yet: what MPI_Finalize waits for
  // before it tells the other ranks this one leaves. A peer may take such an offer later (a
  // receive of its program comes after; the transport then serves the pull of a rank that
  // left) or never (its program has none): waiting for it there could wait for ever with
  // every rank in MPI_Finalize.
  virtual bool only_offers_left() const { return quiescent(); }
  // MPI has ended (the job's last fence is behind): releases what the transport holds, its
  // library's threads first, so that none is still running when the process exits. Nothing is
  // sent or received afterwards; progress() finds nothing to do.
  virtual void shut_down() {}
};

}  // namespace gpurun::transport
