// Blocking collectives on intercommunicators (api/intercomm_coll.h).
//
// Each group works on its local communicator (CommEntry::local, a duplicate of the group's)
// with the intracommunicator algorithms, and the groups meet through point-to-point messages on
// the intercommunicator's collective channel, at the call's tag (both groups call the
// collectives of an intercommunicator in the same order):
//   barrier    local barrier, the leaders (rank 0 of each group) exchange, local barrier
//   bcast      the root sends to the other group's leader, which broadcasts locally
//   reduce     the other group reduces to its leader, which sends to the root
//   allreduce  each group reduces to its leader, the leaders exchange, each broadcasts locally
//              (a group gets the other group's reduction)
//   allgather  each group gathers to its leader, the leaders exchange, each broadcasts locally
//   gather, scatter, alltoall  straight between the root (or every process) and the other group
// The root's group passes MPI_ROOT at the root and MPI_PROC_NULL elsewhere; the other group the
// root's rank in the root's group.
#include "api/intercomm_coll.h"

#include <vector>

#include "api/checks.h"
#include "api/datatypes.h"
#include "api/ops.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

struct Inter {
  const Call& call;
  MPI_Comm comm;
  CommEntry& entry;
  int tag;
  int rank() const { return entry.comm->rank(); }
  int remote_size() const { return entry.comm->size(); }
  int local_size() const { return entry.comm->shared_local_group()->size(); }
};

// Messages with remote ranks: receives posted first, then sends, then a wait for all.
class Exchange {
 public:
  explicit Exchange(const Inter& x) : x_(x) {}
  ~Exchange() {
    for (core::Request* r : requests_) the_pml().requests().release(r);
  }
  Status recv(int from, void* buf, std::int64_t count, const core::Datatype* type) {
    core::Request* r = the_pml().requests().allocate();
    requests_.push_back(r);
    return the_pml().irecv(
        {x_.entry.comm.get(), buf, count, type, from, x_.tag, pml::Channel::kColl}, r);
  }
  Status send(int to, const void* buf, std::int64_t count, const core::Datatype* type) {
    core::Request* r = the_pml().requests().allocate();
    requests_.push_back(r);
    return the_pml().isend({x_.entry.comm.get(), buf, count, type, to, x_.tag,
                            pml::SendMode::kStandard, pml::Channel::kColl},
                           r);
  }
  int wait() {
    wait_until([this] {
      for (core::Request* r : requests_)
        if (!r->complete()) return false;
      return true;
    });
    for (core::Request* r : requests_) {
      if (r->status.error != ErrorCode::kOk) {
        return raise(x_.call, x_.comm, error_class_of(r->status.error),
                     "a message with the other group failed (%s)",
                     std::string(error_code_name(r->status.error)).c_str());
      }
    }
    return MPI_SUCCESS;
  }

 private:
  const Inter& x_;
  std::vector<core::Request*> requests_;
};

// Room for `count` elements of `type`, and where element 0 goes in it.
struct Scratch {
  Scratch(std::int64_t count, const core::Datatype& type)
      : bytes(static_cast<std::size_t>(
            count == 0 ? 0 : (count - 1) * type.extent() + type.true_extent())) {}
  void* base() { return bytes.data() - lb; }
  std::vector<std::byte> bytes;
  std::int64_t lb = 0;
};

std::byte* at(const void* buf, std::int64_t index, std::int64_t count, const core::Datatype& t) {
  return static_cast<std::byte*>(const_cast<void*>(buf)) + index * count * t.extent();
}

int leaders_swap(const Inter& x, const void* out, std::int64_t out_count,
                 const core::Datatype* out_type, void* in, std::int64_t in_count,
                 const core::Datatype* in_type) {
  if (x.rank() != 0) return MPI_SUCCESS;
  Exchange e(x);
  Status st = e.recv(0, in, in_count, in_type);
  if (st.ok()) st = e.send(0, out, out_count, out_type);
  if (!st.ok()) return raise_status(x.call, x.comm, st);
  return e.wait();
}

