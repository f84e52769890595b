// Buffered sends: the message is copied into the buffer that MPI_Buffer_attach gave, the send
// runs from the copy, and the call returns at once; the space goes back when the send
// completes. MPI_Bsend, MPI_Ibsend and the start of an MPI_Bsend_init request share this.
#pragma once

#include <mpi.h>

#include "api/call.h"
#include "pml/pml.h"

namespace gpurun::api {

// Copies the message of `args` into the attached buffer and starts sending it. A message that
// can go out at once without waiting (small, contiguous, nothing queued before it) is sent from
// the user's buffer, once the attached buffer is known to have room for it. Errors go through
// `comm`'s handler: MPI_ERR_BUFFER when no buffer is attached or the message does not fit.
int bsend_start(const Call& call, MPI_Comm comm, const pml::SendArgs& args);

// Makes progress until every buffered send has completed (its copy has left the attached
// buffer). MPI_Buffer_detach waits so; MPI_Finalize must too, since a program may end right
// after MPI_Bsend without detaching, and its messages must still arrive.
void wait_buffered_sends();

}  // namespace gpurun::api
