// neighbor_allgather(v) and neighbor_alltoall(v,w) "direct": one message per edge.
//
// Idea: in a single round a rank posts a receive from each in-neighbour into its receive block
// and a send of its block (allgather: the whole send buffer) to each out-neighbour; MPI_PROC_NULL
// neighbours (off the edge of a non-periodic Cartesian dimension) move nothing and their
// receive blocks stay untouched. Several edges between two ranks (a multigraph, or a periodic
// Cartesian dimension of size 1 or 2) match in the order their messages are posted: receives
// go in block order, and sends in block order too, except that on a Cartesian communicator the
// positive direction of each dimension is sent before the negative one, so that the message
// towards the positive neighbour is the one it receives first, from its negative direction.
// Requirements: host memory (copies to self go through the pml like other messages).
// Cost: max(indegree, outdegree) alpha + (sum of block sizes) beta: every edge carries its
// data once; the messages of one rank overlap.
#include <algorithm>
#include <vector>

#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

// One side of a neighbourhood exchange: block i is `count` x `type` at i * count (alltoall),
// counts[i] of `type` at element displs[i] (v form), counts[i] of types[i] at byte displs[i]
// (w form), or the whole buffer for every neighbour (`same`: the allgather send side).
struct Side {
  void* base = nullptr;
  std::int64_t count = 0;
  const core::Datatype* type = nullptr;
  const std::int64_t* counts = nullptr;
  const std::int64_t* displs = nullptr;
  const core::Datatype* const* types = nullptr;
  bool same = false;

  Buf operator[](int i) const {
    auto* at = static_cast<std::byte*>(base);
    if (same) return Buf{base, count, type};
    if (types != nullptr) return Buf{at + displs[i], counts[i], types[i]};
    if (counts != nullptr) return Buf{at + displs[i] * type->extent(), counts[i], type};
    return Buf{at + i * count * type->extent(), count, type};
  }
};

Side send_side(const Args& a) {
  Side s{const_cast<void*>(a.sendbuf), a.count, a.type};
  switch (a.collective) {
    case Collective::kNeighborAllgather:
    case Collective::kNeighborAllgatherv:
      s.same = true;
      break;
    case Collective::kNeighborAlltoallw:
      s.types = a.sendtypes;
      [[fallthrough]];
    case Collective::kNeighborAlltoallv:
      s.counts = a.sendcounts;
      s.displs = a.sdispls;
      break;
    default:
      break;
  }
  return s;
}

Side recv_side(const Args& a) {
  Side s{a.recvbuf, a.recvcount, a.recvtype};
  switch (a.collective) {
    case Collective::kNeighborAlltoallw:
      s.types = a.recvtypes;
      [[fallthrough]];
    case Collective::kNeighborAllgatherv:
    case Collective::kNeighborAlltoallv:
      s.counts = a.recvcounts;
      s.displs = a.rdispls;
      break;
    default:
      break;
  }
  return s;
}

// The schedule, which a blocking call may run again for the next call with the same scalar
// arguments (Operation::rearm) only when the neighbours are the same too: a freed
// communicator's context id and address may come back with another topology.
class Neighborhood final : public Operation {
 public:
  Neighborhood(std::unique_ptr<Operation> schedule, const Args& a)
      : schedule_(std::move(schedule)),
        sources_(a.sources, a.sources + a.indegree),
        destinations_(a.destinations, a.destinations + a.outdegree),
        cartesian_(a.cartesian) {}
  Status start() override { return schedule_->start(); }
  bool progress() override { return schedule_->progress(); }
  Status status() const override { return schedule_->status(); }
  bool rearm(const Args& a) override {
    return a.cartesian == cartesian_ &&
           std::equal(a.sources, a.sources + a.indegree, sources_.begin(), sources_.end()) &&
           std::equal(a.destinations, a.destinations + a.outdegree, destinations_.begin(),
                      destinations_.end()) &&
           schedule_->rearm(a);
  }

 private:
  std::unique_ptr<Operation> schedule_;
  std::vector<int> sources_, destinations_;
  bool cartesian_;
};

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const Side send = send_side(a), recv = recv_side(a);
  for (int i = 0; i < a.indegree; ++i)
    if (a.sources[i] >= 0) b.recv(a.sources[i], recv[i]);
  for (int k = 0; k < a.outdegree; ++k) {
    const int j = a.cartesian ? k ^ 1 : k;  // Cartesian pairs (2d, 2d + 1): positive first
    if (a.destinations[j] >= 0) b.send(a.destinations[j], send[j]);
  }
  b.next_round();
  return ok_status();
}

Result<std::unique_ptr<Operation>> create(const Args& args) {
  GPURUN_ASSIGN_OR_RETURN(std::unique_ptr<Operation> schedule, create_with<plan>(args));
  return std::unique_ptr<Operation>(std::make_unique<Neighborhood>(std::move(schedule), args));
}

}  // namespace
}  // namespace gpurun::coll::algo

#define GPURUN_NEIGHBOR_DIRECT(id, collective_id, text)                                       \
  GPURUN_REGISTER_ALGORITHM(                                                                  \
      id, .name = "direct", .collective = ::gpurun::coll::Collective::collective_id,          \
      .usable = ::gpurun::coll::algo::host_or_device, .create = ::gpurun::coll::algo::create, \
      .device_steps = true, .summary = (text))
GPURUN_NEIGHBOR_DIRECT(neighbor_allgather_direct, kNeighborAllgather,
                       "one message per edge, one round; d alpha + d n beta")
GPURUN_NEIGHBOR_DIRECT(neighbor_allgatherv_direct, kNeighborAllgatherv,
                       "one message per edge, one round; d alpha + sum(n_i) beta")
GPURUN_NEIGHBOR_DIRECT(neighbor_alltoall_direct, kNeighborAlltoall,
                       "one message per edge, one round; d alpha + d n beta")
GPURUN_NEIGHBOR_DIRECT(neighbor_alltoallv_direct, kNeighborAlltoallv,
                       "one message per edge, one round; d alpha + sum(n_i) beta")
GPURUN_NEIGHBOR_DIRECT(neighbor_alltoallw_direct, kNeighborAlltoallw,
                       "one message per edge, one round; d alpha + sum(n_i) beta")
