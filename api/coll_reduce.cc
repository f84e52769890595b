// The reducing collectives: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter(_block), MPI_Scan,
// MPI_Exscan, each blocking, nonblocking (MPI_I...) and persistent (..._init), with their
// large-count _c forms.
//
// MPI_IN_PLACE: as sendbuf at the root of MPI_Reduce, and everywhere for the others (the input
// is then in recvbuf); never as recvbuf.
#include "api/checks.h"
#include "api/coll.h"
#include "api/intercomm_coll.h"
#include "api/ops.h"
#include "coll/algorithm.h"

namespace gpurun::api {
namespace {

struct ReduceCall {
  const void* sendbuf;
  void* recvbuf;
  std::int64_t count;  // elements, or recvcount for reduce_scatter_block
  MPI_Datatype datatype;
  MPI_Op op;
  MPI_Comm comm;
};

// What every reducing call checks: count, datatype, op (defined on the type). Sets *type and
// *op.
int check_reduction(const Call& call, const ReduceCall& a, const core::Datatype** type,
                    const core::Op** op) {
  GPURUN_COLL_TRY(check_count(call, a.comm, a.count, "count"));
  GPURUN_COLL_TRY(check_type(call, a.comm, a.datatype, "datatype", type));
  GPURUN_CHECK_OP(a.comm, checked, a.op, *type);
  *op = checked;
  return MPI_SUCCESS;
}

// The key of a call for api/coll_repeat.h.
RepeatKey key_of(coll::Collective collective, const ReduceCall& a, int root) {
  return repeat_key_of(collective, a.comm, {a.sendbuf, a.count, a.datatype},
                       {a.recvbuf, a.count, a.datatype}, a.op, root);
}

// Inlined into each entry point, like reduce_all: the ReduceCall then stays in registers. Out
// of line, its caller stored its fields one by one and the callee read two at a time (the key
// of api/coll_repeat.h), a load that waits until those stores have left the store buffer, behind
// the last collective's stores to shared lines.
[[gnu::always_inline]] inline int reduce(const Call& call, const ReduceCall& a, int root,
                                         const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, a.comm, form, InterKind::kReduce, a.sendbuf, a.count, a.datatype,
                          a.recvbuf, a.count, a.datatype, a.op, root);
  const RepeatKey key = key_of(coll::Collective::kReduce, a, root);
  const RepeatKey* repeat = repeat_key(form, key);
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, a.comm, *op);
  GPURUN_COLL_TRY(check_form(call, a.comm, form));
  const core::Datatype* type;
  const core::Op* op;
  GPURUN_COLL_TRY(check_reduction(call, a, &type, &op));
  GPURUN_COLL_TRY(check_root(call, a.comm, *entry, root));
  bool is_root = entry->comm->rank() == root;
  bool in_place = a.sendbuf == MPI_IN_PLACE;
  if (!is_root)
    GPURUN_COLL_TRY(check_not_in_place(call, a.comm, a.sendbuf, "sendbuf", "at the root"));
  if (!in_place) GPURUN_COLL_TRY(check_buffer(call, a.comm, a.sendbuf, a.count, type, "sendbuf"));
  if (is_root) {
    GPURUN_COLL_TRY(check_not_in_place(call, a.comm, a.recvbuf, "recvbuf", ""));
    GPURUN_COLL_TRY(check_buffer(call, a.comm, a.recvbuf, a.count, type, "recvbuf"));
    GPURUN_COLL_TRY(check_not_aliased(call, a.comm, a.sendbuf, a.recvbuf, a.count));
  }
  coll::Args args{.collective = coll::Collective::kReduce,
                  .sendbuf = in_place ? a.recvbuf : a.sendbuf,
                  .recvbuf = is_root ? a.recvbuf : nullptr,
                  .in_place = in_place,
                  .count = a.count,
                  .type = type,
                  .op = op,
                  .root = root};
  args.tag = coll_tag;
  return run_collective(call, a.comm, *entry, args, form, a.datatype, repeat);
}

InterKind inter_kind(coll::Collective collective) {
  switch (collective) {
    case coll::Collective::kAllreduce:
      return InterKind::kAllreduce;
    case coll::Collective::kReduceScatterBlock:
      return InterKind::kReduceScatterBlock;
    case coll::Collective::kReduceScatter:
      return InterKind::kReduceScatter;
    default:
      return InterKind::kUnsupported;  // scans: not defined on intercommunicators
  }
}