int barrier(const Inter& x) {
  GPURUN_COLL_TRY(PMPI_Barrier(x.entry.local));
  const core::Datatype* bytes = find_datatype(MPI_BYTE);
  GPURUN_COLL_TRY(leaders_swap(x, nullptr, 0, bytes, nullptr, 0, bytes));
  return PMPI_Barrier(x.entry.local);
}

int check_inter_root(const Inter& x, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < x.remote_size()))
    return MPI_SUCCESS;
  return raise(x.call, x.comm, MPI_ERR_ROOT,
               "argument root %d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote "
               "group (size %d)",
               root, x.remote_size());
}

int bcast(const Inter& x, const InterArgs& a, const core::Datatype* type) {
  if (a.root == MPI_PROC_NULL) return MPI_SUCCESS;
  Exchange e(x);
  if (a.root == MPI_ROOT) {
    if (Status st = e.send(0, a.sendbuf, a.sendcount, type); !st.ok())
      return raise_status(x.call, x.comm, st);
    return e.wait();
  }
  if (x.rank() == 0) {
    if (Status st = e.recv(a.root, const_cast<void*>(a.sendbuf), a.sendcount, type); !st.ok())
      return raise_status(x.call, x.comm, st);
    GPURUN_COLL_TRY(e.wait());
  }
  return PMPI_Bcast(const_cast<void*>(a.sendbuf), static_cast<int>(a.sendcount), a.sendtype, 0,
                    x.entry.local);
}

int reduce(const Inter& x, const InterArgs& a, const core::Datatype* type, bool all) {
  if (!all && a.root == MPI_PROC_NULL) return MPI_SUCCESS;
  Exchange e(x);
  if (!all && a.root == MPI_ROOT) {
    if (Status st = e.recv(0, a.recvbuf, a.sendcount, type); !st.ok())
      return raise_status(x.call, x.comm, st);
    return e.wait();
  }
  Scratch mine(a.sendcount, *type);
  mine.lb = type->true_lb();
  GPURUN_COLL_TRY(PMPI_Reduce(a.sendbuf, mine.base(), static_cast<int>(a.sendcount), a.sendtype,
                              a.op, 0, x.entry.local));
  if (!all) {
    if (x.rank() != 0) return MPI_SUCCESS;
    if (Status st = e.send(a.root, mine.base(), a.sendcount, type); !st.ok())
      return raise_status(x.call, x.comm, st);
    return e.wait();
  }
  GPURUN_COLL_TRY(leaders_swap(x, mine.base(), a.sendcount, type, a.recvbuf, a.sendcount, type));
  return PMPI_Bcast(a.recvbuf, static_cast<int>(a.sendcount), a.sendtype, 0, x.entry.local);
}

int allgather(const Inter& x, const InterArgs& a, const core::Datatype* stype,
              const core::Datatype* rtype) {
  std::int64_t gathered = a.sendcount * x.local_size();
  Scratch mine(gathered, *stype);
  mine.lb = stype->true_lb();
  GPURUN_COLL_TRY(PMPI_Gather(a.sendbuf, static_cast<int>(a.sendcount), a.sendtype, mine.base(),
                              static_cast<int>(a.sendcount), a.sendtype, 0, x.entry.local));
  std::int64_t theirs = a.recvcount * x.remote_size();
  GPURUN_COLL_TRY(leaders_swap(x, mine.base(), gathered, stype, a.recvbuf, theirs, rtype));
  return PMPI_Bcast(a.recvbuf, static_cast<int>(theirs), a.recvtype, 0, x.entry.local);
}

// gather, scatter and alltoall: point-to-point between the groups.
int direct(const Inter& x, InterKind kind, const InterArgs& a, const core::Datatype* stype,
           const core::Datatype* rtype) {
  Exchange e(x);
  Status st;
  bool root_side = a.root == MPI_ROOT, all = kind == InterKind::kAlltoall;
  if (!all && a.root == MPI_PROC_NULL) return MPI_SUCCESS;
  for (int r = 0; r < x.remote_size() && st.ok(); ++r) {
    if (all || (kind == InterKind::kGather && root_side))
      st = e.recv(r, at(a.recvbuf, r, a.recvcount, *rtype), a.recvcount, rtype);
  }
  if (kind == InterKind::kScatter && !root_side && st.ok())
    st = e.recv(a.root, a.recvbuf, a.recvcount, rtype);
  for (int r = 0; r < x.remote_size() && st.ok(); ++r) {
    if (all || (kind == InterKind::kScatter && root_side))
      st = e.send(r, at(a.sendbuf, r, a.sendcount, *stype), a.sendcount, stype);
  }
  if (kind == InterKind::kGather && !root_side && st.ok())
    st = e.send(a.root, a.sendbuf, a.sendcount, stype);
  if (!st.ok()) return raise_status(x.call, x.comm, st);
  return e.wait();
}

