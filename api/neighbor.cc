// The neighbourhood collectives MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v,w), each
// blocking, nonblocking and persistent, with their large-count _c forms, on communicators with
// a Cartesian or distributed graph topology (MPI_ERR_TOPOLOGY otherwise). They run in the
// collective engine (coll/algo/neighbor_*.cc) like the other collectives.
//
// Neighbours: a Cartesian communicator's are, for each dimension, the ranks one step in the
// negative then the positive direction (MPI_PROC_NULL off a non-periodic edge: that block is
// neither sent nor received, and stays untouched); a distributed graph's are its sources
// (receive blocks) and destinations (send blocks). MPI_IN_PLACE is not allowed.
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/coll.h"
#include "api/topo.h"
#include "coll/algorithm.h"
#include "coll/schedule.h"

namespace gpurun::api {
namespace {

using coll::Collective;

// How one side's blocks are described: the whole buffer for every neighbour (allgather's
// send side), `count` per block, or per-block counts and displacements (v), with types (w).
enum class Layout : std::uint8_t { kWhole, kBlocks, kV, kW };

// One side of a call, its arrays widened to int64 once the number of neighbours is known.
struct Side {
  Layout layout = Layout::kBlocks;
  const void* buf = nullptr;
  std::int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool arrays_given = true;
  std::vector<std::int64_t> counts, displs;
  const MPI_Datatype* types = nullptr;
  const core::Datatype* resolved = nullptr;
  std::vector<const core::Datatype*> resolved_types;
};

struct Names {
  const char* buf;
  const char* count;
  const char* counts;
  const char* arrays;
  const char* type;
  const char* types;
};
constexpr Names kSend{"sendbuf",  "sendcount", "sendcounts", "sendcounts, sdispls or sendtypes",
                      "sendtype", "sendtypes"};
constexpr Names kRecv{"recvbuf",  "recvcount", "recvcounts", "recvcounts, rdispls or recvtypes",
                      "recvtype", "recvtypes"};

int check_w_types(const Call& call, MPI_Comm comm, Side& s, int n, const Names& name) {
  s.resolved_types.assign(n, &coll::byte_type());  // moves nothing where the count is 0
  for (int i = 0; i < n; ++i) {
    if (s.counts[i] == 0) continue;
    std::string what = std::string(name.types) + "[" + std::to_string(i) + "]";
    const core::Datatype* t = nullptr;
    GPURUN_COLL_TRY(check_type(call, comm, s.types[i], what.c_str(), &t));
    s.resolved_types[i] = t;
    GPURUN_COLL_TRY(check_buffer(call, comm, s.buf, s.counts[i], t, name.buf));
  }
  return MPI_SUCCESS;
}

// Checks one side of `n` blocks (n neighbours).
int check_side(const Call& call, MPI_Comm comm, Side& s, int n, const Names& name) {
  GPURUN_COLL_TRY(check_not_in_place(call, comm, s.buf, name.buf, ""));
  std::int64_t total = s.layout == Layout::kWhole ? s.count : s.count * n;
  if (s.layout == Layout::kV || s.layout == Layout::kW) {
    if (n > 0 && !s.arrays_given)
      return raise(call, comm, MPI_ERR_ARG, "argument %s is a null pointer", name.arrays);
    GPURUN_COLL_TRY(check_counts(call, comm, s.counts.data(), n, name.counts));
    total = 0;
    for (std::int64_t c : s.counts) total += c;
    if (s.layout == Layout::kW) return check_w_types(call, comm, s, n, name);
  } else {
    GPURUN_COLL_TRY(check_count(call, comm, s.count, name.count));
  }
  GPURUN_COLL_TRY(check_type(call, comm, s.type, name.type, &s.resolved));
  return check_buffer(call, comm, s.buf, total, s.resolved, name.buf);
}

// The caller's arrays of one side, before the number of neighbours is known.
template <class Count, class Displ>
struct Arrays {
  const Count* counts = nullptr;
  const Displ* displs = nullptr;
  const MPI_Datatype* types = nullptr;
};

template <class Count, class Displ>
void widen_side(Side& s, const Arrays<Count, Displ>& a, int n) {
  if (s.layout != Layout::kV && s.layout != Layout::kW) return;
  s.types = a.types;
  s.arrays_given =
      a.counts != nullptr && a.displs != nullptr && (s.layout == Layout::kV || a.types != nullptr);
  if (!s.arrays_given) {
    s.counts.assign(n, 0);
    s.displs.assign(n, 0);
    return;
  }
  s.counts.assign(a.counts, a.counts + n);  // widened to int64
  s.displs.assign(a.displs, a.displs + n);
}

template <class Count, class Displ>
int neighbor(const Call& call, Collective collective, Side send, const Arrays<Count, Displ>& sa,
             Side recv, const Arrays<Count, Displ>& ra, MPI_Comm comm, const CollForm& form) {
  GPURUN_COLL_ENTER(entry, comm);
  GPURUN_COLL_TRY(check_form(call, comm, form));
  const Topology* topo = nullptr;
  GPURUN_COLL_TRY(require_topology(call, comm, *entry, nullptr, &topo));
  std::vector<int> in, out;
  topo->neighbors(entry->comm->rank(), &in, &out);
  const int indegree = static_cast<int>(in.size()), outdegree = static_cast<int>(out.size());
  widen_side(send, sa, outdegree);
  widen_side(recv, ra, indegree);
  GPURUN_COLL_TRY(check_side(call, comm, send, outdegree, kSend));
  GPURUN_COLL_TRY(check_side(call, comm, recv, indegree, kRecv));
  coll::Args args{.collective = collective};
  args.sendbuf = send.buf;
  args.recvbuf = const_cast<void*>(recv.buf);
  args.count = send.count;
  args.type = send.resolved;
  args.recvcount = recv.count;
  args.recvtype = recv.resolved;
  if (send.layout == Layout::kV || send.layout == Layout::kW) {
    args.sendcounts = send.counts.data();
    args.sdispls = send.displs.data();
  }
  if (recv.layout == Layout::kV || recv.layout == Layout::kW) {
    args.recvcounts = recv.counts.data();
    args.rdispls = recv.displs.data();
  }
  if (collective == Collective::kNeighborAlltoallw) {
    args.sendtypes = send.resolved_types.data();
    args.recvtypes = recv.resolved_types.data();
  }
  args.sources = in.data();
  args.indegree = indegree;
  args.destinations = out.data();
  args.outdegree = outdegree;
  args.cartesian = topo->kind == Topology::Kind::kCart;
  args.tag = coll_tag;
  return run_collective(call, comm, *entry, args, form, send.type);
}

Side fixed(Layout layout, const void* buf, std::int64_t count, MPI_Datatype type) {
  Side s;
  s.layout = layout;
  s.buf = buf;
  s.count = count;
  s.type = type;
  return s;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::coll::Collective;

#define GPURUN_NEIGHBOR_ALLGATHER(sfx, count_t)                                                    \
  GPURUN_COLL_FORMS(                                                                               \
      MPI_Neighbor_allgather##sfx, MPI_Ineighbor_allgather##sfx, MPI_Neighbor_allgather_init##sfx, \
      (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf,               \
       count_t recvcount, MPI_Datatype recvtype),                                                  \
      (neighbor(call, Collective::kNeighborAllgather,                                              \
                fixed(Layout::kWhole, sendbuf, sendcount, sendtype), Arrays<int, int>{},           \
                fixed(Layout::kBlocks, recvbuf, recvcount, recvtype), Arrays<int, int>{}, comm,    \
                form)))
GPURUN_NEIGHBOR_ALLGATHER(, int)
GPURUN_NEIGHBOR_ALLGATHER(_c, MPI_Count)

#define GPURUN_NEIGHBOR_ALLGATHERV(sfx, count_t, displ_t)                                          \
  GPURUN_COLL_FORMS(MPI_Neighbor_allgatherv##sfx, MPI_Ineighbor_allgatherv##sfx,                   \
                    MPI_Neighbor_allgatherv_init##sfx,                                             \
                    (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf, \
                     const count_t recvcounts[], const displ_t displs[], MPI_Datatype recvtype),   \
                    (neighbor(call, Collective::kNeighborAllgatherv,                               \
                              fixed(Layout::kWhole, sendbuf, sendcount, sendtype),                 \
                              Arrays<count_t, displ_t>{}, fixed(Layout::kV, recvbuf, 0, recvtype), \
                              Arrays<count_t, displ_t>{recvcounts, displs, nullptr}, comm, form)))
GPURUN_NEIGHBOR_ALLGATHERV(, int, int)
GPURUN_NEIGHBOR_ALLGATHERV(_c, MPI_Count, MPI_Aint)

#define GPURUN_NEIGHBOR_ALLTOALL(sfx, count_t)                                                  \
  GPURUN_COLL_FORMS(                                                                            \
      MPI_Neighbor_alltoall##sfx, MPI_Ineighbor_alltoall##sfx, MPI_Neighbor_alltoall_init##sfx, \
      (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf,            \
       count_t recvcount, MPI_Datatype recvtype),                                               \
      (neighbor(call, Collective::kNeighborAlltoall,                                            \
                fixed(Layout::kBlocks, sendbuf, sendcount, sendtype), Arrays<int, int>{},       \
                fixed(Layout::kBlocks, recvbuf, recvcount, recvtype), Arrays<int, int>{}, comm, \
                form)))
GPURUN_NEIGHBOR_ALLTOALL(, int)
GPURUN_NEIGHBOR_ALLTOALL(_c, MPI_Count)

#define GPURUN_NEIGHBOR_ALLTOALLV(sfx, count_t, displ_t)                                           \
  GPURUN_COLL_FORMS(                                                                               \
      MPI_Neighbor_alltoallv##sfx, MPI_Ineighbor_alltoallv##sfx, MPI_Neighbor_alltoallv_init##sfx, \
      (const void* sendbuf, const count_t sendcounts[], const displ_t sdispls[],                   \
       MPI_Datatype sendtype, void* recvbuf, const count_t recvcounts[], const displ_t rdispls[],  \
       MPI_Datatype recvtype),                                                                     \
      (neighbor(call, Collective::kNeighborAlltoallv, fixed(Layout::kV, sendbuf, 0, sendtype),     \
                Arrays<count_t, displ_t>{sendcounts, sdispls, nullptr},                            \
                fixed(Layout::kV, recvbuf, 0, recvtype),                                           \
                Arrays<count_t, displ_t>{recvcounts, rdispls, nullptr}, comm, form)))
GPURUN_NEIGHBOR_ALLTOALLV(, int, int)
GPURUN_NEIGHBOR_ALLTOALLV(_c, MPI_Count, MPI_Aint)

#define GPURUN_NEIGHBOR_ALLTOALLW(sfx, count_t, displ_t)                                           \
  GPURUN_COLL_FORMS(                                                                               \
      MPI_Neighbor_alltoallw##sfx, MPI_Ineighbor_alltoallw##sfx, MPI_Neighbor_alltoallw_init##sfx, \
      (const void* sendbuf, const count_t sendcounts[], const displ_t sdispls[],                   \
       const MPI_Datatype sendtypes[], void* recvbuf, const count_t recvcounts[],                  \
       const displ_t rdispls[], const MPI_Datatype recvtypes[]),                                   \
      (neighbor(call, Collective::kNeighborAlltoallw,                                              \
                fixed(Layout::kW, sendbuf, 0, MPI_DATATYPE_NULL),                                  \
                Arrays<count_t, displ_t>{sendcounts, sdispls, sendtypes},                          \
                fixed(Layout::kW, recvbuf, 0, MPI_DATATYPE_NULL),                                  \
                Arrays<count_t, displ_t>{recvcounts, rdispls, recvtypes}, comm, form)))
GPURUN_NEIGHBOR_ALLTOALLW(, int, MPI_Aint)
GPURUN_NEIGHBOR_ALLTOALLW(_c, MPI_Count, MPI_Aint)
