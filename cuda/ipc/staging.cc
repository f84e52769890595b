#include "cuda/ipc/staging.h"

#include <algorithm>
#include <cstring>

#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {

// ---- StagedTransfer ---------------------------------------------------------------------

transport::Data StagedTransfer::data() {
  transport::Data d;
  d.size = user_.size;
  d.contiguous = nullptr;  // the shm transport must call pack/unpack
  d.pack = pack_thunk;
  d.unpack = unpack_thunk;
  d.context = this;
  d.kind = user_.kind;
  return d;
}

transport::Completion StagedTransfer::completion() {
  return transport::Completion{done_thunk, this};
}

std::size_t StagedTransfer::pack_thunk(void* self, std::size_t offset, void* dst,
                                       std::size_t length) {
  return static_cast<StagedTransfer*>(self)->pack(offset, static_cast<std::byte*>(dst), length);
}

std::size_t StagedTransfer::unpack_thunk(void* self, std::size_t offset, const void* src,
                                         std::size_t length) {
  return static_cast<StagedTransfer*>(self)->unpack(offset, static_cast<const std::byte*>(src),
                                                    length);
}

void StagedTransfer::done_thunk(void* self, Status status) {
  auto* t = static_cast<StagedTransfer*>(self);
  Staging* staging = t->staging_;
  if (t->acquired_) {
    Gpu::Scope scope(staging->gpu_);
    // A prefetch may still write into a chunk: it must end before the chunk is reused.
    for (Window& w : t->windows_) t->fail(t->wait(w));
  }
  if (!t->error_.ok()) status = t->error_;
  transport::Completion done = t->done_;
  staging->finish(t);
  done(std::move(status));
}

std::size_t StagedTransfer::chunk_length(std::uint64_t index) const {
  std::size_t chunk = staging_->gpu_.chunk_bytes();
  return std::min<std::size_t>(chunk, user_.size - index * chunk);
}

void StagedTransfer::fail(Status status) {
  if (status.ok() || !error_.ok()) return;
  GPURUN_LOG(error, cuda, "cuda_ipc: staged copy failed: %s", status.to_string().c_str());
  error_ = std::move(status);
}

Status StagedTransfer::acquire() {
  Gpu& gpu = staging_->gpu_;
  GPURUN_TRY(gpu.ready(user_.contiguous));
  Gpu::Scope scope(gpu);
  for (Window& w : windows_) {
    GPURUN_ASSIGN_OR_RETURN(w.chunk, gpu.take_chunk());
    GPURUN_ASSIGN_OR_RETURN(w.event, gpu.take_event());
  }
  acquired_ = true;
  return ok_status();
}

Status StagedTransfer::wait(Window& w) {
  if (!w.busy) return ok_status();
  w.busy = false;
  Driver& api = staging_->gpu_.api();
  CUresult r = api.event_synchronize(w.event);
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuEventSynchronize", r);
  return ok_status();
}

Status StagedTransfer::fetch(std::uint64_t index) {
  Gpu& gpu = staging_->gpu_;
  Window& w = windows_[index % 2];
  GPURUN_TRY(wait(w));
  auto src = reinterpret_cast<CUdeviceptr>(user_.contiguous) + index * gpu.chunk_bytes();
  Driver& api = gpu.api();
  CUresult r = api.memcpy_async(reinterpret_cast<CUdeviceptr>(w.chunk), src, chunk_length(index),
                                gpu.stream());
  if (r == CUDA_SUCCESS) r = api.event_record(w.event, gpu.stream());
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemcpyAsync (device to host)", r);
  w.index = index;
  w.busy = true;
  return ok_status();
}

Status StagedTransfer::flush(Window& w) {
  Gpu& gpu = staging_->gpu_;
  auto dst = reinterpret_cast<CUdeviceptr>(user_.contiguous) + w.index * gpu.chunk_bytes();
  Driver& api = gpu.api();
  CUresult r =
      api.memcpy_async(dst, reinterpret_cast<CUdeviceptr>(w.chunk), w.filled, gpu.stream());
  if (r == CUDA_SUCCESS) r = api.event_record(w.event, gpu.stream());
  if (r != CUDA_SUCCESS) return cuda_status(api, "cuMemcpyAsync (host to device)", r);
  w.busy = true;
  return ok_status();
}

