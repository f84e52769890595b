// The shared implementations behind the point-to-point C functions: each checks every
// argument, then runs the operation through the pml.
#pragma once

#include <mpi.h>

#include "api/call.h"
#include "api/state.h"
#include "pml/pml.h"

namespace gpurun::api {

// The peer and the tag come first among the four int-sized fields: a C function fills those
// four with one 16-byte store, and the pml reads peer and tag as one 8-byte load, which the
// processor forwards from that store only when it reads its first or its second half. (Read
// across the halves, the load waited for every older store to reach the cache, among them the
// previous message's stores to the shared queue: osu_mbw_mr spent a third of its sender's time
// there.)
struct SendCall {
  const void* buf;
  MPI_Count count;
  int dest;
  int tag;
  MPI_Datatype datatype;
  MPI_Comm comm;
  pml::SendMode mode;
};

struct RecvCall {
  void* buf;
  MPI_Count count;
  int source;
  int tag;
  MPI_Datatype datatype;
  MPI_Comm comm;
};

// The calls from a C function's arguments, in the order the C functions take them.
inline SendCall send_call(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, pml::SendMode mode) {
  return SendCall{.buf = buf,
                  .count = count,
                  .dest = dest,
                  .tag = tag,
                  .datatype = datatype,
                  .comm = comm,
                  .mode = mode};
}
inline RecvCall recv_call(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm) {
  return RecvCall{
      .buf = buf, .count = count, .source = source, .tag = tag, .datatype = datatype, .comm = comm};
}

// What the argument checks resolved: the communicator and the datatype behind the handles.
struct Resolved {
  CommEntry* entry = nullptr;
  const core::Datatype* type = nullptr;
  accel::MemoryKind memory = accel::MemoryKind::kHost;
};

// Packs the message of `args` into the host bytes at `dst` (count * size of them): device memory
// through the accelerator, contiguous types only (as everywhere in point-to-point; else
// MPI_ERR_UNSUPPORTED_OPERATION). MPI_SUCCESS, or the error after the handler of `comm` ran.
int pack_to_host(const Call& call, MPI_Comm comm, const pml::SendArgs& args, std::byte* dst);

// Checks every argument of a send (check_send) or a receive (check_recv) and resolves the
// handles into `out`. Returns MPI_SUCCESS, or the error after running the error handler.
int check_send(const Call& call, const SendCall& args, Resolved* out);
int check_recv(const Call& call, const RecvCall& args, Resolved* out);

inline pml::SendArgs send_args(const SendCall& a, const Resolved& r) {
  return pml::SendArgs{r.entry->comm.get(), a.buf,   a.count, r.type, a.dest, a.tag, a.mode,
                       pml::Channel::kUser, r.memory};
}
inline pml::RecvArgs recv_args(const RecvCall& a, const Resolved& r) {
  return pml::RecvArgs{r.entry->comm.get(), a.buf,   a.count, r.type, a.source, a.tag,
                       pml::Channel::kUser, r.memory};
}

int send(const Call& call, const SendCall& args);
int isend(const Call& call, const SendCall& args, MPI_Request* request);
int recv(const Call& call, const RecvCall& args, MPI_Status* status);
int irecv(const Call& call, const RecvCall& args, MPI_Request* request);

// MPI_Send_init and MPI_Recv_init (api/persistent.cc), and MPI_Start of a persistent request
// that is inactive (its checks done by the caller).
int persistent_send(const Call& call, const SendCall& args, MPI_Request* request);
int persistent_recv(const Call& call, const RecvCall& args, MPI_Request* request);
int start_request(const Call& call, core::Request* r);

// The status of an operation on MPI_PROC_NULL.
inline core::MessageStatus proc_null_status() {
  return core::MessageStatus{MPI_PROC_NULL, MPI_ANY_TAG};
}

}  // namespace gpurun::api
