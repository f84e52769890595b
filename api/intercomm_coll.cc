// Collectives on intercommunicators (api/intercomm_coll.h): the checks of their arguments,
// then the chain of phases that api/intercomm_ops.h makes of the call, run in the call's form.
#include "api/intercomm_coll.h"

#include <optional>
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/datatypes.h"
#include "api/intercomm_ops.h"
#include "api/ops.h"

namespace gpurun::api {
namespace {

struct Inter {
  const Call& call;
  MPI_Comm comm;
  CommEntry& entry;
  int rank() const { return entry.comm->rank(); }
  int remote_size() const { return entry.comm->size(); }
  int local_size() const { return entry.comm->shared_local_group()->size(); }
};

using Types = std::vector<const core::Datatype*>;

// What the checks found: the datatypes and the op, where the call uses them.
struct Resolved {
  const core::Datatype* stype = nullptr;
  const core::Datatype* rtype = nullptr;
  const core::Op* op = nullptr;
  Types stypes, rtypes;  // alltoallw
};

int check_inter_root(const Inter& x, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < x.remote_size()))
    return MPI_SUCCESS;
  return raise(x.call, x.comm, MPI_ERR_ROOT,
               "argument root %d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote "
               "group (size %d)",
               root, x.remote_size());
}

// The buffer, count and datatype of one side (`send` or not), when the call moves it.
int check_side(const Inter& x, const void* buf, std::int64_t count, MPI_Datatype handle, bool send,
               const core::Datatype** type) {
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, buf, send ? "sendbuf" : "recvbuf", ""));
  GPURUN_COLL_TRY(check_count(x.call, x.comm, count, send ? "sendcount" : "recvcount"));
  GPURUN_COLL_TRY(check_type(x.call, x.comm, handle, send ? "sendtype" : "recvtype", type));
  return check_buffer(x.call, x.comm, buf, count, *type, send ? "sendbuf" : "recvbuf");
}

// Names of one side's arguments, for messages.
struct SideNames {
  const char* buf;
  const char* counts;
  const char* displs;
  const char* type;
};

// A v side: `n` counts, their displacements, the datatype, the buffer.
int check_v_side(const Inter& x, const void* buf, const std::int64_t* counts,
                 const std::int64_t* displs, MPI_Datatype handle, const SideNames& name,
                 const core::Datatype** type) {
  if (counts == nullptr || displs == nullptr) {
    return raise(x.call, x.comm, MPI_ERR_ARG, "argument %s is a null pointer",
                 counts == nullptr ? name.counts : name.displs);
  }
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, buf, name.buf, ""));
  GPURUN_COLL_TRY(check_counts(x.call, x.comm, counts, x.remote_size(), name.counts));
  GPURUN_COLL_TRY(check_type(x.call, x.comm, handle, name.type, type));
  std::int64_t total = 0;
  for (int i = 0; i < x.remote_size(); ++i) total += counts[i];
  return check_buffer(x.call, x.comm, buf, total, *type, name.buf);
}

// An alltoallw side: the v checks per process, with its own datatype where its count is not 0.
int check_w_side(const Inter& x, const void* buf, const std::int64_t* counts,
                 const std::int64_t* displs, const MPI_Datatype* handles, const SideNames& name,
                 Types& types) {
  if (counts == nullptr || displs == nullptr || handles == nullptr) {
    return raise(x.call, x.comm, MPI_ERR_ARG, "argument %s, %s or %s is a null pointer",
                 name.counts, name.displs, name.type);
  }
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, buf, name.buf, ""));
  GPURUN_COLL_TRY(check_counts(x.call, x.comm, counts, x.remote_size(), name.counts));
  types.assign(static_cast<std::size_t>(x.remote_size()), find_datatype(MPI_BYTE));
  for (int i = 0; i < x.remote_size(); ++i) {
    if (counts[i] == 0) continue;
    std::string what = std::string(name.type) + "[" + std::to_string(i) + "]";
    GPURUN_COLL_TRY(check_type(x.call, x.comm, handles[i], what.c_str(), &types[i]));
    GPURUN_COLL_TRY(check_buffer(x.call, x.comm, buf, counts[i], types[i], name.buf));
  }
  return MPI_SUCCESS;
}

