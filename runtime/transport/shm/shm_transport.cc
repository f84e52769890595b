#include "runtime/transport/shm/shm_transport.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "runtime/base/clock.h"
#include "runtime/base/log.h"
#include "runtime/progress/progress.h"
#include "runtime/topo/cpu_set.h"
#include "runtime/transport/shm/cma.h"
#include "runtime/transport/shm/params.h"

namespace gpurun::transport::shm {
namespace {

// Transport control packets (types at or above kTransportTypes).
constexpr std::uint8_t kCts = kTransportTypes;         // receiver -> sender: stream op `id`
constexpr std::uint8_t kFin = kTransportTypes + 1;     // receiver -> sender: op `id` was read
constexpr std::uint8_t kCmaCts = kTransportTypes + 2;  // receiver -> sender: write your share
constexpr std::uint8_t kWrote = kTransportTypes + 3;   // sender -> receiver: share written

struct CtsPayload {
  std::uint64_t id;
  std::uint64_t wanted;
};

// Below this the receiver copies the whole message itself: a second copier would not pay for
// its system call.
constexpr std::uint64_t kCmaSplitMin = 64 << 10;

// From this size the receiver asks a peer that streams messages to it (more packets from it wait
// behind the message's offer: osu_bw, osu_mbw_mr) for a share, where ranks outnumber cores too
// (below, kCmaSplitMin and kCmaReceiverCopiesAllMax). 5 interleaved runs on a 2-core Intel Xeon,
// medians: osu_bw -np 2 32K 22.1 -> 28.8 GB/s (16K, tried: 22.3 -> 17.2, so not below 32K);
// osu_mbw_mr -np 4 32K 19.7 -> 28.9, 64K 24.0 -> 35.5, 256K 30.4 -> 52.1; osu_latency and
// osu_multi_lat, whose sender waits for the reply, and the collectives unchanged.
constexpr std::uint64_t kCmaStreamSplitMin = 32 << 10;

// Up to this size the receiver copies the whole message itself:
// - when its peer is pulling a message of ours (an exchange: sendrecv, alltoall, allgather):
//   the peer's core is busy, and asking it for a share costs a round trip. -np 2, 3
//   interleaved runs: osu_alltoall 64K 2.7-2.9 vs 3.2-4.1 us, osu_bibw 128K 85 vs 76-78 GB/s;
// - when it reads the data as soon as it has arrived (Data::read_soon, a reduction): the
//   peer's share would land in the peer's cache, and reading it across the cores again costs
//   more than the share saved. osu_reduce -np 2 binomial on a 2-core Intel Xeon, 5 interleaved
//   runs: 64K 10.1 -> 5.8 us, 128K 15.9 -> 10.9, 256K 29.5 -> 19.0;
// - when ranks outnumber cores (the wait policy is not spin) and the peer does not stream (see
//   kCmaStreamSplitMin): the peer, most often waiting for its turn on a core, would write its
//   share only after a context switch. osu_multi_lat -np 4 on 2 cores, 9 interleaved runs: 64K
//   10.0 -> 6.0 us, 128K 12.8 -> 9.2, 256K 19.2 -> 16.0.
// From 512K the split was as fast or faster.
constexpr std::uint64_t kCmaReceiverCopiesAllMax = 256 << 10;

// Bytes the receiver reads itself of a message of `wanted`: all below `split_min`, else half.
std::uint64_t cma_split(std::uint64_t wanted, std::uint64_t split_min) {
  if (wanted < split_min) return wanted;
  return cma_half(wanted);
}

// The rings of a host together, and the largest ring (see layout_for). A ring of 256K lets a
// window of messages up to 4K be in flight at once, where 64K made the sender wait for the
// receiver; the producer keeps to 64K of it while the receiver keeps up (kHomeCells in ring.h),
// which the latency needs. osu_* -np 2 on a 2-core Intel Xeon, 7 interleaved runs, medians, ring
// of 64K / of 256K used whole / of 256K with home cells: osu_bw 64 B 898 / 1340 / 1370 MB/s, 4K
// 10900 / 16800 / 16000; osu_bibw 2K 10300 / 17800 / 17500, 4K 10900 / 20000 / 18900;
// osu_latency 2K 0.48 / 0.63 / 0.50 us, 512 B 0.28 / 0.33 / 0.29; osu_allreduce 1K 0.50 / 0.75 /
// 0.49 us.
constexpr std::uint64_t kHostRingBytes = 16 << 20;
constexpr std::uint64_t kRingMaxBytes = 256 << 10;
// The largest ring GPURUN_SHM_RING_SIZE may ask for (a million cells; the cell count must fit
// 32 bits, and a host holds L^2 rings).
constexpr std::uint64_t kRingKnobMaxBytes = 64 << 20;

// Packets a poll takes from one peer before it looks at the next: keeps one busy sender from
// starving the others.
constexpr int kBatch = 64;

std::uint32_t round_up_pow2(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

InboxLayout layout_for(std::uint32_t local_size) {
  InboxLayout layout;
  layout.local_size = local_size;
  // The rings of a host take kHostRingBytes together (L^2 lanes), each at most kRingMaxBytes
  // and at least 8K; beyond 8 ranks per host the fragment pipelines shrink too, so that a host's
  // inboxes stay within a few hundred MiB.
  std::uint64_t ranks = std::max(1u, local_size);
  std::uint64_t ring_bytes =
      params::ring_size().get()
          ? params::ring_size().get()->bytes
          : std::clamp<std::uint64_t>(kHostRingBytes / (ranks * ranks), 8192, kRingMaxBytes);
  if (ring_bytes > kRingKnobMaxBytes) {
    GPURUN_LOG(warn, transport,
               "GPURUN_SHM_RING_SIZE: %llu bytes is more than a ring takes; using %llu",
               static_cast<unsigned long long>(ring_bytes),
               static_cast<unsigned long long>(kRingKnobMaxBytes));
    ring_bytes = kRingKnobMaxBytes;
  }
  layout.ring_cells = round_up_pow2(
      static_cast<std::uint32_t>(std::max<std::uint64_t>(64, ring_bytes / kCellSize)));
  layout.fragment_size = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(4096, params::fragment_size().get().bytes) / 64 * 64);
  int fragments = params::fragments().get().value_or(local_size <= 8 ? 8 : local_size <= 32 ? 4 : 2);
  layout.fragments = static_cast<std::uint32_t>(std::max(2, fragments));
  return layout;
}

// Whether this process may read the memory of `pid` (ptrace rules, namespaces) by CMA.
bool cma_reaches(int pid, std::uint64_t address, int rank) {
  std::uint64_t word = 0;
  iovec local{&word, sizeof word}, remote{reinterpret_cast<void*>(address), sizeof word};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == sizeof word && word == kInboxMagic)
    return true;
  GPURUN_LOG(info, transport, "shm: no CMA to rank %d (%m); large messages from it by fragment "
             "pipeline", rank);
  return false;
}

}  // namespace

