// The receiving side of the cuda_ipc transport: pulls of data offered by IPC (map the owner's
// allocation through the cache, copy on the internal stream, report done), pulls of staged
// data into device buffers, and the refusals that make the owner stage instead.
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "cuda/ipc/transport_ops.h"
#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {
namespace {

bool is_device(const transport::Data& data) { return data.kind == accel::MemoryKind::kCudaDevice; }

void set_state(Slot& slot, SlotState state) {
  slot.state.store(static_cast<std::uint32_t>(state), std::memory_order_release);
}

// Maps a VMM allocation from its fd (closed here) read-write for `device`.
Status import_vmm(Driver& api, int fd, std::size_t size, CUdevice device, CUdeviceptr& out) {
  CUmemGenericAllocationHandle handle{};
  CUresult r = api.mem_import_from_fd(&handle, fd);
  close(fd);
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemImportFromShareableHandle", r);
  CUdeviceptr ptr = 0;
  r = api.mem_address_reserve(&ptr, size);
  if (r != CUDA_SUCCESS) {
    api.mem_release(handle);
    return cuda_status(api, "cuMemAddressReserve", r);
  }
  r = api.mem_map(ptr, size, handle);
  api.mem_release(handle);  // the mapping holds the allocation from now on
  if (r != CUDA_SUCCESS) {
    api.mem_address_free(ptr, size);
    return cuda_status(api, "cuMemMap", r);
  }
  r = api.mem_set_access(ptr, size, device);
  if (r != CUDA_SUCCESS) {
    api.mem_unmap(ptr, size);
    api.mem_address_free(ptr, size);
    return cuda_status(api, "cuMemSetAccess", r);
  }
  out = ptr;
  return ok_status();
}

}  // namespace

Status CudaIpcTransport::pull_host(CudaIpcEndpoint& ep, const transport::BulkCookie& cookie,
                                   const transport::Data& data, transport::Completion done) {
  if (!is_device(data) || data.size == 0) return ep.host_->pull(cookie, data, done);
  Status ready = gpu_.ready(data.contiguous);
  if (!ready.ok()) return ready.prepend("cuda_ipc: a device buffer, but CUDA is not usable");
  GPURUN_ASSIGN_OR_RETURN(StagedTransfer * t,
                          staging_.start(StagedTransfer::Direction::kReceive, data, done));
  Status st = ep.host_->pull(cookie, t->data(), t->completion());
  if (!st.ok()) staging_.abandon(t);
  return st;
}

Status CudaIpcTransport::pull_ipc(CudaIpcEndpoint& ep, const transport::BulkCookie& cookie,
                                  const transport::Data& data, transport::Completion done) {
  std::uint32_t index = cookie_slot(cookie);
  if (index >= ep.peer_table_->slots())
    return Status(ErrorCode::kInvalidArgument, "cuda_ipc cookie names no slot");
  Slot& slot = ep.peer_table_->slot(ep.own_index_, index);
  auto state = static_cast<SlotState>(slot.state.load(std::memory_order_acquire));
  if (state != SlotState::kOffered || slot.generation != cookie_generation(cookie))
    return Status(ErrorCode::kInternal,
                  "stale cuda_ipc cookie from rank " + std::to_string(ep.peer_rank_));
  drain_releases(ep);
  PullOp& op = add_pull(ep, slot, data, done);
  if (data.size == 0) {
    finish_pull(op, ok_status());
    return ok_status();
  }
  if (data.contiguous == nullptr) {
    refuse_pull(op, "a non-contiguous receive buffer", false);
    return ok_status();
  }
  Status ready = ready_for(op);
  if (!ready.ok()) {
    refuse_pull(op, "CUDA is not usable here: " + ready.to_string(), true);
  } else if (auto why = check_device(ep, op.descriptor)) {
    refuse_pull(op, *why, true);
  } else {
    start_pull(op);
  }
  return ok_status();
}

CudaIpcTransport::PullOp& CudaIpcTransport::add_pull(CudaIpcEndpoint& ep, Slot& slot,
                                                     const transport::Data& data,
                                                     transport::Completion done) {
  std::unique_ptr<PullOp> owned;
  if (free_pulls_.empty()) {
    owned = std::make_unique<PullOp>();
  } else {
    owned = std::move(free_pulls_.back());
    free_pulls_.pop_back();
  }
  *owned = PullOp{};
  owned->ep = &ep;
  owned->slot = &slot;
  owned->descriptor = slot.descriptor;
  owned->data = data;
  owned->done = done;
  pulls_.push_back(std::move(owned));
  return *pulls_.back();
}

