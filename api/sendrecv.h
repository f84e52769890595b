// What MPI_Sendrecv(_replace) and MPI_Isendrecv(_replace) share: their arguments, checked and
// turned into the pml's arguments of the two halves, with the memory kind of each buffer.
#pragma once

#include <mpi.h>

#include <memory>

#include "api/call.h"
#include "pml/pml.h"

namespace gpurun::api {

struct SendrecvCall {
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  int dest;
  int sendtag;
  void* recvbuf;
  MPI_Count recvcount;
  MPI_Datatype recvtype;
  int source;
  int recvtag;
  MPI_Comm comm;
};

struct ReplaceCall {
  void* buf;
  MPI_Count count;
  MPI_Datatype datatype;
  int dest;
  int sendtag;
  int source;
  int recvtag;
  MPI_Comm comm;
};

// The two halves of an exchange; a half with MPI_PROC_NULL is absent.
struct ExchangeArgs {
  pml::SendArgs send;
  pml::RecvArgs recv;
  bool has_send = false;
  bool has_recv = false;
  std::unique_ptr<std::byte[]> copy;  // a replace's message, packed, which the send reads
};

// Checks every argument (MPI_SUCCESS, or the error after the handler ran) and fills `out`.
int check_exchange(const Call& call, const SendrecvCall& a, ExchangeArgs* out);
// The same for a replace, whose send then reads a packed copy of the buffer unless it could
// leave at once (pml::Pml::send_now): the receive overwrites the buffer meanwhile.
int check_replace_exchange(const Call& call, const ReplaceCall& a, ExchangeArgs* out);

}  // namespace gpurun::api

// The C entry points of the exchanges: PMPI_name with MPI_Sendrecv's (or MPI_Sendrecv_replace's)
// arguments, counts of `count_type`, and a last one of `out_type` (the status or the request),
// handed to impl(call, SendrecvCall or ReplaceCall, out); and its MPI_name alias.
#define GPURUN_SENDRECV_ENTRY(name, count_type, impl, out_type)                                   \
  extern "C" int P##name(const void* sendbuf, count_type sendcount, MPI_Datatype sendtype,        \
                         int dest, int sendtag, void* recvbuf, count_type recvcount,              \
                         MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,           \
                         out_type out) {                                                          \
    GPURUN_API_ENTER(#name);                                                                      \
    return impl(call,                                                                             \
                ::gpurun::api::SendrecvCall{sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, \
                                            recvcount, recvtype, source, recvtag, comm},          \
                out);                                                                             \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_REPLACE_ENTRY(name, count_type, impl, out_type)                                  \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, int dest,          \
                         int sendtag, int source, int recvtag, MPI_Comm comm, out_type out) {   \
    GPURUN_API_ENTER(#name);                                                                    \
    return impl(                                                                                \
        call,                                                                                   \
        ::gpurun::api::ReplaceCall{buf, count, datatype, dest, sendtag, source, recvtag, comm}, \
        out);                                                                                   \
  }                                                                                             \
  GPURUN_MPI_ALIAS(name)