constexpr SideNames kSendV{"sendbuf", "sendcounts", "displs", "sendtype"};
constexpr SideNames kRecvV{"recvbuf", "recvcounts", "displs", "recvtype"};
constexpr SideNames kSendA{"sendbuf", "sendcounts", "sdispls", "sendtype"};
constexpr SideNames kRecvA{"recvbuf", "recvcounts", "rdispls", "recvtype"};
constexpr SideNames kSendW{"sendbuf", "sendcounts", "sdispls", "sendtypes"};
constexpr SideNames kRecvW{"recvbuf", "recvcounts", "rdispls", "recvtypes"};

int check_reduce_scatter(const Inter& x, InterKind kind, const InterArgs& a, Resolved& out) {
  const Call& call = x.call;
  bool block = kind == InterKind::kReduceScatterBlock;
  if (!block) {
    if (a.recvcounts == nullptr)
      return raise(x.call, x.comm, MPI_ERR_ARG, "argument recvcounts is a null pointer");
    GPURUN_COLL_TRY(check_counts(x.call, x.comm, a.recvcounts, x.local_size(), "recvcounts"));
  }
  std::int64_t total = 0, mine = block ? a.recvcount : a.recvcounts[x.rank()];
  for (int i = 0; i < x.local_size(); ++i) total += block ? a.recvcount : a.recvcounts[i];
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, a.sendbuf, "sendbuf", ""));
  if (block) GPURUN_COLL_TRY(check_count(x.call, x.comm, a.recvcount, "recvcount"));
  GPURUN_COLL_TRY(check_type(x.call, x.comm, a.sendtype, "datatype", &out.stype));
  GPURUN_COLL_TRY(check_buffer(x.call, x.comm, a.sendbuf, total, out.stype, "sendbuf"));
  GPURUN_COLL_TRY(check_buffer(x.call, x.comm, a.recvbuf, mine, out.stype, "recvbuf"));
  GPURUN_CHECK_OP(x.comm, op, a.op, out.stype);
  out.op = op;
  return MPI_SUCCESS;
}

// The v and w forms and the reduce_scatters.
int check_v(const Inter& x, InterKind kind, const InterArgs& a, Resolved& out) {
  if (kind == InterKind::kReduceScatter || kind == InterKind::kReduceScatterBlock)
    return check_reduce_scatter(x, kind, a, out);
  if (kind == InterKind::kAlltoallw) {
    GPURUN_COLL_TRY(
        check_w_side(x, a.recvbuf, a.recvcounts, a.rdispls, a.recvtypes, kRecvW, out.rtypes));
    return check_w_side(x, a.sendbuf, a.sendcounts, a.sdispls, a.sendtypes, kSendW, out.stypes);
  }
  bool rooted = kind == InterKind::kGatherv || kind == InterKind::kScatterv;
  if (rooted) GPURUN_COLL_TRY(check_inter_root(x, a.root));
  if (rooted && a.root == MPI_PROC_NULL) return MPI_SUCCESS;
  bool all = kind == InterKind::kAlltoallv, root_side = a.root == MPI_ROOT;
  bool send_v = all || (kind == InterKind::kScatterv && root_side);
  bool send_one = kind == InterKind::kAllgatherv || (kind == InterKind::kGatherv && !root_side);
  bool recv_v = all || kind == InterKind::kAllgatherv || (kind == InterKind::kGatherv && root_side);
  bool recv_one = kind == InterKind::kScatterv && !root_side;
  if (send_v) {
    GPURUN_COLL_TRY(check_v_side(x, a.sendbuf, a.sendcounts, a.sdispls, a.sendtype,
                                 all ? kSendA : kSendV, &out.stype));
  }
  if (send_one)
    GPURUN_COLL_TRY(check_side(x, a.sendbuf, a.sendcount, a.sendtype, true, &out.stype));
  if (recv_v) {
    GPURUN_COLL_TRY(check_v_side(x, a.recvbuf, a.recvcounts, a.rdispls, a.recvtype,
                                 all ? kRecvA : kRecvV, &out.rtype));
  }
  if (recv_one)
    GPURUN_COLL_TRY(check_side(x, a.recvbuf, a.recvcount, a.recvtype, false, &out.rtype));
  return MPI_SUCCESS;
}

