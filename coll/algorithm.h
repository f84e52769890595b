// Collective algorithms: the contract between the collective engine (selection, blocking /
// nonblocking / persistent calls) and the algorithms, which are written once each.
//
// An algorithm turns the arguments of one call into an Operation: a plan that start() begins and
// progress() advances without blocking. A blocking call starts it and progresses it to the end;
// a nonblocking call hands it to the progress engine behind an MPI_Request; a persistent call
// keeps it and starts it again at each MPI_Start. Algorithms register themselves by name in the
// Registry; the selection table (JSON) and knobs choose among them.
//
// THIS FILE IS THE CONTRACT between the engine and the algorithm files; both sides may add to
// it, keeping what is here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "runtime/accel/accelerator.h"
#include "runtime/accel/memory.h"
#include "runtime/base/status.h"
#include "runtime/core/communicator.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::pml {
class Pml;
}

namespace gpurun::coll {

enum class Collective : std::uint8_t {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kReduceScatter,
  kReduceScatterBlock,
  kScan,
  kExscan,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kAlltoallw,
  kNeighborAllgather,
  kNeighborAllgatherv,
  kNeighborAlltoall,
  kNeighborAlltoallv,
  kNeighborAlltoallw,
  kCount,
};

// "allreduce", "reduce_scatter_block": the name in knobs (GPURUN_COLL_ALLREDUCE_ALGO), logs and
// the tuning file.
std::string_view collective_name(Collective collective);
// The collective of a name, or nullopt.
std::optional<Collective> collective_of(std::string_view name);

// One collective call's arguments as the algorithms see them, after the API layer checked them
// and resolved MPI_IN_PLACE. Per collective (p = comm->size(), "block" = one rank's share):
//   barrier                 nothing
//   bcast                   recvbuf (= sendbuf): count x type, from root
//   reduce                  sendbuf count x type; recvbuf at root only (null elsewhere); op,
//                           root. in_place (root): sendbuf == recvbuf
//   allreduce, scan, exscan sendbuf, recvbuf: count x type; op. in_place: sendbuf == recvbuf
//   reduce_scatter_block    sendbuf p * count x type; recvbuf count x type; op. in_place:
//                           sendbuf == recvbuf, which holds the whole input
//   reduce_scatter          as reduce_scatter_block with recvcounts[p] blocks (count unused)
//   gather, allgather       sendbuf count x type; recvbuf p blocks of recvcount x recvtype
//                           (gather: at root only). in_place: this rank's block is already in
//                           recvbuf; sendbuf, count and type are not to be used
//   gatherv, allgatherv     as gather, blocks of recvcounts[i] at rdispls[i] (elements)
//   scatter                 sendbuf p blocks of count x type (root only); recvbuf recvcount x
//                           recvtype. in_place (root): recvbuf is not to be used
//   scatterv                as scatter, blocks of sendcounts[i] at sdispls[i] (root only)
//   alltoall                sendbuf p blocks of count x type; recvbuf p blocks of recvcount x
//                           recvtype. in_place: sendbuf == recvbuf, count/type == recvcount/
//                           recvtype (the data to send is in recvbuf, which it replaces)
//   alltoallv               as alltoall with sendcounts/sdispls and recvcounts/rdispls
//   alltoallw               as alltoallv with per-rank types and displacements in bytes
//   neighbor_*              as allgather(v) / alltoall(v,w), over the topology's neighbours
//                           (sources, destinations below) instead of all ranks: send block j
//                           goes to destinations[j], receive block i comes from sources[i];
//                           the v/w arrays have outdegree (send) and indegree (receive)
//                           entries; never in place
// Counts are elements of the type they go with. Valid only during
// Algorithm::create(): an operation copies what it needs (counts, displacements, types),
// except the data buffers themselves, which MPI keeps valid until the operation completes.
struct Args {
  Collective collective = Collective::kBarrier;
  pml::Pml* pml = nullptr;  // point-to-point traffic goes on its collective channel
  const core::Communicator* comm = nullptr;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  bool in_place = false;  // MPI_IN_PLACE was given (sendbuf or recvbuf, as the call defines)
  std::int64_t count = 0;  // elements: the count, or the per-rank send count
  const core::Datatype* type = nullptr;  // the datatype, or the send datatype
  std::int64_t recvcount = 0;
  const core::Datatype* recvtype = nullptr;
  // v and w forms: per-rank counts and displacements (elements; bytes for the w form).
  const std::int64_t* sendcounts = nullptr;
  const std::int64_t* sdispls = nullptr;
  const std::int64_t* recvcounts = nullptr;
  const std::int64_t* rdispls = nullptr;
  const core::Datatype* const* sendtypes = nullptr;
  const core::Datatype* const* recvtypes = nullptr;
  const core::Op* op = nullptr;
  int root = 0;
  accel::MemoryKind memory = accel::MemoryKind::kHost;  // where the buffers are
  // What copies and classifies device memory for this call; nullptr: accel::current() (tests
  // give their own).
  accel::Accelerator* accelerator = nullptr;
  // The tag of this call's messages on the collective channel: the communicator's next
  // collective sequence number, the same on every member (the engine's caller assigns it; a
  // persistent collective keeps the one of its *_init call). Messages between two ranks with
  // one tag match in the order they were posted.
  int tag = 0;
  // Every member of the communicator runs on this host (shared-memory algorithms need it).
  bool one_host = true;
  // Every member asserted that it passes only device memory on this communicator (info key
  // mpi_assert_memory_alloc_kinds, agreed when the communicator got it: api/memory_kinds.h).
  // Selection then keeps only the algorithms that run on host and device memory alike
  // (left_out() below), on every member alike, whatever memory a call passes.
  bool device_only = false;
  // The node (host) id of every rank of the job, by job rank (comm->group().job_rank(i) maps
  // the communicator's ranks): what hierarchical algorithms group the ranks by. Empty when not
  // known (a job on one host, or a launcher that did not say).
  std::span<const int> job_nodes;
  // Neighbourhood collectives: this rank's in- and out-neighbours (ranks of comm, or
  // MPI_PROC_NULL (-1): that block moves nothing). cartesian: they come in pairs, the negative
  // then the positive direction of each dimension, and what a rank sends towards its positive
  // neighbour is what that neighbour receives from its negative one (which matters where both
  // directions reach the same rank: a periodic dimension of size 1 or 2).
  const int* sources = nullptr;
  int indegree = 0;
  const int* destinations = nullptr;
  int outdegree = 0;
  bool cartesian = false;
};

// One collective in flight, or a persistent one between starts.
class Operation {
 public:
  virtual ~Operation() = default;
  // Begins the operation (again, for a persistent one).
  virtual Status start() = 0;
  // Advances it without blocking; true once it is complete.
  virtual bool progress() = 0;
  // Begins the operation of a blocking call and, where it can, runs it to its end here without
  // the progress engine (a small shared-memory collective whose members are about to post):
  // `done` tells whether it is complete (status() then says how); if not, the caller waits with
  // progress() as after start(). Default: start().
  virtual Status start_blocking(bool& done) {
    done = false;
    return start();
  }
  // After completion: why it failed (ok when it succeeded).
  virtual Status status() const { return ok_status(); }
  // status().ok() without copying the status: what a blocking call asks after every call.
  virtual bool ok() const { return status().ok(); }
  // Blocking calls keep their last operation per communicator and collective and offer it the
  // next call: true when this operation (complete) will run `args` as it is (the same
  // buffers, counts, types, op and root; usually the same call in a loop) after taking
  // args.tag, so the engine starts it again instead of creating another. Default: never.
  virtual bool rearm(const Args& /*args*/) { return false; }
  // The same call as the one this operation ran last, its arguments compared by the caller
  // (api/coll_repeat.h): true when this operation (complete) runs it again after taking `tag`,
  // as rearm() does once it has compared. Default: never.
  virtual bool repeat(int /*tag*/) { return false; }
  // The call is erroneous in a way the operation cannot see (coll/select_guard.h): it ends as
  // soon as it can, with `why` as its status, leaving nothing for the other ranks to wait on.
  // False when it cannot, and the caller abandons it instead. Default: cannot.
  virtual bool abort(Status /*why*/) { return false; }
  // The operation that runs the call in this one's place (a shared-memory operation's fallback,
  // once it fell back), whose pml requests are its own; null when this one runs it.
  virtual const Operation* runner() const { return nullptr; }
  // MPI_Wait holds the process in this nonblocking or persistent operation until it completes:
  // the guard then takes it for a blocking call (coll/guard_state.h: deadlocks).
  virtual void waited() {}
};

struct Algorithm {
  std::string_view name;  // its one name: "ring", "recursive_doubling", "shm"
  Collective collective = Collective::kBarrier;
  // Whether it can run these arguments (a power-of-two size, a commutative op, one host...).
  bool (*usable)(const Args& args) = nullptr;
  Result<std::unique_ptr<Operation>> (*create)(const Args& args) = nullptr;
  // Its operations are schedules whose steps run on device memory (coll/device_steps.h) where
  // usable() accepts a call on device memory: for MPIX_Query_cuda_path.
  bool device_steps = false;
  std::string_view summary;  // idea and cost, one line, for `gpurun --info algos`
  // Optional: whether its operation for these arguments runs what selection gives without it
  // instead (Selector::pick's instead_of), as any call would now select (a shared-memory
  // collective whose segment failed to set up: every member learns that, some later).
  bool (*falls_back)(const Args& args) = nullptr;
  // Optional: drops what the algorithm keeps per communicator (shared segments) when the
  // communicator with this context id is freed, before the id can be reused.
  void (*release)(std::uint32_t context_id) = nullptr;
};

// A device algorithm: named device_<name>, chosen by the table's rules for device memory.
inline bool is_device_algorithm(const Algorithm& a) { return a.name.starts_with("device_"); }

// Whether selection leaves `a` out for `args`: on a device-only communicator, every algorithm
// that does not run on host and device memory alike (the shared-memory ones, which read
// buffers in place, and the device algorithms, which take device memory only), for every
// collective with buffers (barrier has none). The choice then depends on no rank's memory, so
// a rank that passes host memory there all the same still meets the others.
inline bool left_out(const Algorithm& a, const Args& args) {
  return args.device_only && args.collective != Collective::kBarrier && !a.device_steps;
}

// Every registered algorithm. Algorithm files register at static initialisation through
// GPURUN_REGISTER_ALGORITHM; lookups are for setup time, not the hot path.
class Registry {
 public:
  static void add(const Algorithm& algorithm);
  static std::span<const Algorithm* const> of(Collective collective);
  static const Algorithm* find(Collective collective, std::string_view name);
};

}  // namespace gpurun::coll

#define GPURUN_REGISTER_ALGORITHM(id, ...)                              \
  namespace {                                                           \
  const bool gpurun_registered_##id = [] {                              \
    static const ::gpurun::coll::Algorithm algorithm{__VA_ARGS__};      \
    ::gpurun::coll::Registry::add(algorithm);                           \
    return true;                                                        \
  }();                                                                  \
  }