// The transport's context for a pull: the destination's when it is device memory; for host
// memory, with nothing on a device here yet, the primary context of the owner's GPU.
Status CudaIpcTransport::ready_for(const PullOp& op) {
  if (is_device(op.data)) return gpu_.ready(op.data.contiguous);
  if (gpu_.is_ready()) return ok_status();
  GPURUN_TRY(gpu_.driver());
  return gpu_.ready(nullptr, nullptr, std::max(0, gpu_.ordinal_of(op.descriptor.device_uuid)));
}

void CudaIpcTransport::drain_releases(CudaIpcEndpoint& ep) {
  LaneControl& lane = ep.peer_table_->lane(ep.own_index_);
  std::uint64_t head = lane.released_head.load(std::memory_order_acquire);
  std::uint64_t tail = lane.released_tail.load(std::memory_order_relaxed);
  if (tail == head) return;
  for (; tail < head; ++tail) cache_.release(ep.peer_rank_, lane.released[tail % kReleaseRing]);
  lane.released_tail.store(tail, std::memory_order_release);
}

// Why this rank cannot map memory of the GPU that `d` names, or nullopt when it can (the same
// GPU, or peer access to it); checked once per peer and GPU.
std::optional<std::string> CudaIpcTransport::check_device(CudaIpcEndpoint& ep,
                                                          const Descriptor& d) {
  if (ep.device_checked_ && std::memcmp(ep.checked_uuid_, d.device_uuid, 16) == 0) {
    if (ep.device_refusal_.empty()) return std::nullopt;
    return ep.device_refusal_;
  }
  ep.device_checked_ = true;
  std::memcpy(ep.checked_uuid_, d.device_uuid, 16);
  ep.device_refusal_.clear();
  if (std::memcmp(gpu_.uuid().bytes, d.device_uuid, 16) == 0) return std::nullopt;
  int theirs = gpu_.ordinal_of(d.device_uuid);
  std::string peer = "rank " + std::to_string(ep.peer_rank_);
  if (theirs < 0) {
    ep.device_refusal_ = "the GPU of " + peer +
                         " is not visible to this rank (CUDA_VISIBLE_DEVICES): IPC needs both "
                         "GPUs visible";
    return ep.device_refusal_;
  }
  CUdevice device;
  int can = 0;
  Driver& api = gpu_.api();
  if (api.device_get(&device, theirs) != CUDA_SUCCESS ||
      api.device_can_access_peer(&can, gpu_.device(), device) != CUDA_SUCCESS || can == 0)
    ep.device_refusal_ = "no peer access from GPU " + std::to_string(gpu_.device()) + " to GPU " +
                         std::to_string(theirs) + " of " + peer +
                         " (cuDeviceCanAccessPeer); set GPURUN_TOPO_P2P=0 to stage at once";
  if (ep.device_refusal_.empty()) return std::nullopt;
  return ep.device_refusal_;
}

void CudaIpcTransport::start_pull(PullOp& op) {
  Status st = import_and_copy(op, -1);
  if (!st.ok()) refuse_pull(op, st.to_string(), false);
}

// Maps the owner's allocation (fd: one just received, or -1) and starts the copy; or, when
// an fd is needed that has not come, asks the owner for it.
Status CudaIpcTransport::import_and_copy(PullOp& op, int fd) {
  Gpu::Scope scope(gpu_);
  bool need_fd = false;
  if (op.descriptor.kind == HandleKind::kPool) {
    GPURUN_TRY(map_pool(op, fd, need_fd));
  } else {
    GPURUN_TRY(map_cached(op, fd, need_fd));
  }
  if (need_fd) {
    op.stage = PullOp::Stage::kWaitFd;
    set_state(*op.slot, SlotState::kNeedFd);
    op.ep->ring();
    return ok_status();
  }
  CUdeviceptr base = op.descriptor.kind == HandleKind::kPool ? op.pool_ptr : op.entry->mapped;
  return start_copy(op, base + op.descriptor.offset);
}

