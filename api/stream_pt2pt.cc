// MPIX_Stream_send, _isend, _recv and _irecv (and their _c forms): point-to-point between
// given streams of a multiplex stream communicator (api/stream.h), and MPIX_Stream_progress.
//
// A message from stream `from` of the sender to stream `to` of the receiver travels on the
// channel of that pair, so it matches only receives of the same pair. On a communicator that
// is not multiplexed, each rank has one stream, index 0, and the calls are MPI_Send and the
// like on the communicator itself.
#include "api/checks.h"
#include "api/enqueue.h"
#include "api/pt2pt.h"
#include "api/stream.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {
namespace {

// One end of a stream message: this process's stream index and the peer's.
struct Ends {
  int local;   // argument source_stream_index of a send, dest_stream_index of a receive
  int remote;  // the other one
  const char* local_arg;
  const char* remote_arg;
};

Ends send_ends(int from, int to) {
  return Ends{from, to, "source_stream_index", "dest_stream_index"};
}
Ends recv_ends(int from, int to) {
  return Ends{to, from, "dest_stream_index", "source_stream_index"};
}

int bad_index(const Call& call, MPI_Comm comm, const char* arg, int index, int count,
              const char* whose) {
  return raise(call, comm, MPI_ERR_ARG,
               "argument %s %d is not the index of one of %s %d stream(s) on comm", arg, index,
               whose, count);
}

// How many streams rank `peer` attached (MPI_ANY_SOURCE: the most any rank did), or -1 when
// `peer` names no rank (the point-to-point checks report that).
int remote_count(const StreamBinding& b, int peer) {
  if (peer == MPI_ANY_SOURCE) return b.width;
  if (peer < 0 || peer >= static_cast<int>(b.counts.size())) return -1;
  return b.counts[static_cast<std::size_t>(peer)];
}

// The communicator that carries the messages between `ends` with `peer` on `comm`.
int channel(const Call& call, MPI_Comm comm, int peer, const Ends& ends, bool sending,
            MPI_Comm* out) {
  GPURUN_CHECK_COMM(entry, comm);
  const StreamBinding* b = entry->streams.get();
  if (b == nullptr || !b->multiplex) {
    if (ends.local != 0) return bad_index(call, comm, ends.local_arg, ends.local, 1, "this rank's");
    if (ends.remote != 0)
      return bad_index(call, comm, ends.remote_arg, ends.remote, 1, "the peer's");
    *out = comm;
    return MPI_SUCCESS;
  }
  int local_count = static_cast<int>(b->local.size());
  if (ends.local < 0 || ends.local >= local_count)
    return bad_index(call, comm, ends.local_arg, ends.local, local_count, "this rank's");
  int count = remote_count(*b, peer);
  if (peer != MPI_PROC_NULL && count >= 0 && (ends.remote < 0 || ends.remote >= count))
    return bad_index(call, comm, ends.remote_arg, ends.remote, count, "the peer's");
  if (b->width == 1 || peer == MPI_PROC_NULL || count < 0) {
    *out = comm;
    return MPI_SUCCESS;
  }
  int from = sending ? ends.local : ends.remote, to = sending ? ends.remote : ends.local;
  *out = b->channels[static_cast<std::size_t>(from * b->width + to)];
  return MPI_SUCCESS;
}

// A send or receive of `args` between `ends`, on the pair's channel, by `op`.
template <class Args, class Op>
int on_channel(const Call& call, Args args, int peer, const Ends& ends, bool sending, Op&& op) {
  MPI_Comm comm = args.comm;
  if (int rc = channel(call, comm, peer, ends, sending, &args.comm); rc != MPI_SUCCESS) return rc;
  return op(args);
}

template <class Count>
int stream_send(const Call& call, const void* buf, Count count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, int from, int to, MPI_Request* request) {
  SendCall a = send_call(buf, count, datatype, dest, tag, comm, pml::SendMode::kStandard);
  return on_channel(call, a, dest, send_ends(from, to), true, [&](const SendCall& on) {
    return request != nullptr ? isend(call, on, request) : send(call, on);
  });
}

template <class Count>
int stream_recv(const Call& call, void* buf, Count count, MPI_Datatype datatype, int source,
                int tag, MPI_Comm comm, int from, int to, MPI_Status* status,
                MPI_Request* request) {
  RecvCall a = recv_call(buf, count, datatype, source, tag, comm);
  return on_channel(call, a, source, recv_ends(from, to), false, [&](const RecvCall& on) {
    return request != nullptr ? irecv(call, on, request) : recv(call, on, status);
  });
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

#define GPURUN_STREAM_PT2PT(sfx, count_t)                                                          \
  extern "C" int PMPIX_Stream_send##sfx(const void* buf, count_t count, MPI_Datatype datatype,     \
                                        int dest, int tag, MPI_Comm comm, int from, int to) {      \
    GPURUN_API_ENTER("MPIX_Stream_send" #sfx);                                                     \
    return stream_send(call, buf, count, datatype, dest, tag, comm, from, to, nullptr);            \
  }                                                                                                \
  extern "C" int PMPIX_Stream_isend##sfx(const void* buf, count_t count, MPI_Datatype datatype,    \
                                         int dest, int tag, MPI_Comm comm, int from, int to,       \
                                         MPI_Request* request) {                                   \
    GPURUN_API_ENTER("MPIX_Stream_isend" #sfx);                                                    \
    GPURUN_CHECK_NOT_NULL(comm, request);                                                          \
    return stream_send(call, buf, count, datatype, dest, tag, comm, from, to, request);            \
  }                                                                                                \
  extern "C" int PMPIX_Stream_recv##sfx(void* buf, count_t count, MPI_Datatype datatype,           \
                                        int source, int tag, MPI_Comm comm, int from, int to,      \
                                        MPI_Status* status) {                                      \
    GPURUN_API_ENTER("MPIX_Stream_recv" #sfx);                                                     \
    return stream_recv(call, buf, count, datatype, source, tag, comm, from, to, status, nullptr);  \
  }                                                                                                \
  extern "C" int PMPIX_Stream_irecv##sfx(void* buf, count_t count, MPI_Datatype datatype,          \
                                         int source, int tag, MPI_Comm comm, int from, int to,     \
                                         MPI_Request* request) {                                   \
    GPURUN_API_ENTER("MPIX_Stream_irecv" #sfx);                                                    \
    GPURUN_CHECK_NOT_NULL(comm, request);                                                          \
    return stream_recv(call, buf, count, datatype, source, tag, comm, from, to, MPI_STATUS_IGNORE, \
                       request);                                                                   \
  }                                                                                                \
  GPURUN_MPI_ALIAS(MPIX_Stream_send##sfx)                                                          \
  GPURUN_MPI_ALIAS(MPIX_Stream_isend##sfx)                                                         \
  GPURUN_MPI_ALIAS(MPIX_Stream_recv##sfx)                                                          \
  GPURUN_MPI_ALIAS(MPIX_Stream_irecv##sfx)

GPURUN_STREAM_PT2PT(, int)
GPURUN_STREAM_PT2PT(_c, MPI_Count)

// Progresses everything pending; a stream's enqueued operations move with the rest.
extern "C" int PMPIX_Stream_progress(MPIX_Stream stream) {
  GPURUN_API_ENTER("MPIX_Stream_progress");
  if (stream != MPIX_STREAM_NULL && find_stream(stream) == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument stream (0x%x) is not a stream, or was freed",
                 static_cast<unsigned>(stream));
  }
  gpurun::progress::engine().poll();
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPIX_Stream_progress)