// Serves [offset, offset + length) of the device buffer from the chunk windows, fetching the
// chunk after the one being served so that the GPU copy overlaps this host copy.
std::size_t StagedTransfer::pack(std::size_t offset, std::byte* dst, std::size_t length) {
  if (!acquired_ && error_.ok()) fail(acquire());
  if (!error_.ok()) {
    std::memset(dst, 0, length);
    return length;
  }
  Gpu& gpu = staging_->gpu_;
  Gpu::Scope scope(gpu);
  std::size_t chunk = gpu.chunk_bytes();
  std::size_t done = 0;
  while (done < length && error_.ok()) {
    std::uint64_t k = (offset + done) / chunk;
    Window& w = windows_[k % 2];
    if (w.index != k) fail(fetch(k));
    fail(wait(w));
    std::uint64_t next = k + 1;
    if (next * chunk < user_.size && windows_[next % 2].index != next) fail(fetch(next));
    if (!error_.ok()) break;
    std::size_t in_chunk = offset + done - k * chunk;
    std::size_t n = std::min(length - done, chunk_length(k) - in_chunk);
    std::memcpy(dst + done, static_cast<std::byte*>(w.chunk) + in_chunk, n);
    done += n;
  }
  if (done < length) std::memset(dst + done, 0, length - done);
  return length;
}

// Fills the chunk windows from the fragments, sending each full window to the device; the
// last call waits until every byte is on the device, so the transfer ends with the data there.
std::size_t StagedTransfer::unpack(std::size_t offset, const std::byte* src, std::size_t length) {
  if (!acquired_ && error_.ok()) fail(acquire());
  if (!error_.ok()) return length;
  Gpu& gpu = staging_->gpu_;
  Gpu::Scope scope(gpu);
  std::size_t chunk = gpu.chunk_bytes();
  std::size_t done = 0;
  while (done < length && error_.ok()) {
    std::uint64_t k = (offset + done) / chunk;
    Window& w = windows_[k % 2];
    if (w.index != k) {
      fail(wait(w));
      w.index = k;
      w.filled = 0;
    }
    std::size_t in_chunk = offset + done - k * chunk;
    std::size_t n = std::min(length - done, chunk_length(k) - in_chunk);
    std::memcpy(static_cast<std::byte*>(w.chunk) + in_chunk, src + done, n);
    w.filled += n;
    done += n;
    if (w.filled == chunk_length(k)) fail(flush(w));
  }
  if (offset + length >= user_.size)
    for (Window& w : windows_) fail(wait(w));
  return length;
}

// ---- Staging ----------------------------------------------------------------------------

Staging::~Staging() = default;

Result<StagedTransfer*> Staging::start(StagedTransfer::Direction direction,
                                       const transport::Data& data, transport::Completion done) {
  if (data.contiguous == nullptr && data.size > 0)
    return Status(ErrorCode::kUnsupported,
                  "non-contiguous datatypes in device memory need the device pack kernels");
  StagedTransfer* t;
  if (free_.empty()) {
    all_.push_back(std::make_unique<StagedTransfer>());
    t = all_.back().get();
  } else {
    t = free_.back();
    free_.pop_back();
  }
  t->staging_ = this;
  t->direction_ = direction;
  t->user_ = data;
  t->done_ = done;
  t->error_ = ok_status();
  ++active_;
  return t;
}

void Staging::abandon(StagedTransfer* transfer) {
  if (transfer->acquired_) {
    Gpu::Scope scope(gpu_);
    for (auto& w : transfer->windows_) transfer->fail(transfer->wait(w));
  }
  finish(transfer);
}

void Staging::finish(StagedTransfer* t) {
  if (t->acquired_) {
    for (auto& w : t->windows_) {
      gpu_.give_chunk(w.chunk);
      gpu_.give_event(w.event);
      w = StagedTransfer::Window{};
    }
    t->acquired_ = false;
  }
  --active_;
  free_.push_back(t);
}

}  // namespace gpurun::cuda::ipc
