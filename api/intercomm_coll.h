// Collectives on intercommunicators: MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce,
// MPI_Reduce_scatter(_block), MPI_Gather(v), MPI_Allgather(v), MPI_Scatter(v) and
// MPI_Alltoall(v,w), in their blocking, nonblocking and persistent forms alike (one chain of
// phases per call: api/intercomm_ops.h). Scans, which the standard does not define on an
// intercommunicator, refuse one with MPI_ERR_COMM.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "api/call.h"
#include "api/coll.h"
#include "api/state.h"

namespace gpurun::api {

enum class InterKind : std::uint8_t {
  kUnsupported,
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGather,
  kAllgather,
  kScatter,
  kAlltoall,
  kGatherv,
  kAllgatherv,
  kScatterv,
  kAlltoallv,
  kAlltoallw,
  kReduceScatterBlock,
  kReduceScatter,
};

// A collective call's arguments as the intercommunicator forms read them (Bcast: the buffer
// is the send side).
struct InterArgs {
  const void* sendbuf = nullptr;
  std::int64_t sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  std::int64_t recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  // The v and w forms' arrays, widened: one entry per rank of the remote group (reduce_scatter's
  // recvcounts: of the local group). Displacements in elements, alltoallw's in bytes.
  const std::int64_t* sendcounts = nullptr;
  const std::int64_t* sdispls = nullptr;
  const std::int64_t* recvcounts = nullptr;
  const std::int64_t* rdispls = nullptr;
  const MPI_Datatype* sendtypes = nullptr;  // alltoallw
  const MPI_Datatype* recvtypes = nullptr;
};

// Runs collective `kind` on intercommunicator `entry` (handle `comm`) in `form`, or refuses it.
int inter_collective(const Call& call, MPI_Comm comm, CommEntry& entry, const CollForm& form,
                     InterKind kind, const InterArgs& a);

}  // namespace gpurun::api

// GPURUN_COLL_ENTER for the collectives that intercommunicators may take: on one, the call
// goes to inter_collective with the InterArgs that follow `kind`.
#define GPURUN_COLL_ENTER_INTER(entry, handle, form, kind, ...)                    \
  GPURUN_CHECK_COMM(entry, handle);                                                \
  if (entry->comm->inter()) [[unlikely]]                                           \
    return ::gpurun::api::inter_collective(call, handle, *entry, form, kind,       \
                                           ::gpurun::api::InterArgs{__VA_ARGS__}); \
  const int coll_tag = entry->next_coll_tag()