// ---- ShmEndpoint -----------------------------------------------------------------------

Status ShmEndpoint::send(const PacketHeader& header, const void* payload, std::size_t length) {
  if (!writer_.write(header, payload, length)) [[unlikely]]
    return Status(ErrorCode::kNoResource);
  peer_doorbell_->ring();
  return ok_status();
}

Result<BulkCookie> ShmEndpoint::offer(const Data& data, Completion done) {
  SendOp op;
  op.data = data;
  op.done = done;
  std::uint64_t id = transport_->add_op(op);
  ++offers_out_;
  auto address = reinterpret_cast<std::uint64_t>(data.contiguous);
  return BulkCookie{id, data.kind == accel::MemoryKind::kHost ? address : 0};
}

Status ShmEndpoint::pull(const BulkCookie& cookie, const Data& data, Completion done) {
  if (data.size == 0) {
    CtsPayload cts{cookie.id, 0};
    send_control(kCts, &cts, sizeof cts);
    done(ok_status());
    return ok_status();
  }
  if (cma_ && cookie.address != 0 && data.contiguous != nullptr &&
      data.kind == accel::MemoryKind::kHost) {
    cma_pull(cookie, data, done);
    return ok_status();
  }
  pulls_.push_back(PullOp{data, done, 0});
  busy_ = true;
  CtsPayload cts{cookie.id, data.size};
  send_control(kCts, &cts, sizeof cts);
  return ok_status();
}