int check(const Inter& x, InterKind kind, const InterArgs& a, Resolved& out) {
  const Call& call = x.call;
  if (kind == InterKind::kBarrier) return MPI_SUCCESS;
  if (kind >= InterKind::kGatherv) return check_v(x, kind, a, out);
  bool rooted = kind == InterKind::kBcast || kind == InterKind::kReduce ||
                kind == InterKind::kGather || kind == InterKind::kScatter;
  if (rooted) GPURUN_COLL_TRY(check_inter_root(x, a.root));
  if (rooted && a.root == MPI_PROC_NULL) return MPI_SUCCESS;  // nothing of it is significant
  bool sends = !(kind == InterKind::kGather && a.root == MPI_ROOT) &&
               !(kind == InterKind::kScatter && a.root != MPI_ROOT) &&
               !(kind == InterKind::kReduce && a.root == MPI_ROOT) &&
               !(kind == InterKind::kBcast && a.root >= 0);
  bool receives = kind != InterKind::kBcast &&
                  !(kind == InterKind::kGather && a.root != MPI_ROOT) &&
                  !(kind == InterKind::kScatter && a.root == MPI_ROOT) &&
                  !(kind == InterKind::kReduce && a.root != MPI_ROOT);
  if (sends || kind == InterKind::kBcast)
    GPURUN_COLL_TRY(check_side(x, a.sendbuf, a.sendcount, a.sendtype, true, &out.stype));
  if (receives)
    GPURUN_COLL_TRY(check_side(x, a.recvbuf, a.recvcount, a.recvtype, false, &out.rtype));
  if (kind == InterKind::kReduce || kind == InterKind::kAllreduce) {
    if (out.stype == nullptr) out.stype = out.rtype;
    GPURUN_CHECK_OP(x.comm, op, a.op, out.stype);
    out.op = op;
  }
  return MPI_SUCCESS;
}

}  // namespace

int inter_collective(const Call& call, MPI_Comm comm, CommEntry& entry, const CollForm& form,
                     InterKind kind, const InterArgs& a) {
  if (kind == InterKind::kUnsupported) {
    return raise(call, comm, MPI_ERR_COMM,
                 "argument comm is an intercommunicator, on which the standard does not define "
                 "%s (it takes an intracommunicator)",
                 call.name);
  }
  const int tag = entry.next_coll_tag();
  const Inter x{call, comm, entry};
  if (int rc = check_form(call, comm, form); rc != MPI_SUCCESS) {
    skip_local_phases(entry, kind, a.root);
    return rc;
  }
  Resolved r;
  if (int rc = check(x, kind, a, r); rc != MPI_SUCCESS) {
    skip_local_phases(entry, kind, a.root);
    return rc;
  }
  if (form.kind != CollForm::Kind::kBlocking) entry.inter_overlap = true;
  const InterCall c{entry, tag, kind, a, r.stype, r.rtype, r.op, r.stypes, r.rtypes};
  Result<std::unique_ptr<coll::Operation>> made = inter_operation(c);
  if (!made.ok()) return raise_status(call, comm, made.status());
  if (form.kind != CollForm::Kind::kBlocking)
    return hand_over(call, comm, *entry.comm, std::move(made).value(), form, r.op, false);
  std::optional<TypeHandleScope> scope;  // a user op's function sees the datatype's handle
  if (r.op != nullptr && !r.op->is_predefined()) scope.emplace(r.stype, a.sendtype);
  return run_operation(call, comm, **made);
}

}  // namespace gpurun::api
