// Enqueued operations: MPIX_Send_enqueue, MPIX_Recv_enqueue, MPIX_Isend_enqueue,
// MPIX_Irecv_enqueue, MPIX_Wait_enqueue, MPIX_Waitall_enqueue and MPIX_Allreduce_enqueue
// (include/mpix.h) on the CUDA stream of a stream communicator (api/stream.h).
//
// At its call an operation is made as an inactive persistent request (its checks done then,
// its errors returned then) and appended to the stream's queue behind a start point: the
// stream signals the point's number once its earlier work is done (accel::Stream::signal),
// and the next poll that sees the number starts the request (MPI_Start). The blocking forms
// and MPIX_Wait(all)_enqueue append a wait point: the stream's later work waits until a poll
// has released it, which happens once every operation it covers has completed and their
// statuses are written. Both kinds of points are numbered per stream and pass in stream
// order. The host never waits for the device, nor the device for a host callback.
//
// Who polls: every MPI call's progress (a poller, added on first use), and the progress helper
// (api/progress_helper.h) while the program is outside MPI, in cudaStreamSynchronize say: a
// stream with points not yet passed counts as helped work, and its poll reports activity so
// that the helper keeps polling rather than sleeping (the device rings no doorbell).
//
// Errors: an operation that fails to start or fails goes through its communicator's error
// handler, from whatever thread polls; its wait point is released all the same, so the
// stream never hangs on it.
//
// The queue's logic (api/enqueue_queue.cc) needs nothing of MPI but the status type; what it
// does with requests is its Operations'.
//
// Threading: under the API lock.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "runtime/accel/stream.h"
#include "runtime/base/status.h"
#include "runtime/core/request.h"

namespace gpurun::api {

class EnqueueQueue {
 public:
  // What a queue does with its operations' requests: MPI's in api/enqueue.cc, a double in the
  // unit test.
  class Operations {
   public:
    virtual ~Operations() = default;
    // Starts `r` (MPI_Start); false when it could not (the error went through the handler).
    virtual bool start(core::Request* r, const char* call_name) = 0;
    virtual bool complete(const core::Request* r) = 0;
    // `r` completed, or failed to start: writes its status to `status` (MPI_STATUS_IGNORE:
    // nowhere), reports its error, and frees it.
    virtual void finish(core::Request* r, const char* call_name, bool failed,
                        MPI_Status* status) = 0;
    // Frees `r`, which no wait point covers, as the queue goes.
    virtual void abandon(core::Request* r) = 0;
    // The queue now has points pending (true), or none any more (false).
    virtual void busy(bool busy) = 0;
  };

  EnqueueQueue(accel::Stream& device, Operations& operations)
      : device_(device), operations_(operations) {}
  ~EnqueueQueue();
  EnqueueQueue(const EnqueueQueue&) = delete;
  EnqueueQueue& operator=(const EnqueueQueue&) = delete;

  // Appends the start of `r` (an inactive persistent request, which the queue owns from now
  // on) made by `call_name` (a string that lives for ever).
  Status start_at(const char* call_name, core::Request* r);
  // Appends a wait point for `requests` (each appended here and not yet covered by a wait
  // point); the status of requests[i] goes to statuses[i] once it completes (MPI_STATUS_IGNORE:
  // nowhere; an empty `statuses`: none anywhere).
  Status wait_for(const std::vector<core::Request*>& requests,
                  std::vector<MPI_Status*> statuses = {});
  // Whether `r` was appended here and no wait point covers it yet.
  bool waitable(const core::Request* r) const;
  // Starts what the stream has reached, releases the wait points whose operations completed.
  // Returns the work done, plus 1 while points are pending.
  int poll();
  // Whether every point has passed.
  bool idle() const { return unstarted_.empty() && waits_.empty(); }

 private:
  struct Op {
    core::Request* r;
    std::uint32_t start;
    const char* call_name;
    bool waited = false;   // a wait point covers it
    bool started = false;  // the stream reached its start point
    bool failed = false;   // it did not start
  };
  struct WaitPoint {
    std::uint32_t value;
    std::vector<Op*> ops;
    std::vector<MPI_Status*> statuses;  // one per op
  };
  bool done(const WaitPoint& w) const;
  void pass(const WaitPoint& w);
  void update_busy();

  accel::Stream& device_;
  Operations& operations_;
  std::uint32_t starts_ = 0;             // the last start point's number
  std::uint32_t waits_made_ = 0;         // the last wait point's number
  std::deque<std::unique_ptr<Op>> ops_;  // appended and not yet passed by a wait point
  std::deque<Op*> unstarted_;
  std::deque<WaitPoint> waits_;
  bool busy_ = false;
};

// Destroys the queue of a stream being freed (api/enqueue.cc: it leaves the polled list).
void drop_queue(std::unique_ptr<EnqueueQueue> queue);

}  // namespace gpurun::api