// Asks the peer to write its share of the data straight into our buffer, reads ours from its
// buffer meanwhile, and tells it when we are done with its buffer. The pull completes when the
// peer's share has arrived too (kWrote).
void ShmEndpoint::cma_pull(const BulkCookie& cookie, const Data& data, Completion done) {
  // While the peer pulls a message of ours, it has no core to spare for a share of this one;
  // data read at once had better all land in this core's cache.
  bool oversubscribed = progress::engine().policy() != progress::WaitPolicy::kSpin;
  // A peer whose next packets already wait behind this message's offer streams to us: it has
  // time to spare for a share, even where ranks outnumber cores.
  bool peer_streams = reader_.more_after_head();
  bool copy_all = ((oversubscribed && !peer_streams) || offers_out_ > 0 || data.read_soon) &&
                  data.size <= kCmaReceiverCopiesAllMax;
  std::uint64_t split =
      copy_all ? data.size : cma_split(data.size, peer_streams ? kCmaStreamSplitMin : kCmaSplitMin);
  auto* dst = static_cast<std::byte*>(data.contiguous);
  if (split < data.size) {
    CmaCtsPayload cts{cookie.id, data.size, split, reinterpret_cast<std::uint64_t>(dst)};
    send_control(kCmaCts, &cts, sizeof cts);
  }
  Status status = cma_copy(peer_pid_, false, dst, cookie.address, split);
  if (!status.ok()) status.prepend("reading from rank " + std::to_string(peer_rank_));
  std::uint64_t id = cookie.id;
  send_control(kFin, &id, sizeof id);
  if (split == data.size) {
    done(std::move(status));
    return;
  }
  cma_waits_.push_back(CmaWait{done, std::move(status)});
}

// The sender's share of a split CMA transfer: written before the receiver's kFin can arrive
// (packets come in order), so that kFin still completes the send.
void ShmEndpoint::cma_write(const CmaCtsPayload& cts) {
  SendOp& op = transport_->ops_[cts.id];
  auto* src = static_cast<std::byte*>(op.data.contiguous);
  std::uint64_t end = std::min<std::uint64_t>(cts.wanted, op.data.size);
  Status st = cma_copy(peer_pid_, true, src + cts.split, cts.address + cts.split,
                       end > cts.split ? end - cts.split : 0);
  std::uint64_t code = st.ok() ? 0 : 1;
  if (!st.ok())
    GPURUN_LOG(error, transport, "shm: writing to rank %d: %s", peer_rank_,
               st.to_string().c_str());
  send_control(kWrote, &code, sizeof code);
}

void ShmEndpoint::send_control(std::uint8_t type, const void* payload, std::size_t length) {
  if (pending_controls_.empty()) {
    PacketHeader header{};
    header.type = type;
    if (writer_.write(header, payload, length)) {
      peer_doorbell_->ring();
      return;
    }
  }
  std::vector<std::byte> queued(1 + length);
  queued[0] = static_cast<std::byte>(type);
  std::memcpy(queued.data() + 1, payload, length);
  pending_controls_.push_back(std::move(queued));
  busy_ = true;
}