// allreduce, scan, exscan and the reduce_scatters: every rank sends `send_count` and receives
// `recv_count` elements; MPI_IN_PLACE as sendbuf anywhere.
[[gnu::always_inline]] inline int reduce_all(const Call& call, const ReduceCall& a,
                                             coll::Collective collective,
                                             const std::int64_t* recvcounts, const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, a.comm, form, inter_kind(collective), a.sendbuf, a.count,
                          a.datatype, a.recvbuf, a.count, a.datatype, a.op, 0, nullptr, nullptr,
                          recvcounts);
  const RepeatKey key = key_of(collective, a, 0);
  const RepeatKey* repeat =
      collective == coll::Collective::kReduceScatter ? nullptr : repeat_key(form, key);
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, a.comm, *op);
  GPURUN_COLL_TRY(check_form(call, a.comm, form));
  const int p = entry->comm->size(), me = entry->comm->rank();
  if (collective == coll::Collective::kReduceScatter) {
    if (recvcounts == nullptr)
      return raise(call, a.comm, MPI_ERR_ARG, "argument recvcounts is a null pointer");
    GPURUN_COLL_TRY(check_counts(call, a.comm, recvcounts, p, "recvcounts"));
  }
  const core::Datatype* type;
  const core::Op* op;
  GPURUN_COLL_TRY(check_reduction(call, a, &type, &op));
  std::int64_t send_count = a.count, recv_count = a.count;
  if (collective == coll::Collective::kReduceScatterBlock) send_count = a.count * p;
  if (collective == coll::Collective::kReduceScatter) {
    send_count = 0;
    for (int i = 0; i < p; ++i) send_count += recvcounts[i];
    recv_count = recvcounts[me];
  }
  GPURUN_COLL_TRY(check_not_in_place(call, a.comm, a.recvbuf, "recvbuf", ""));
  bool in_place = a.sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    GPURUN_COLL_TRY(check_buffer(call, a.comm, a.sendbuf, send_count, type, "sendbuf"));
    GPURUN_COLL_TRY(check_not_aliased(call, a.comm, a.sendbuf, a.recvbuf, send_count));
  }
  GPURUN_COLL_TRY(
      check_buffer(call, a.comm, a.recvbuf, in_place ? send_count : recv_count, type, "recvbuf"));
  coll::Args args{.collective = collective,
                  .sendbuf = in_place ? a.recvbuf : a.sendbuf,
                  .recvbuf = a.recvbuf,
                  .in_place = in_place,
                  .count = a.count,
                  .type = type,
                  .recvcounts = recvcounts,
                  .op = op};
  args.tag = coll_tag;
  return run_collective(call, a.comm, *entry, args, form, a.datatype, repeat);
}

template <class Count>
int reduce_scatter(const Call& call, const void* sendbuf, void* recvbuf, const Count* recvcounts,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const CollForm& form) {
  CommEntry* entry = find_comm(comm);
  WideArray counts;
  if (entry != nullptr && recvcounts != nullptr) {
    // One count per rank of the group that receives: an intercommunicator's local group.
    const core::Communicator& c = *entry->comm;
    counts.assign(recvcounts, c.inter() ? c.shared_local_group()->size() : c.size());
  }
  return reduce_all(call, ReduceCall{sendbuf, recvbuf, 0, datatype, op, comm},
                    coll::Collective::kReduceScatter, counts.data(), form);
}

}  // namespace

int allreduce_init(const Call& call, const void* sendbuf, void* recvbuf, std::int64_t count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_all(call, ReduceCall{sendbuf, recvbuf, count, datatype, op, comm},
                    coll::Collective::kAllreduce, nullptr, persistent(MPI_INFO_NULL, request));
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::coll::Collective;

#define GPURUN_REDUCE(sfx, count_t)                                                         \
  GPURUN_COLL_FORMS(                                                                        \
      MPI_Reduce##sfx, MPI_Ireduce##sfx, MPI_Reduce_init##sfx,                              \
      (const void* sendbuf, void* recvbuf, count_t count, MPI_Datatype datatype, MPI_Op op, \
       int root),                                                                           \
      (reduce(call, ReduceCall{sendbuf, recvbuf, count, datatype, op, comm}, root, form)))
GPURUN_REDUCE(, int)
GPURUN_REDUCE(_c, MPI_Count)

// MPI_Allreduce, MPI_Scan, MPI_Exscan and MPI_Reduce_scatter_block share their parameters.
#define GPURUN_REDUCE_ALL(name, iname, initname, collective, count_t)                        \
  GPURUN_COLL_FORMS(                                                                         \
      name, iname, initname,                                                                 \
      (const void* sendbuf, void* recvbuf, count_t count, MPI_Datatype datatype, MPI_Op op), \
      (reduce_all(call, ReduceCall{sendbuf, recvbuf, count, datatype, op, comm}, collective, \
                  nullptr, form)))
GPURUN_REDUCE_ALL(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, Collective::kAllreduce, int)
GPURUN_REDUCE_ALL(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, Collective::kAllreduce,
                  MPI_Count)
GPURUN_REDUCE_ALL(MPI_Scan, MPI_Iscan, MPI_Scan_init, Collective::kScan, int)
GPURUN_REDUCE_ALL(MPI_Scan_c, MPI_Iscan_c, MPI_Scan_init_c, Collective::kScan, MPI_Count)
GPURUN_REDUCE_ALL(MPI_Exscan, MPI_Iexscan, MPI_Exscan_init, Collective::kExscan, int)
GPURUN_REDUCE_ALL(MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, Collective::kExscan, MPI_Count)
GPURUN_REDUCE_ALL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                  MPI_Reduce_scatter_block_init, Collective::kReduceScatterBlock, int)
GPURUN_REDUCE_ALL(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c,
                  MPI_Reduce_scatter_block_init_c, Collective::kReduceScatterBlock, MPI_Count)

#define GPURUN_REDUCE_SCATTER(sfx, count_t)                                                   \
  GPURUN_COLL_FORMS(                                                                          \
      MPI_Reduce_scatter##sfx, MPI_Ireduce_scatter##sfx, MPI_Reduce_scatter_init##sfx,        \
      (const void* sendbuf, void* recvbuf, const count_t recvcounts[], MPI_Datatype datatype, \
       MPI_Op op),                                                                            \
      (reduce_scatter(call, sendbuf, recvbuf, recvcounts, datatype, op, comm, form)))
GPURUN_REDUCE_SCATTER(, int)
GPURUN_REDUCE_SCATTER(_c, MPI_Count)
