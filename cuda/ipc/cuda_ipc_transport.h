// The cuda_ipc transport: device buffers between the ranks of one host, read by the receiver
// straight from the sender's GPU memory through CUDA IPC (one copy, on the copy engines, over
// NVLink or PCIe peer-to-peer when the GPUs differ), and a staging path through pinned host
// memory for what IPC cannot serve.
//
// It moves bulk data only. Its endpoint to a peer sits on top of the shm endpoint to the same
// peer (given at connect): packets, host buffers and staged device buffers go through that
// endpoint; device buffers of at least GPURUN_CUDA_IPC_MIN_SIZE go by IPC:
//   offer():  the sender writes the descriptor of the allocation holding the buffer into a slot
//             of its export table (table.h) and returns a cookie naming the slot;
//   pull():   the receiver reads the descriptor, maps the allocation (legacy IPC handle, or a
//             VMM / pool fd that the sender passes over a Unix socket when asked), through the
//             cache of imported mappings, and copies with cuMemcpyAsync on its internal stream;
//   progress(): the receiver completes the pull when the copy's event has fired and marks the
//             slot done; the sender then completes the offer.
// When the receiver cannot map the sender's memory (GPU not visible, no peer access, a failed
// import), it says so in the slot and the sender offers the data through the shm endpoint,
// staged; the reason is logged once per peer, and later offers to that peer are staged at once.
//
// Cookies of IPC offers are told from the shm transport's (is_ipc_cookie), so the receiver's
// endpoint serves both. No CUDA call is made before the first device buffer.
//
// Threading: one thread at a time (transport.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/ipc/cache.h"
#include "cuda/ipc/exporter.h"
#include "cuda/ipc/fd_channel.h"
#include "cuda/ipc/gpu.h"
#include "cuda/ipc/staging.h"
#include "cuda/ipc/table.h"
#include "runtime/progress/progress.h"
#include "runtime/transport/transport.h"

namespace gpurun::cuda::ipc {

struct Config {
  int rank = 0;                  // this process's job rank
  std::vector<int> local_ranks;  // job ranks on this host, ascending, this one included
  std::string job_token;         // names the export table's segment and the socket
  std::string job_dir;           // private per-job directory for the socket; empty: our own
  std::size_t max_packet = 0;    // the host endpoints' packet size (shm's caps)
};

class CudaIpcTransport;

class CudaIpcEndpoint final : public transport::Endpoint {
 public:
  // Packets go through the shm endpoint.
  Status send(const transport::PacketHeader& header, const void* payload,
              std::size_t length) override {
    return host_->send(header, payload, length);
  }
  // Device buffers by IPC (or staged); host and managed buffers through the shm endpoint.
  Result<transport::BulkCookie> offer(const transport::Data& data,
                                      transport::Completion done) override;
  // IPC cookies by IPC; shm cookies through the shm endpoint (staged into device buffers).
  Status pull(const transport::BulkCookie& cookie, const transport::Data& data,
              transport::Completion done) override;
  // The peer left: its offers by IPC (and those that fell back to staging) are dropped without
  // their completions, except those it finished reading before it left, which complete now.
  // Offers staged from the start ride on the shm endpoint, which forgets them itself (their
  // staging chunks stay taken). False if the shm endpoint cannot forget.
  bool forget_offers() override;

  int peer_rank() const { return peer_rank_; }

 private:
  friend class CudaIpcTransport;
  void ring() {
    if (peer_doorbell_ != nullptr) peer_doorbell_->ring();
  }

  CudaIpcTransport* transport_ = nullptr;
  int peer_rank_ = -1;
  std::uint32_t peer_index_ = 0;  // the peer's local index: its lane in our table
  std::uint32_t own_index_ = 0;   // ours: our lane in its table
  transport::Endpoint* host_ = nullptr;
  progress::Doorbell* peer_doorbell_ = nullptr;
  std::unique_ptr<Table> peer_table_;
  std::string peer_socket_;                // empty: the peer takes no fds
  std::unique_ptr<FdSender> fd_sender_;    // connected on first use
  std::vector<std::uint32_t> free_slots_;  // of its lane in our table
  std::string refusal_;                    // why device data to it is staged; empty: IPC
  bool device_checked_ = false;            // the GPU it offers from was checked
  unsigned char checked_uuid_[16] = {};    // ... which GPU that was
  std::string device_refusal_;             // ... and why it cannot be mapped, if so
  bool warned_ = false;
};

class CudaIpcTransport final : public transport::Transport {
 public:
  // Creates the export table and the fd socket; makes no CUDA call. `driver` is asked for the
  // driver on first need (tests give a fake).
  static Result<std::unique_ptr<CudaIpcTransport>> create(const Config& config,
                                                          DriverSource driver = system_driver);
  ~CudaIpcTransport() override;