int ShmEndpoint::flush_controls() {
  int sent = 0;
  while (!pending_controls_.empty()) {
    const auto& queued = pending_controls_.front();
    PacketHeader header{};
    header.type = static_cast<std::uint8_t>(queued[0]);
    if (!writer_.write(header, queued.data() + 1, queued.size() - 1)) break;
    peer_doorbell_->ring();
    pending_controls_.pop_front();
    ++sent;
  }
  return sent;
}

// Fills free fragment slots in the peer's inbox with the data it asked for, op by op.
int ShmEndpoint::push_fragments() {
  const InboxLayout& layout = transport_->layout_;
  int events = 0;
  while (!streams_.empty()) {
    std::uint64_t id = streams_.front();
    SendOp* op = &transport_->ops_[id];
    while (op->sent < op->wanted) {
      if (fragments_written_ - consumed_cached_ >= layout.fragments) {
        consumed_cached_ = layout.fragment_control(peer_base_, own_lane_in_peer_)
                               ->consumed.load(std::memory_order_acquire);
        if (fragments_written_ - consumed_cached_ >= layout.fragments) return events;
      }
      FragmentSlot* slot = layout.slot(peer_base_, own_lane_in_peer_, fragments_written_);
      std::size_t n = std::min<std::uint64_t>(layout.fragment_size, op->wanted - op->sent);
      std::byte* dst = InboxLayout::slot_data(slot);
      if (op->data.contiguous != nullptr) {
        std::memcpy(dst, static_cast<const std::byte*>(op->data.contiguous) + op->sent, n);
      } else {
        op->data.pack(op->data.context, op->sent, dst, n);
      }
      slot->length = n;
      slot->seq.store(++fragments_written_, std::memory_order_release);
      op->sent += n;
      ++events;
      peer_doorbell_->ring();
    }
    Completion done = op->done;
    --offers_out_;
    streams_.pop_front();
    transport_->free_ops_.push_back(id);
    done(ok_status());
  }
  return events;
}

// Empties the fragments the peer filled, into the receive at the head of the queue.
int ShmEndpoint::drain_fragments() {
  const InboxLayout& layout = transport_->layout_;
  FragmentControl* control = layout.fragment_control(own_base_, peer_lane_in_own_);
  int events = 0;
  while (!pulls_.empty()) {
    PullOp& pull = pulls_.front();
    while (pull.received < pull.data.size) {
      FragmentSlot* slot = layout.slot(own_base_, peer_lane_in_own_, fragments_read_);
      if (slot->seq.load(std::memory_order_acquire) != fragments_read_ + 1) return events;
      std::size_t n = slot->length;
      const std::byte* src = InboxLayout::slot_data(slot);
      if (pull.data.contiguous != nullptr) {
        std::memcpy(static_cast<std::byte*>(pull.data.contiguous) + pull.received, src, n);
      } else {
        pull.data.unpack(pull.data.context, pull.received, src, n);
      }
      pull.received += n;
      control->consumed.store(++fragments_read_, std::memory_order_release);
      ++events;
    }
    Completion done = pull.done;
    pulls_.pop_front();
    done(ok_status());
  }
  return events;
}

// ---- ShmTransport ----------------------------------------------------------------------

