#include "cuda/ipc/cuda_ipc_transport.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>

#include "cuda/ipc/address.h"
#include "cuda/ipc/params.h"
#include "cuda/ipc/transport_ops.h"
#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {
namespace {

HandleFilter handle_filter() {
  const param::List& list = params::handles().get();
  return HandleFilter{list.selects("legacy"), list.selects("vmm"), list.selects("pool")};
}

CacheLimits cache_limits() {
  return CacheLimits{static_cast<std::size_t>(params::cache_size().get().bytes),
                     static_cast<std::size_t>(std::max(1, params::cache_entries().get()))};
}

bool is_device(const transport::Data& data) { return data.kind == accel::MemoryKind::kCudaDevice; }

}  // namespace

// ---- CudaIpcEndpoint --------------------------------------------------------------------

Result<transport::BulkCookie> CudaIpcEndpoint::offer(const transport::Data& data,
                                                     transport::Completion done) {
  if (!is_device(data) || data.size == 0) return host_->offer(data, done);
  return transport_->offer_device(*this, data, done);
}

Status CudaIpcEndpoint::pull(const transport::BulkCookie& cookie, const transport::Data& data,
                             transport::Completion done) {
  if (is_ipc_cookie(cookie)) return transport_->pull_ipc(*this, cookie, data, done);
  return transport_->pull_host(*this, cookie, data, done);
}

// ---- CudaIpcTransport -------------------------------------------------------------------

CudaIpcTransport::CudaIpcTransport(Config config, DriverSource driver)
    : config_(std::move(config)),
      gpu_(std::move(driver)),
      staging_(gpu_),
      exporter_(gpu_, handle_filter()),
      cache_(cache_limits(), [this](const CacheEntry& e) { unmap(e); }) {}

Result<std::unique_ptr<CudaIpcTransport>> CudaIpcTransport::create(const Config& config,
                                                                   DriverSource driver) {
  std::unique_ptr<CudaIpcTransport> t(new CudaIpcTransport(config, std::move(driver)));
  auto slots = static_cast<std::uint32_t>(std::clamp(params::slots().get(), 1, 4096));
  std::string name = "/gpurun-" + config.job_token + "-cuda_ipc-" + std::to_string(config.rank);
  GPURUN_ASSIGN_OR_RETURN(
      t->table_, Table::create(static_cast<std::uint32_t>(config.local_ranks.size()), slots,
                               config.rank, name));
  t->unlink_pending_ = true;
  t->gpu_.set_chunk_bytes(std::max<std::size_t>(
      4096, static_cast<std::size_t>(params::stage_chunk().get().bytes) / 4096 * 4096));
  t->min_size_ = static_cast<std::size_t>(params::min_size().get().bytes);
  Status socket = t->open_socket();
  if (!socket.ok())
    GPURUN_LOG(info, transport, "cuda_ipc: no fd socket (%s): VMM and pool buffers will be staged",
               socket.to_string().c_str());
  t->caps_.name = "cuda_ipc";
  t->caps_.reach = transport::Reach::kHost;
  t->caps_.host_memory = false;
  t->caps_.device_memory = true;
  t->caps_.max_packet = config.max_packet;
  // One handshake through shared memory and a copy-engine launch; the copy itself runs at
  // device-to-device speed (same GPU) or NVLink/PCIe speed.
  t->caps_.model = transport::Model{8.0, 150.0};
  t->endpoints_.resize(config.local_ranks.size());
  return t;
}

// The socket lives in the job's private directory, or in one of our own (mode 0700) when the
// launcher gave none; either way its name comes from the job token and the rank.
Status CudaIpcTransport::open_socket() {
  std::string dir = config_.job_dir;
  if (dir.empty()) {
    std::string tmp = param::external_env("TMPDIR").value_or("/tmp");
    std::string pattern = tmp + "/gpurun-ipc-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return errno_status("mkdtemp " + pattern, errno);
    dir = own_dir_ = pattern;
  }
  std::string path = dir + "/cuda_ipc-" + config_.job_token + "-" + std::to_string(config_.rank);
  GPURUN_ASSIGN_OR_RETURN(listener_, FdListener::create(path));
  return ok_status();
}

CudaIpcTransport::~CudaIpcTransport() {
  if (gpu_.is_ready()) {
    Gpu::Scope scope(gpu_);
    // Pulls still in flight belong to requests nobody waits for any more: their copies end
    // before the mappings go, and no completion runs.
    for (auto& op : pulls_) {
      if (op->event != nullptr) gpu_.api().event_synchronize(op->event);
      release_pull(*op);
    }
    cache_.clear();
    for (auto& [key, pool] : pools_) gpu_.api().mem_pool_destroy(pool);
  }
  listener_.reset();
  if (!own_dir_.empty()) rmdir(own_dir_.c_str());
}

