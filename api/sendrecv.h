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
