// The shared implementations behind the point-to-point C functions: each checks every
// argument, then runs the operation through the pml.
#pragma once

#include <mpi.h>

#include "api/call.h"
#include "pml/pml.h"

namespace gpurun::api {

struct SendCall {
  const void* buf;
  MPI_Count count;
  MPI_Datatype datatype;
  int dest;
  int tag;
  MPI_Comm comm;
  pml::SendMode mode;
};

struct RecvCall {
  void* buf;
  MPI_Count count;
  MPI_Datatype datatype;
  int source;
  int tag;
  MPI_Comm comm;
};

int send(const Call& call, const SendCall& args);
int isend(const Call& call, const SendCall& args, MPI_Request* request);
int recv(const Call& call, const RecvCall& args, MPI_Status* status);
int irecv(const Call& call, const RecvCall& args, MPI_Request* request);

}  // namespace gpurun::api