std::uint32_t CudaIpcTransport::local_index(int rank) const {
  auto it = std::find(config_.local_ranks.begin(), config_.local_ranks.end(), rank);
  return static_cast<std::uint32_t>(it - config_.local_ranks.begin());
}

std::vector<std::byte> CudaIpcTransport::address() const {
  return encode_address(PeerAddress{config_.rank, table_->descriptor(),
                                    listener_ ? listener_->path() : std::string()});
}

Result<transport::Endpoint*> CudaIpcTransport::connect(int rank, std::span<const std::byte>) {
  return Status(ErrorCode::kUnsupported, "cuda_ipc connects to rank " + std::to_string(rank) +
                                             " only over its shm endpoint");
}

Result<transport::Endpoint*> CudaIpcTransport::connect(int rank, std::span<const std::byte> address,
                                                       transport::Endpoint* host,
                                                       progress::Doorbell* peer_doorbell) {
  std::uint32_t index = local_index(rank);
  if (index >= config_.local_ranks.size() || rank == config_.rank || host == nullptr)
    return Status(ErrorCode::kInvalidArgument,
                  "cuda_ipc: rank " + std::to_string(rank) + " is not another rank of this host");
  GPURUN_ASSIGN_OR_RETURN(PeerAddress peer, decode_address(address));
  if (peer.rank != rank)
    return Status(ErrorCode::kInvalidArgument, "cuda_ipc address of rank " +
                                                   std::to_string(peer.rank) + " given for rank " +
                                                   std::to_string(rank));
  auto table = Table::attach(peer.table);
  if (!table.ok())
    return std::move(table).status().prepend("cuda_ipc: cannot map the table of rank " +
                                             std::to_string(rank));
  auto ep = std::make_unique<CudaIpcEndpoint>();
  ep->transport_ = this;
  ep->peer_rank_ = rank;
  ep->peer_index_ = index;
  ep->own_index_ = local_index(config_.rank);
  ep->host_ = host;
  ep->peer_doorbell_ = peer_doorbell;
  ep->peer_table_ = std::move(table).value();
  ep->peer_socket_ = peer.socket;
  for (std::uint32_t s = table_->slots(); s-- > 0;) ep->free_slots_.push_back(s);
  transport::Endpoint* out = ep.get();
  endpoints_[index] = std::move(ep);
  return out;
}

int CudaIpcTransport::progress() {
  if (offers_.empty() && pulls_.empty() && !unlink_pending_) [[likely]]
    return 0;
  if (unlink_pending_) {
    table_->unlink_when_attached();
    unlink_pending_ =
        table_->header().attached.load(std::memory_order_acquire) + 1 < config_.local_ranks.size();
  }
  return progress_offers() + progress_pulls();
}

void CudaIpcTransport::refuse(int rank, std::string reason) {
  std::uint32_t index = local_index(rank);
  if (index >= endpoints_.size() || !endpoints_[index]) return;
  GPURUN_LOG(info, transport, "peer %d: device buffers staged: %s", rank, reason.c_str());
  endpoints_[index]->refusal_ = std::move(reason);
}

std::optional<std::string> CudaIpcTransport::refusal(int rank) const {
  std::uint32_t index = local_index(rank);
  if (index >= endpoints_.size() || !endpoints_[index]) return "not a peer on this host";
  const CudaIpcEndpoint& ep = *endpoints_[index];
  if (!ep.refusal_.empty()) return ep.refusal_;
  if (table_->lane(index).refused.load(std::memory_order_relaxed) != 0)
    return "rank " + std::to_string(rank) + " cannot map this rank's GPU memory (see its log)";
  return std::nullopt;
}

void CudaIpcTransport::unmap(const CacheEntry& e) {
  Gpu::Scope scope(gpu_);
  Driver& api = gpu_.api();
  CUresult r;
  if (static_cast<HandleKind>(e.kind) == HandleKind::kLegacy) {
    r = api.ipc_close_mem_handle(e.mapped);
  } else {
    r = api.mem_unmap(e.mapped, e.range_size);
    if (r == CUDA_SUCCESS) r = api.mem_address_free(e.mapped, e.range_size);
  }
  if (r != CUDA_SUCCESS)
    GPURUN_LOG(warn, cuda, "cuda_ipc: unmapping buffer %llu of rank %d: %s",
               static_cast<unsigned long long>(e.buffer_id), e.peer, api.error_string(r).c_str());
}

}  // namespace gpurun::cuda::ipc
