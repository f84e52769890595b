// The staging path: device data carried by the shm transport's fragment pipeline. The shm
// transport packs and unpacks through callbacks (transport::Data); here those callbacks copy
// between its fragments and pinned host chunks, which the GPU fills or empties on the
// internal stream. Two chunks per transfer: while the host copies one, the GPU copies the
// other (the sender fetches chunk k+1 while chunk k goes out; the receiver flushes chunk k to
// the device while chunk k+1 arrives).
//
// Used when IPC cannot serve a buffer (its allocator, the peer's GPU, policy), for device
// messages below GPURUN_CUDA_IPC_MIN_SIZE, and when the receiver's buffer is on a device but the
// sender's is not. Pack/unpack calls come in increasing offsets (transport.h), which is what
// the chunk windows rely on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/ipc/gpu.h"
#include "runtime/transport/transport.h"

namespace gpurun::cuda::ipc {

class Staging;

// One staged transfer, in one direction, over a contiguous device buffer.
class StagedTransfer {
 public:
  enum class Direction : std::uint8_t { kSend, kReceive };
  // The Data to give the shm transport in place of the device buffer's.
  transport::Data data();
  // The Completion to give it: finishes the transfer, then runs the user's.
  transport::Completion completion();

 private:
  friend class Staging;
  struct Window {
    void* chunk = nullptr;
    CUevent event = nullptr;
    std::uint64_t index = ~std::uint64_t{0};  // which chunk of the buffer it holds
    std::size_t filled = 0;                   // receive: bytes written into it
    bool busy = false;                        // a GPU copy on it may run
  };
  static std::size_t pack_thunk(void* self, std::size_t offset, void* dst, std::size_t length);
  static std::size_t unpack_thunk(void* self, std::size_t offset, const void* src,
                                  std::size_t length);
  static void done_thunk(void* self, Status status);
  std::size_t pack(std::size_t offset, std::byte* dst, std::size_t length);
  std::size_t unpack(std::size_t offset, const std::byte* src, std::size_t length);
  Status acquire();
  Status fetch(std::uint64_t index);  // send: chunk `index` of the buffer into its window
  Status flush(Window& w);            // receive: a filled window to the device
  Status wait(Window& w);
  std::size_t chunk_length(std::uint64_t index) const;
  void fail(Status status);

  Staging* staging_ = nullptr;
  Direction direction_ = Direction::kSend;
  transport::Data user_;
  transport::Completion done_;
  Window windows_[2];
  bool acquired_ = false;
  Status error_;
};

// Makes and recycles staged transfers for one transport.
class Staging {
 public:
  explicit Staging(Gpu& gpu) : gpu_(gpu) {}
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // A transfer of `data` (contiguous device memory) that runs `done` at its end. The caller
  // hands transfer->data() and transfer->completion() to the shm endpoint; if that call
  // fails, it calls abandon().
  Result<StagedTransfer*> start(StagedTransfer::Direction direction, const transport::Data& data,
                                transport::Completion done);
  void abandon(StagedTransfer* transfer);
  std::size_t active() const { return active_; }

 private:
  friend class StagedTransfer;
  void finish(StagedTransfer* transfer);

  Gpu& gpu_;
  std::vector<std::unique_ptr<StagedTransfer>> all_;
  std::vector<StagedTransfer*> free_;
  std::size_t active_ = 0;
};

}  // namespace gpurun::cuda::ipc