Result<std::unique_ptr<ShmTransport>> ShmTransport::create(const Config& config,
                                                           PacketHandler handler) {
  InboxLayout layout = layout_for(static_cast<std::uint32_t>(config.local_ranks.size()));
  std::unique_ptr<ShmTransport> t(new ShmTransport(config, handler, layout));
  std::string name = "/gpurun-" + config.job_token + "-" + std::to_string(config.rank);
  bool memfd = params::segment().get() == SegmentKind::kMemfd;
  GPURUN_ASSIGN_OR_RETURN(t->inbox_, Segment::create(layout.total_bytes(), name, memfd));
  InboxHeader* header = InboxLayout::header(t->inbox_->base());
  header->local_size = layout.local_size;
  header->ring_cells = layout.ring_cells;
  header->fragment_size = layout.fragment_size;
  header->fragments = layout.fragments;
  header->owner_rank = config.rank;
  header->owner_pid = static_cast<std::int32_t>(getpid());
  header->owner_base = reinterpret_cast<std::uint64_t>(t->inbox_->base());
  auto cpus = topo::CpuSet::of_calling_thread();
  header->owner_cpus = cpus.ok() ? cpus.value().key() : 0;
  header->magic = kInboxMagic;
  t->caps_.name = "shm";
  t->caps_.reach = Reach::kHost;
  t->caps_.max_packet = RingWriter(nullptr, nullptr, layout.ring_cells).max_length();
  t->caps_.model = Model{0.1, 40.0};
  t->endpoints_.resize(config.local_ranks.size());
  t->decide_cma();
  header->owner_cma = t->cma_ ? 1 : 0;
  GPURUN_LOG(debug, transport, "shm inbox %zu bytes: ring %u cells, %u fragments of %u bytes",
             layout.total_bytes(), layout.ring_cells, layout.fragments, layout.fragment_size);
  return t;
}

ShmTransport::~ShmTransport() = default;

std::vector<std::byte> ShmTransport::address() const {
  const std::string& d = inbox_->descriptor();
  auto* bytes = reinterpret_cast<const std::byte*>(d.data());
  return std::vector<std::byte>(bytes, bytes + d.size());
}

std::uint32_t ShmTransport::local_index(int rank) const {
  auto it = std::find(config_.local_ranks.begin(), config_.local_ranks.end(), rank);
  return static_cast<std::uint32_t>(it - config_.local_ranks.begin());
}

Result<Endpoint*> ShmTransport::connect(int rank, std::span<const std::byte> address) {
  std::uint32_t peer_index = local_index(rank);
  if (peer_index >= config_.local_ranks.size() || rank == config_.rank)
    return Status(ErrorCode::kInvalidArgument, "rank " + std::to_string(rank) +
                                                   " is not another rank of this host");
  std::string descriptor(reinterpret_cast<const char*>(address.data()), address.size());
  auto segment = Segment::attach(descriptor);
  if (!segment.ok()) {
    std::string what = "cannot map the inbox of rank " + std::to_string(rank);
    if (segment.status().code() != ErrorCode::kPeerFailed)
      what += " (set GPURUN_SHM_SEGMENT=named when ranks cannot see each other's /proc)";
    return std::move(segment).status().prepend(what);
  }
  void* peer_base = segment.value()->base();
  const InboxHeader* h = InboxLayout::header(peer_base);
  if (h->magic != kInboxMagic || h->ring_cells != layout_.ring_cells ||
      h->fragment_size != layout_.fragment_size || h->fragments != layout_.fragments) {
    return Status(ErrorCode::kInvalidArgument,
                  "rank " + std::to_string(rank) +
                      " laid out its inbox differently: give every rank the same GPURUN_SHM_* knobs");
  }
  auto ep = std::make_unique<ShmEndpoint>();
  std::uint32_t own_index = local_index(config_.rank);
  ep->transport_ = this;
  ep->peer_rank_ = rank;
  ep->peer_pid_ = h->owner_pid;
  std::uint64_t own_cpus = InboxLayout::header(inbox_->base())->owner_cpus;
  ep->peer_alongside_ = own_cpus != 0 && h->owner_cpus != 0 && own_cpus != h->owner_cpus;
  ep->peer_base_ = peer_base;
  ep->own_base_ = inbox_->base();
  ep->own_lane_in_peer_ = own_index;
  ep->peer_lane_in_own_ = peer_index;
  ep->peer_doorbell_ = InboxLayout::doorbell(peer_base);
  ep->writer_ = RingWriter(layout_.ring_control(peer_base, own_index),
                           layout_.cells(peer_base, own_index), layout_.ring_cells);
  ep->reader_ = RingReader(layout_.ring_control(inbox_->base(), peer_index),
                           layout_.cells(inbox_->base(), peer_index), layout_.ring_cells);
  // The ring this rank writes in the peer's inbox and the one it reads in its own, mapped now:
  // their first pass took a page fault a page on each side (osu_bw -np 2, 1 B: the first 6400
  // messages at 9.7 M/s against 24 M/s after them, 76 faults). Not the fragments: a large
  // message's first pass pays for its few pages among many bytes.
  std::size_t ring = sizeof(RingControl) + std::size_t{layout_.ring_cells} * sizeof(Cell);
  segment.value()->populate(layout_.lane(peer_base, own_index), ring);
  inbox_->populate(layout_.lane(inbox_->base(), peer_index), ring);
  ep->peer_inbox_ = std::move(segment).value();
  if (cma_timed_here_ && rank == config_.local_ranks.front()) adopt_cma_of_first(h->owner_cma);
  ep->cma_ = cma_ && cma_reaches(h->owner_pid, h->owner_base, rank);
  InboxLayout::header(peer_base)->attached.fetch_add(1, std::memory_order_acq_rel);
  Endpoint* out = ep.get();
  active_.push_back(ep.get());
  endpoints_[peer_index] = std::move(ep);
  return out;
}

