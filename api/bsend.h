// Buffered sends: the message is copied into an attached buffer, the send runs from the copy,
// and the call returns at once; the space goes back when the send completes. MPI_Bsend,
// MPI_Ibsend and the start of an MPI_Bsend_init request share this.
//
// MPI-4.1 gives three places a buffer may be attached: the communicator (MPI_Comm_attach_buffer),
// the session the communicator derives from (MPI_Session_attach_buffer), and the process
// (MPI_Buffer_attach). A buffered send takes the first of them that has one, when it starts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/bsend_buffer.h"
#include "api/call.h"
#include "pml/pml.h"
#include "runtime/core/request.h"

namespace gpurun::api {

// One place a buffer may be attached, and the MPI_*_iflush requests waiting for some of its
// buffered sends: those whose blocks were taken before the flush (BsendBuffer numbers them), not
// later ones (a program may send again before it waits for the flush, to a peer that receives
// only after that wait).
struct BsendSlot {
  struct Flush {
    core::Request* request;
    std::uint64_t upto;  // the number of the last block it waits for
  };
  BsendBuffer buffer;
  std::vector<Flush> flushes;
};

// MPI_Buffer_attach's slot.
BsendSlot& process_bsend();

// Copies the message of `args` into the buffer of `comm` (see above) and starts sending it. A
// message that can go out at once without waiting (small, contiguous, nothing queued before
// it) is sent from the user's buffer, once the attached buffer is known to have room for it.
// Errors go through `comm`'s handler: MPI_ERR_BUFFER when no buffer is attached or the message
// does not fit.
int bsend_start(const Call& call, MPI_Comm comm, const pml::SendArgs& args);

// Why `buffer`/`size` cannot be attached to `slot` (error_class MPI_SUCCESS: attached).
// `detach_call` names the call that detaches what is there.
struct AttachResult {
  int error_class = MPI_SUCCESS;
  std::string message;
};
AttachResult attach_bsend(BsendSlot& slot, void* buffer, MPI_Count size, const char* detach_call);
// Waits for the slot's buffered sends, then gives its buffer back through *buffer_addr (a
// void**, as the standard's C binding says) and *size, and detaches it. With no buffer
// attached: nullptr and 0.
void detach_bsend(BsendSlot& slot, void* buffer_addr, MPI_Count* size);
// MPI_*_flush_buffer: waits until the slot's buffered sends started so far have completed.
void flush_bsend(BsendSlot& slot);
// MPI_*_iflush_buffer: a request that completes once they have.
core::Request* iflush_bsend(BsendSlot& slot);
// A communicator is freed or a session finalized with a buffer attached: waits for its
// buffered sends, so that the program may reuse the memory afterwards, and detaches it.
void retire_bsend(std::shared_ptr<BsendSlot>& slot);

}  // namespace gpurun::api