  const transport::Caps& caps() const override { return caps_; }
  std::vector<std::byte> address() const override;
  // cuda_ipc needs the shm endpoint to the peer: use the other connect.
  Result<transport::Endpoint*> connect(int rank, std::span<const std::byte> address) override;
  // The endpoint to `rank`, over `host` (the shm endpoint to it). `peer_doorbell`, when given,
  // is rung after every answer the peer waits for.
  Result<transport::Endpoint*> connect(int rank, std::span<const std::byte> address,
                                       transport::Endpoint* host,
                                       progress::Doorbell* peer_doorbell = nullptr);
  int progress() override;
  // No peer still has to read this rank's memory.
  bool quiescent() const override { return offers_.empty(); }

  // Device buffers to `rank` are staged from now on, for `reason` (the path policy refused
  // cuda_ipc: "peer access off between GPU 0 and GPU 3 (...)").
  void refuse(int rank, std::string reason);
  // Why device buffers to `rank` are staged, or nullopt while IPC serves them.
  std::optional<std::string> refusal(int rank) const;
  // Copies between host and device memory, for eager device messages (waits for the copy).
  Status copy(void* dst, const void* src, std::size_t bytes) {
    return gpu_.copy_sync(dst, src, bytes);
  }

  const ImportCache& cache() const { return cache_; }
  std::size_t exported_buffers() const { return exporter_.registered(); }

 private:
  friend class CudaIpcEndpoint;
  struct OfferOp;
  struct PullOp;
  CudaIpcTransport(Config config, DriverSource driver);
  std::uint32_t local_index(int rank) const;
  Status open_socket();

  // Sending (offers.cc).
  Result<transport::BulkCookie> offer_device(CudaIpcEndpoint& ep, const transport::Data& data,
                                             transport::Completion done);
  Result<transport::BulkCookie> offer_staged(CudaIpcEndpoint& ep, const transport::Data& data,
                                             transport::Completion done);
  bool offer_refused(CudaIpcEndpoint& ep);
  void post_releases();
  int progress_offers();
  Result<int> export_fd(OfferOp& op);
  Status pass_fd(OfferOp& op, int fd);
  void fall_back(OfferOp& op);
  void finish_offer(OfferOp* op, Status status);
  void finish_read(OfferOp* op, SlotState state);
  void forget_offers_to(CudaIpcEndpoint& ep);  // see CudaIpcEndpoint::forget_offers
  static void staged_offer_done(void* op, Status status);

  // Receiving (pulls.cc).
  Status pull_ipc(CudaIpcEndpoint& ep, const transport::BulkCookie& cookie,
                  const transport::Data& data, transport::Completion done);
  Status pull_host(CudaIpcEndpoint& ep, const transport::BulkCookie& cookie,
                   const transport::Data& data, transport::Completion done);
  PullOp& add_pull(CudaIpcEndpoint& ep, Slot& slot, const transport::Data& data,
                   transport::Completion done);
  Status ready_for(const PullOp& op);
  void drain_releases(CudaIpcEndpoint& ep);
  std::optional<std::string> check_device(CudaIpcEndpoint& ep, const Descriptor& d);
  void start_pull(PullOp& op);
  Status import_and_copy(PullOp& op, int fd);
  Status open_legacy(const Descriptor& d, int peer, CUdeviceptr& mapped);
  Status map_cached(PullOp& op, int fd, bool& need_fd);
  Status map_pool(PullOp& op, int fd, bool& need_fd);
  Status start_copy(PullOp& op, CUdeviceptr src);
  void refuse_pull(PullOp& op, const std::string& reason, bool whole_peer);
  int progress_pulls();
  bool advance_pull(PullOp& op);
  void finish_pull(PullOp& op, Status status);
  void release_pull(PullOp& op);
  void recycle_pull(PullOp& op);
  void unmap(const CacheEntry& entry);

  Config config_;
  transport::Caps caps_;
  Gpu gpu_;
  Staging staging_;
  Exporter exporter_;
  ImportCache cache_;
  std::unique_ptr<Table> table_;
  std::unique_ptr<FdListener> listener_;
  std::string own_dir_;  // a directory we made for the socket (no job directory), removed at end
  std::vector<std::unique_ptr<CudaIpcEndpoint>> endpoints_;  // by local index
  std::vector<std::unique_ptr<OfferOp>> offers_;             // waiting for the peer
  std::vector<std::unique_ptr<PullOp>> pulls_;               // in flight
  std::vector<std::unique_ptr<PullOp>> free_pulls_;
  std::map<std::pair<int, std::uint64_t>, CUmemoryPool> pools_;  // imported, by (peer, pool id)
  std::size_t min_size_ = 0;
  bool unlink_pending_ = false;
};

}  // namespace gpurun::cuda::ipc