// Opens a legacy handle of `peer`. A mapping of memory the peer freed since, overlapping the
// new range, makes the driver refuse the handle (CUDA_ERROR_ALREADY_MAPPED) when the peer has
// reused the addresses: such mappings are closed first (the release notice that would have
// closed them may have been dropped), and on that error every unused mapping of the peer is
// closed and the handle tried once more.
Status CudaIpcTransport::open_legacy(const Descriptor& d, int peer, CUdeviceptr& mapped) {
  Driver& api = gpu_.api();
  CUipcMemHandle handle;
  std::memcpy(&handle, d.handle, sizeof handle);
  cache_.drop_overlapping(peer, d.buffer_id, d.range_start, d.range_size);
  CUresult r = api.ipc_open_mem_handle(&mapped, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  if (r == CUDA_ERROR_ALREADY_MAPPED) {
    cache_.release_peer(peer);
    r = api.ipc_open_mem_handle(&mapped, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  }
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuIpcOpenMemHandle", r);
  return ok_status();
}

Status CudaIpcTransport::map_cached(PullOp& op, int fd, bool& need_fd) {
  const Descriptor& d = op.descriptor;
  int peer = op.ep->peer_rank_;
  CacheEntry* entry = cache_.find(peer, d.buffer_id, d.range_start, d.range_size);
  if (entry == nullptr) {
    CacheEntry fresh;
    fresh.peer = peer;
    fresh.buffer_id = d.buffer_id;
    fresh.range_start = d.range_start;
    fresh.range_size = d.range_size;
    fresh.kind = static_cast<std::uint32_t>(d.kind);
    Driver& api = gpu_.api();
    CUdeviceptr mapped = 0;
    if (d.kind == HandleKind::kLegacy) {
      GPURUN_TRY(open_legacy(d, peer, mapped));
    } else {
      if (fd < 0 && listener_)
        fd = listener_->take(peer, static_cast<std::uint32_t>(d.kind), d.buffer_id);
      if (fd < 0) {
        need_fd = true;
        return ok_status();
      }
      GPURUN_TRY(import_vmm(api, fd, d.range_size, gpu_.device(), mapped));
    }
    fresh.mapped = mapped;
    entry = cache_.insert(fresh);
  } else if (fd >= 0) {
    close(fd);
  }
  cache_.pin(entry);
  op.entry = entry;
  return ok_status();
}

// Pool memory is imported per transfer and freed after it: the owner may free it only once
// every importer has, so no mapping of it outlives the offer. The imported pool is kept.
Status CudaIpcTransport::map_pool(PullOp& op, int fd, bool& need_fd) {
  const Descriptor& d = op.descriptor;
  Driver& api = gpu_.api();
  auto key = std::make_pair(op.ep->peer_rank_, d.pool_id);
  auto it = pools_.find(key);
  if (it == pools_.end()) {
    if (fd < 0 && listener_)
      fd = listener_->take(op.ep->peer_rank_, static_cast<std::uint32_t>(d.kind), d.pool_id);
    if (fd < 0) {
      need_fd = true;
      return ok_status();
    }
    CUmemoryPool pool = nullptr;
    CUresult r = api.mem_pool_import_from_fd(&pool, fd);
    close(fd);
    if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemPoolImportFromShareableHandle", r);
    if (std::memcmp(gpu_.uuid().bytes, d.device_uuid, 16) != 0 &&
        (r = api.mem_pool_set_access(pool, gpu_.device())) != CUDA_SUCCESS) {
      api.mem_pool_destroy(pool);
      return cuda_status(api, "cuMemPoolSetAccess", r);
    }
    it = pools_.emplace(key, pool).first;
  } else if (fd >= 0) {
    close(fd);
  }
  CUmemPoolPtrExportData data;
  std::memcpy(&data, d.handle, sizeof data);
  CUresult r = api.mem_pool_import_pointer(&op.pool_ptr, it->second, &data);
  if (r == CUDA_SUCCESS) return ok_status();
  op.pool_ptr = 0;
  if (op.pool_retried) return cuda_status(api, "cuMemPoolImportPointer", r);
  // The pool imported earlier may be one the owner destroyed since: import it afresh.
  op.pool_retried = true;
  api.mem_pool_destroy(it->second);
  pools_.erase(it);
  need_fd = true;
  return ok_status();
}

Status CudaIpcTransport::start_copy(PullOp& op, CUdeviceptr src) {
  Driver& api = gpu_.api();
  GPURUN_ASSIGN_OR_RETURN(op.event, gpu_.take_event());
  CUresult r = api.memcpy_async(reinterpret_cast<CUdeviceptr>(op.data.contiguous), src,
                                op.data.size, gpu_.stream());
  if (r == CUDA_SUCCESS) {
    r = api.event_record(op.event, gpu_.stream());
    // The copy may run: it must end before its mapping can go.
    if (r != CUDA_SUCCESS) api.stream_synchronize(gpu_.stream());
  }
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemcpyAsync", r);
  op.stage = PullOp::Stage::kCopying;
  return ok_status();
}

// This rank will not read the owner's memory for `op`: the owner stages the data instead.
// `whole_peer`: nothing of this owner can be mapped, so it stages everything from now on.
void CudaIpcTransport::refuse_pull(PullOp& op, const std::string& reason, bool whole_peer) {
  release_pull(op);
  CudaIpcEndpoint& ep = *op.ep;
  if (!ep.warned_) {
    ep.warned_ = true;
    GPURUN_LOG(warn, transport,
               "cuda_ipc: cannot read GPU memory of rank %d: %s; staging through host memory",
               ep.peer_rank_, reason.c_str());
  } else {
    GPURUN_LOG(debug, transport, "cuda_ipc: staging from rank %d: %s", ep.peer_rank_,
               reason.c_str());
  }
  if (whole_peer) ep.peer_table_->lane(ep.own_index_).refused.store(1, std::memory_order_relaxed);
  op.stage = PullOp::Stage::kWaitStaged;
  set_state(*op.slot, SlotState::kRefused);
  ep.ring();
}

int CudaIpcTransport::progress_pulls() {
  int events = 0;
  for (std::size_t i = 0; i < pulls_.size();) {
    PullOp* op = pulls_[i].get();
    if (advance_pull(*op)) ++events;
    if (i < pulls_.size() && pulls_[i].get() == op) ++i;
  }
  return events;
}

// Moves one pull along; true when something happened.
bool CudaIpcTransport::advance_pull(PullOp& op) {
  if (op.stage == PullOp::Stage::kCopying) {
    Gpu::Scope scope(gpu_);
    CUresult r = gpu_.api().event_query(op.event);
    if (r == CUDA_ERROR_NOT_READY) return false;
    finish_pull(op, r == CUDA_SUCCESS ? ok_status() : cuda_status(gpu_.api(), "cuMemcpyAsync", r));
    return true;
  }
  auto state = static_cast<SlotState>(op.slot->state.load(std::memory_order_acquire));
  if (state == SlotState::kStaged) {
    // The owner offered the data through the shm endpoint instead: the pull continues there.
    transport::Completion done = op.done;
    transport::Data data = op.data;
    CudaIpcEndpoint& ep = *op.ep;
    transport::BulkCookie cookie = op.slot->fallback;
    release_pull(op);
    recycle_pull(op);
    Status st = pull_host(ep, cookie, data, done);
    if (!st.ok()) {
      GPURUN_LOG(error, transport, "cuda_ipc: staged pull from rank %d failed: %s", ep.peer_rank_,
                 st.to_string().c_str());
      done(std::move(st));
    }
    return true;
  }
  if (op.stage != PullOp::Stage::kWaitFd || state != SlotState::kFdSent || !listener_) return false;
  auto polled = listener_->poll();
  std::uint64_t key =
      op.descriptor.kind == HandleKind::kPool ? op.descriptor.pool_id : op.descriptor.buffer_id;
  int fd = listener_->take(op.ep->peer_rank_, static_cast<std::uint32_t>(op.descriptor.kind), key);
  if (fd < 0) {
    if (!polled.ok()) refuse_pull(op, polled.status().to_string(), false);
    return !polled.ok();
  }
  Status st = import_and_copy(op, fd);
  if (!st.ok()) refuse_pull(op, st.to_string(), false);
  return true;
}

// Marks the slot done (or failed) for the owner, and completes the pull.
void CudaIpcTransport::finish_pull(PullOp& op, Status status) {
  release_pull(op);
  op.slot->error = status.ok() ? 0 : static_cast<std::int32_t>(status.code());
  set_state(*op.slot, status.ok() ? SlotState::kDone : SlotState::kFailed);
  op.ep->ring();
  transport::Completion done = op.done;
  recycle_pull(op);
  done(std::move(status));
}

// Takes `op` out of the pulls in flight; it stays valid (in the free list) until reused.
void CudaIpcTransport::recycle_pull(PullOp& op) {
  auto it = std::find_if(pulls_.begin(), pulls_.end(),
                         [&op](const std::unique_ptr<PullOp>& p) { return p.get() == &op; });
  if (it == pulls_.end()) return;
  free_pulls_.push_back(std::move(*it));
  std::swap(*it, pulls_.back());
  pulls_.pop_back();
}

void CudaIpcTransport::release_pull(PullOp& op) {
  if (op.entry != nullptr) {
    cache_.unpin(op.entry);
    op.entry = nullptr;
  }
  if (op.pool_ptr != 0) {
    Gpu::Scope scope(gpu_);
    gpu_.api().mem_free(op.pool_ptr);
    op.pool_ptr = 0;
  }
  if (op.event != nullptr) {
    gpu_.give_event(op.event);
    op.event = nullptr;
  }
}

}  // namespace gpurun::cuda::ipc
