// The shared-memory algorithms, registered as "shm" for each collective they serve, and their
// factories (which unit tests call directly, over arenas they build).
//
// Each algorithm is usable when every member of the communicator runs on this host, the
// buffers are host memory, and the communicator's segment has not failed to set up; the
// reductions also need a contiguous datatype (see reduce.cc). Anything else the algorithms
// take as it comes: any size (messages larger than a slot go through it in chunks), any
// number of ranks, derived datatypes, MPI_IN_PLACE.
#pragma once

#include <memory>

#include "coll/algorithm.h"
#include "coll/shm/arena.h"
#include "coll/shm/op.h"

namespace gpurun::coll::shm {

using Factory = std::unique_ptr<ShmOp> (*)(Arena& arena, const Args& args);

std::unique_ptr<ShmOp> make_barrier(Arena& arena, const Args& args);
std::unique_ptr<ShmOp> make_bcast(Arena& arena, const Args& args);
std::unique_ptr<ShmOp> make_reduce(Arena& arena, const Args& args);
// allreduce, scan and exscan (args.collective says which).
std::unique_ptr<ShmOp> make_allreduce(Arena& arena, const Args& args);
// allgather and allgatherv (Args::recvcounts, Args::rdispls).
std::unique_ptr<ShmOp> make_allgather(Arena& arena, const Args& args);
// alltoall and alltoallv (Args::sendcounts, sdispls, recvcounts, rdispls).
std::unique_ptr<ShmOp> make_alltoall(Arena& arena, const Args& args);
// The "cma" algorithms: single copy by CMA straight from the writers' buffers where every
// member reaches every other (coll/shm/cma.h), else as the slot algorithms above.
std::unique_ptr<ShmOp> make_bcast_cma(Arena& arena, const Args& args);
std::unique_ptr<ShmOp> make_allgather_cma(Arena& arena, const Args& args);
std::unique_ptr<ShmOp> make_alltoall_cma(Arena& arena, const Args& args);  // and alltoallv
// gather(v) and scatter(v).
std::unique_ptr<ShmOp> make_gather_cma(Arena& arena, const Args& args);
std::unique_ptr<ShmOp> make_scatter_cma(Arena& arena, const Args& args);
// reduce of two ranks (others: as make_reduce).
std::unique_ptr<ShmOp> make_reduce_cma(Arena& arena, const Args& args);
// gather and gatherv (Args::recvcounts, Args::rdispls at the root).
std::unique_ptr<ShmOp> make_gather(Arena& arena, const Args& args);
// scatter and scatterv (Args::sendcounts, Args::sdispls at the root).
std::unique_ptr<ShmOp> make_scatter(Arena& arena, const Args& args);
// reduce_scatter (Args::recvcounts) and reduce_scatter_block (Args::count).
std::unique_ptr<ShmOp> make_reduce_scatter(Arena& arena, const Args& args);

// What every shared-memory algorithm needs (one host, host memory, a segment that works).
bool usable_common(const Args& args);
// Algorithm::create: the operation `make` builds on the arena of args.comm, ready to set the
// arena's segment up if it is the first, with a fallback in case that fails.
Result<std::unique_ptr<Operation>> create_on_arena(const Args& args, Factory make);
// Algorithm::release.
void release_comm(std::uint32_t context_id);

}  // namespace gpurun::coll::shm
