// Blocking collective calls that repeat the last call of their collective: the same
// communicator, buffers, counts, datatype and op handles and root (a benchmark's loop, a
// solver's iteration). Such a call passed every argument check the last time, and those checks
// look at nothing but these values and the objects behind the handles; so unless a handle was
// freed since (any MPI_*_free, MPI_Finalize: forget_repeats()) or a buffer is device memory,
// it skips the checks and the engine's selection, and starts the operation that ran the last
// call again (coll::Operation::repeat).
// One repeat per collective is kept (the last call of that collective that succeeded, with a
// predefined op or none). The v forms' arrays (counts and displacements, widened) count by
// their values, which the kept call stores; the w forms are never kept.
//
// Threading: under the API lock, like the rest of the collective calls.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

#include "api/call.h"
#include "api/state.h"
#include "coll/algorithm.h"

namespace gpurun::api {

// The arguments of a call as the user passed them.
struct RepeatKey {
  coll::Collective collective = coll::Collective::kBarrier;
  MPI_Comm comm = MPI_COMM_NULL;
  const void* sendbuf = nullptr;
  const void* recvbuf = nullptr;
  std::int64_t count = 0;
  std::int64_t recvcount = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  // The v forms' arrays where this rank reads them (send counts and displacements, receive
  // counts and displacements; null where not given or ignored), `size` values each.
  std::array<const std::int64_t*, 4> arrays{};
  int size = 0;
  // The same call but for the arrays, which only their values can tell.
  bool same_scalars(const RepeatKey& o) const {
    return collective == o.collective && comm == o.comm && sendbuf == o.sendbuf &&
           recvbuf == o.recvbuf && count == o.count && recvcount == o.recvcount && type == o.type &&
           recvtype == o.recvtype && op == o.op && root == o.root && size == o.size;
  }
};

// One side of a call: a buffer of `count` elements of `type`.
struct RepeatSide {
  const void* buf;
  std::int64_t count;
  MPI_Datatype type;
};
inline RepeatKey repeat_key_of(coll::Collective collective, MPI_Comm comm, RepeatSide send,
                               RepeatSide recv, MPI_Op op = MPI_OP_NULL, int root = 0) {
  return RepeatKey{collective, comm,      send.buf,  recv.buf, send.count,
                   recv.count, send.type, recv.type, op,       root};
}

// The operation that ran the last call of `key->collective` if `key` repeats it and it can run
// again with `tag` (taken); nullptr (or no key): the call goes the whole way, through the
// checks to run_collective with `key`.
coll::Operation* repeat_of(const RepeatKey* key, int tag);

// A blocking call of `key` ran `operation` and succeeded: it may run the next repeat.
void keep_repeat(const RepeatKey& key, coll::Operation& operation);
// A blocking call of `collective` is about to replace or rearm its kept operations.
void drop_repeat(coll::Collective collective);
// A handle was freed (its value may come back naming another object), or MPI_Finalize: no
// call repeats any earlier one.
void forget_repeats();

}  // namespace gpurun::api