int ShmTransport::progress() {
  int events = 0;
  for (ShmEndpoint* ep : active_) {
    for (int n = 0; n < kBatch; ++n) {
      const Cell* cell = ep->reader_.peek();
      if (cell == nullptr) break;
      if (cell->header.type >= kTransportTypes) [[unlikely]] {
        handle_control(*ep, *cell);
      } else {
        handler_.fn(handler_.context,
                    Packet{ep->peer_rank_, &cell->header, payload_of(cell), cell->length});
      }
      ep->reader_.pop(cell);
      ++events;
    }
    if (ep->busy_) [[unlikely]] {
      events += ep->flush_controls() + ep->push_fragments() + ep->drain_fragments();
      ep->update_busy();
    }
  }
  // Once every peer mapped a named inbox, its name can go: nothing is left behind.
  if (inbox_->named() && InboxLayout::header(inbox_->base())->attached.load(
                              std::memory_order_acquire) + 1 >= config_.local_ranks.size())
    inbox_->unlink();
  return events;
}

bool ShmTransport::quiescent() const {
  auto attached = InboxLayout::header(inbox_->base())->attached.load(std::memory_order_acquire);
  return attached + 1 >= config_.local_ranks.size();
}

void ShmTransport::handle_control(ShmEndpoint& ep, const Cell& cell) {
  const std::byte* payload = payload_of(&cell);
  if (cell.header.type == kCts) {
    CtsPayload cts;
    std::memcpy(&cts, payload, sizeof cts);
    SendOp& op = ops_[cts.id];
    op.wanted = std::min<std::uint64_t>(cts.wanted, op.data.size);
    op.active = true;
    ep.streams_.push_back(cts.id);
    ep.busy_ = true;
    ep.push_fragments();
  } else if (cell.header.type == kCmaCts) {
    CmaCtsPayload cts;
    std::memcpy(&cts, payload, sizeof cts);
    ep.cma_write(cts);
  } else if (cell.header.type == kWrote) {
    std::uint64_t code;
    std::memcpy(&code, payload, sizeof code);
    CmaWait wait = std::move(ep.cma_waits_.front());
    ep.cma_waits_.pop_front();
    if (code != 0 && wait.status.ok())
      wait.status = Status(ErrorCode::kInternal, "rank " + std::to_string(ep.peer_rank_) +
                                                     " could not write its share (CMA)");
    wait.done(std::move(wait.status));
  } else if (cell.header.type == kFin) {
    std::uint64_t id;
    std::memcpy(&id, payload, sizeof id);
    Completion done = ops_[id].done;
    --ep.offers_out_;
    free_ops_.push_back(id);
    done(ok_status());
  }
}

