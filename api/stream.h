// Streams (MPICH's extension, include/mpix.h): MPIX_Stream objects and the communicators
// bound to them.
//
// A stream is a host stream (an execution context of one thread at a time, which needs
// nothing of gpurun beyond its serialised calls) or a CUDA stream, on which MPIX_*_enqueue
// calls order operations (api/enqueue.h). A stream communicator is a duplicate of its parent
// that records each process's streams:
//   - MPIX_Stream_comm_create: one stream per process (MPIX_STREAM_NULL allowed);
//   - MPIX_Stream_comm_create_multiplex: any number per process, addressed by index. Messages
//     of MPIX_Stream_send and the like travel from one stream of the sender to one of the
//     receiver and match only receives of the same pair of indices: each pair has a channel
//     of its own, a further duplicate of the parent, made at creation (width x width of them,
//     width being the most streams any process attached; none when it is 1).
// A stream cannot be freed while a communicator uses it.
//
// Threading: under the API lock, like everything in api/.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "api/call.h"
#include "api/state.h"
#include "runtime/accel/stream.h"

namespace gpurun::api {

class EnqueueQueue;  // api/enqueue.h

struct StreamEntry {
  StreamEntry();
  ~StreamEntry();
  std::unique_ptr<accel::Stream> device;   // a CUDA stream's ordering; null for host streams
  int uses = 0;                            // communicators bound to it
  std::unique_ptr<EnqueueQueue> enqueued;  // made by the first enqueued operation
};

// The stream a handle names, or nullptr (MPIX_STREAM_NULL, freed, not a stream).
StreamEntry* find_stream(MPIX_Stream handle);

struct StreamBinding {
  bool multiplex = false;
  std::vector<MPIX_Stream> local;  // this process's streams, by index
  std::vector<int> counts;         // how many streams each rank attached
  int width = 1;                   // the most streams any rank attached
  std::vector<MPI_Comm> channels;  // [from * width + to], when width > 1
};

// Gives back the streams of a communicator that is being freed and frees its channels.
void unbind_streams(CommEntry& entry);

// This process's first stream on `entry`'s communicator, or nullptr when it has none (not a
// stream communicator, or MPIX_STREAM_NULL).
StreamEntry* local_stream(const CommEntry& entry);

}  // namespace gpurun::api
