// The operations the cuda_ipc transport keeps in flight (internal to cuda/ipc).
#pragma once

#include "cuda/ipc/cuda_ipc_transport.h"

namespace gpurun::cuda::ipc {

// Device data offered by IPC, until the peer has read it.
struct CudaIpcTransport::OfferOp {
  CudaIpcTransport* transport = nullptr;
  CudaIpcEndpoint* ep = nullptr;
  std::uint32_t slot = 0;  // in the peer's lane of our table
  transport::Data data;
  transport::Completion done;
  bool staged = false;  // the peer refused the mapping: the data goes through the shm endpoint
  StagedTransfer* transfer = nullptr;  // ... by this staged transfer
};

// A pull of data offered by IPC, until it is in the receiver's buffer.
struct CudaIpcTransport::PullOp {
  enum class Stage : std::uint8_t {
    kWaitFd,      // asked the owner for the fd of the allocation or pool
    kWaitStaged,  // refused the mapping; waiting for the owner's staged offer
    kCopying,     // the copy runs; `event` fires at its end
  };
  CudaIpcEndpoint* ep = nullptr;
  Slot* slot = nullptr;  // in our lane of the owner's table
  Descriptor descriptor;
  transport::Data data;
  transport::Completion done;
  Stage stage = Stage::kWaitFd;
  CUevent event = nullptr;
  CacheEntry* entry = nullptr;  // the mapping read from (pinned)
  CUdeviceptr pool_ptr = 0;     // kPool: the imported pointer, freed after the copy
  bool pool_retried = false;    // a cached pool failed once: asked for its fd again
};

}  // namespace gpurun::cuda::ipc