// Whether large messages go by CMA (split between the two sides' cores: process_vm_readv by
// the receiver, process_vm_writev by the sender) rather than the fragment pipeline. The
// pipeline copies every byte twice through shared slots whose lines move between the cores;
// a CMA copy is single but pays the kernel's page pinning, which in some virtual machines makes
// it several times slower than a memcpy. auto follows gpurun's copy probe, which timed both
// between two cores and told every rank of the host the same answer. Without one (other
// launchers) each rank compares a CMA copy with a memcpy itself; near the threshold ranks
// can decide apart (on a 2-core AMD EPYC the ratio sat at 3.5-4.6 and flipped between runs).
void ShmTransport::decide_cma() {
  CmaMode mode = params::cma().get();
  if (mode == CmaMode::kOff || config_.local_ranks.size() < 2) return;
  if (mode == CmaMode::kOn) {
    cma_ = true;
    return;
  }
  if (config_.cma_wins) {
    cma_ = *config_.cma_wins;
    GPURUN_LOG(info, transport, "shm: large messages by %s (the host's copy probe)",
               cma_ ? "CMA single copy" : "fragment pipeline");
    return;
  }
  constexpr std::size_t kBytes = 256 << 10;
  std::vector<std::byte> src(kBytes, std::byte{1}), dst(kBytes, std::byte{0});
  std::int64_t copy_ns = INT64_MAX, cma_ns = INT64_MAX;
  for (int round = 0; round < 3; ++round) {
    std::int64_t t0 = clock::now_ns();
    std::memcpy(dst.data(), src.data(), kBytes);
    std::int64_t t1 = clock::now_ns();
    iovec local{dst.data(), kBytes}, remote{src.data(), kBytes};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(kBytes)) {
      GPURUN_LOG(info, transport, "shm: process_vm_readv unavailable (%m); large messages by "
                 "fragment pipeline");
      return;
    }
    std::int64_t t2 = clock::now_ns();
    copy_ns = std::min(copy_ns, t1 - t0);
    cma_ns = std::min(cma_ns, t2 - t1);
  }
  // Split CMA moves data at about twice one CMA copy (both cores copy); the pipeline at about
  // half a cache-resident memcpy (each byte is copied twice and crosses between the cores).
  cma_ = cma_ns <= 4 * copy_ns;
  cma_timed_here_ = true;
  GPURUN_LOG(info, transport, "shm: large messages by %s (256K: CMA %.1f GB/s, memcpy %.1f GB/s)",
             cma_ ? "CMA single copy" : "fragment pipeline", kBytes / static_cast<double>(cma_ns),
             kBytes / static_cast<double>(copy_ns));
}

// Where each rank timed CMA itself, the ranks of a host could decide apart (near the threshold
// the ratio flips between runs), and a pair that did moved every large message the slow way one
// way round (osu_latency -np 2 1M: 111-515 us against 42-47 with both on CMA). So a rank takes
// the choice of the host's first rank, whose inbox it maps first (api/wiring.cc connects the
// local ranks in order), before any endpoint uses it.
void ShmTransport::adopt_cma_of_first(std::uint32_t first_cma) {
  cma_timed_here_ = false;
  bool first = first_cma != 0;
  if (first == cma_) return;
  cma_ = first;
  InboxLayout::header(inbox_->base())->owner_cma = first ? 1 : 0;
  GPURUN_LOG(info, transport, "shm: large messages by %s, as rank %d of this host timed it",
             first ? "CMA single copy" : "fragment pipeline", config_.local_ranks.front());
}

std::uint64_t ShmTransport::add_op(SendOp op) {
  if (!free_ops_.empty()) {
    std::uint64_t id = free_ops_.back();
    free_ops_.pop_back();
    ops_[id] = op;
    return id;
  }
  ops_.push_back(op);
  return ops_.size() - 1;
}

}  // namespace gpurun::transport::shm