// The buffer, count and datatype of one side (`send` or not), when the call moves it.
int check_side(const Inter& x, const void* buf, std::int64_t count, MPI_Datatype handle, bool send,
               const core::Datatype** type) {
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, buf, send ? "sendbuf" : "recvbuf", ""));
  GPURUN_COLL_TRY(check_count(x.call, x.comm, count, send ? "sendcount" : "recvcount"));
  GPURUN_COLL_TRY(check_type(x.call, x.comm, handle, send ? "sendtype" : "recvtype", type));
  return check_buffer(x.call, x.comm, buf, count, *type, send ? "sendbuf" : "recvbuf");
}

int run(const Inter& x, InterKind kind, const InterArgs& a) {
  const Call& call = x.call;
  if (kind == InterKind::kBarrier) return barrier(x);
  bool rooted = kind == InterKind::kBcast || kind == InterKind::kReduce ||
                kind == InterKind::kGather || kind == InterKind::kScatter;
  if (rooted) GPURUN_COLL_TRY(check_inter_root(x, a.root));
  if (rooted && a.root == MPI_PROC_NULL) return MPI_SUCCESS;  // nothing of it is significant
  const core::Datatype *stype = nullptr, *rtype = nullptr;
  bool sends = !(kind == InterKind::kGather && a.root == MPI_ROOT) &&
               !(kind == InterKind::kScatter && a.root != MPI_ROOT) &&
               !(kind == InterKind::kReduce && a.root == MPI_ROOT) &&
               !(kind == InterKind::kBcast && a.root >= 0);
  bool receives = kind != InterKind::kBcast &&
                  !(kind == InterKind::kGather && a.root != MPI_ROOT) &&
                  !(kind == InterKind::kScatter && a.root == MPI_ROOT) &&
                  !(kind == InterKind::kReduce && a.root != MPI_ROOT);
  if (sends || kind == InterKind::kBcast)
    GPURUN_COLL_TRY(check_side(x, a.sendbuf, a.sendcount, a.sendtype, true, &stype));
  if (receives) GPURUN_COLL_TRY(check_side(x, a.recvbuf, a.recvcount, a.recvtype, false, &rtype));
  if (kind == InterKind::kReduce || kind == InterKind::kAllreduce) {
    if (stype == nullptr) stype = rtype;
    GPURUN_CHECK_OP(x.comm, op, a.op, stype);
    (void)op;
  }
  switch (kind) {
    case InterKind::kBcast:
      return bcast(x, a, stype);
    case InterKind::kReduce:
    case InterKind::kAllreduce:
      return reduce(x, a, stype, kind == InterKind::kAllreduce);
    case InterKind::kAllgather:
      return allgather(x, a, stype, rtype);
    default:
      return direct(x, kind, a, stype, rtype);
  }
}

}  // namespace

int inter_collective(const Call& call, MPI_Comm comm, CommEntry& entry, const CollForm& form,
                     InterKind kind, const InterArgs& a) {
  if (form.kind != CollForm::Kind::kBlocking || kind == InterKind::kUnsupported) {
    return raise(call, comm, MPI_ERR_UNSUPPORTED_OPERATION,
                 "argument comm is an intercommunicator: gpurun runs the blocking MPI_Barrier, "
                 "MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Gather, MPI_Allgather, MPI_Scatter "
                 "and MPI_Alltoall on one, not this call");
  }
  const Inter x{call, comm, entry, entry.next_coll_tag()};
  return run(x, kind, a);
}

}  // namespace gpurun::api
