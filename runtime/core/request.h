// Requests: one per operation in flight (a send, a receive, a collective, an exchange, a
// generalized request). The API hands out its pool index as the MPI_Request handle. Requests
// live in a RequestPool whose storage never moves, so a pointer stays valid until the request
// is freed.
//
// Threading: `complete_` is the only field read without the API lock held (by threads waiting
// on their own requests while another thread makes progress); everything else is touched under
// the lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/accel/memory.h"
#include "runtime/base/status.h"

namespace gpurun::accel {
class Accelerator;
}

namespace gpurun::core {

class Communicator;
class Datatype;
class RequestPool;

// kComposite: a request that completes when parts running on requests of their own have
// (MPI_Isendrecv); kGeneralized: MPI_Grequest_start's, completed by the program; kPartitioned:
// MPI_Psend_init's and MPI_Precv_init's.
enum class RequestKind : std::uint8_t {
  kSend,
  kRecv,
  kColl,
  kComposite,
  kGeneralized,
  kPartitioned
};

// What MPI_Status reports about a completed operation.
struct MessageStatus {
  int source = -1;
  int tag = -1;
  ErrorCode error = ErrorCode::kOk;  // why the operation failed (kTruncated, ...)
  std::uint64_t bytes = 0;  // bytes received (or sent)
  bool cancelled = false;
};

class Request {
 public:
  bool complete() const { return complete_.load(std::memory_order_acquire); }
  void set_complete() { complete_.store(true, std::memory_order_release); }
  void reset_complete() { complete_.store(false, std::memory_order_relaxed); }

  std::uint32_t index = 0;  // in the pool; the MPI handle's index
  RequestPool* pool = nullptr;  // where it goes back; nullptr for a request on the stack
  RequestKind kind = RequestKind::kSend;
  bool persistent = false;  // made by a *_init call: restarted by MPI_Start
  bool active = false;      // started and not yet collected by a wait or test
  bool orphan = false;      // freed by the user before it completed: released on completion
  bool enqueued = false;    // on a stream (api/enqueue.h): only MPIX_Wait(all)_enqueue collects it
  MessageStatus status;

  // The operation: what to move, with whom.
  const Communicator* comm = nullptr;
  void* buffer = nullptr;
  std::int64_t count = 0;
  const Datatype* datatype = nullptr;
  int peer = -1;  // rank in comm: destination of a send, source (or any) of a receive
  int tag = 0;
  std::uint8_t mode = 0;     // the pml's send mode
  accel::MemoryKind memory = accel::MemoryKind::kHost;  // where `buffer` is
  accel::Accelerator* accel = nullptr;  // copies `buffer` when it is device memory
  std::uint8_t channel = 0;  // the pml's matching space (user or collective traffic)
  // A receive whose data its layer reads as soon as it has arrived (a collective's reduction):
  // the transport then lets this rank copy it all, so that it lands in this rank's cache.
  bool read_soon = false;

  // Protocol state of the layer that runs the operation.
  std::uint64_t size = 0;      // packed bytes of the message
  std::uint32_t stage = 0;     // layer-defined progress marker
  std::uint64_t remote[2] = {0, 0};  // identifiers on the peer's side (a bulk cookie)
  std::uint64_t sequence = 0;  // post order, for matching
  Request* next = nullptr;     // intrusive queue links, for the layer queuing it
  Request* prev = nullptr;

  // Called when a layer completes the request (collectives chain steps through this).
  void (*on_complete)(Request* request) = nullptr;
  void* owner = nullptr;  // the object behind a collective or generalized request

 private:
  friend class RequestPool;
  std::atomic<bool> complete_{false};
  bool in_pool_use_ = false;  // allocated from its pool and not released
};

// Requests by index. Allocation and release are O(1), LIFO so recent requests stay in cache.
class RequestPool {
 public:
  // A fresh request (every field at its default). Inline: one per nonblocking call.
  Request* allocate() {
    if (free_.empty()) [[unlikely]]
      grow();
    std::uint32_t index = free_.back();
    free_.pop_back();
    Request* r = at(index);
    r->~Request();
    new (r) Request();
    r->index = index;
    r->pool = this;
    r->in_pool_use_ = true;
    return r;
  }
  void release(Request* request) {
    request->in_pool_use_ = false;
    free_.push_back(request->index);
  }
  // The request at `index`, or nullptr when that slot is free or was never used.
  Request* find(std::uint32_t index) const {
    if (index >= count_) return nullptr;
    Request* r = at(index);
    return r->in_pool_use_ ? r : nullptr;
  }
  std::uint32_t live() const { return count_ - static_cast<std::uint32_t>(free_.size()); }
  // Calls fn(request) for every request in use. Scans the pool: not for the hot path.
  template <class Fn>
  void for_each(Fn fn) {
    for (std::uint32_t i = 0; i < count_; ++i)
      if (Request* r = find(i)) fn(r);
  }

 private:
  static constexpr std::uint32_t kChunk = 256;
  Request* at(std::uint32_t index) const { return &chunks_[index / kChunk][index % kChunk]; }
  // Adds a slot to the free list (a chunk of storage when the last one is full).
  void grow();
  std::vector<std::unique_ptr<Request[]>> chunks_;
  std::vector<std::uint32_t> free_;
  std::uint32_t count_ = 0;
};

}  // namespace gpurun::core
