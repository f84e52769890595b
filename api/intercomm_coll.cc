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
//   the v and w forms, allgatherv  straight, block by block, as their arrays say
//   reduce_scatter(_block)  each group reduces to its leader, the leaders exchange, each
//              scatters the other group's reduction locally (the two groups' vectors must be
//              of one length: local size x recvcount, or the sum of the local recvcounts)
// The root's group passes MPI_ROOT at the root and MPI_PROC_NULL elsewhere; the other group the
// root's rank in the root's group.
#include "api/intercomm_coll.h"

#include <optional>
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
    expected_.push_back(count * type->size());
    return the_pml().irecv(
        {x_.entry.comm.get(), buf, count, type, from, x_.tag, pml::Channel::kColl}, r);
  }
  Status send(int to, const void* buf, std::int64_t count, const core::Datatype* type) {
    core::Request* r = the_pml().requests().allocate();
    requests_.push_back(r);
    expected_.push_back(-1);
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
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const core::Request* r = requests_[i];
      if (r->status.error != ErrorCode::kOk) {
        return raise(x_.call, x_.comm, error_class_of(r->status.error),
                     "a message with the other group failed (%s)",
                     std::string(error_code_name(r->status.error)).c_str());
      }
      // A collective's counts must match: a shorter message is the other side's mistake too.
      if (expected_[i] >= 0 && r->status.bytes != static_cast<std::uint64_t>(expected_[i])) {
        return raise(x_.call, x_.comm, MPI_ERR_TRUNCATE,
                     "rank %d of the other group sent %lld bytes where this call expects %lld "
                     "(the groups' counts differ)",
                     r->status.source, static_cast<long long>(r->status.bytes),
                     static_cast<long long>(expected_[i]));
      }
    }
    return MPI_SUCCESS;
  }

 private:
  const Inter& x_;
  std::vector<core::Request*> requests_;
  std::vector<std::int64_t> expected_;  // per request: a receive's bytes, -1 for a send
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

// The local phase after the leaders' swap runs even when the swap failed, so that the group's
// other members do not wait for a leader that left; the swap's error comes first.
int after_swap(int swapped, int local) { return swapped != MPI_SUCCESS ? swapped : local; }

int barrier(const Inter& x) {
  GPURUN_COLL_TRY(PMPI_Barrier(x.entry.local));
  const core::Datatype* bytes = find_datatype(MPI_BYTE);
  int swapped = leaders_swap(x, nullptr, 0, bytes, nullptr, 0, bytes);
  return after_swap(swapped, PMPI_Barrier(x.entry.local));
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
  int swapped = leaders_swap(x, mine.base(), a.sendcount, type, a.recvbuf, a.sendcount, type);
  return after_swap(
      swapped, PMPI_Bcast(a.recvbuf, static_cast<int>(a.sendcount), a.sendtype, 0, x.entry.local));
}

int allgather(const Inter& x, const InterArgs& a, const core::Datatype* stype,
              const core::Datatype* rtype) {
  std::int64_t gathered = a.sendcount * x.local_size();
  Scratch mine(gathered, *stype);
  mine.lb = stype->true_lb();
  GPURUN_COLL_TRY(PMPI_Gather(a.sendbuf, static_cast<int>(a.sendcount), a.sendtype, mine.base(),
                              static_cast<int>(a.sendcount), a.sendtype, 0, x.entry.local));
  std::int64_t theirs = a.recvcount * x.remote_size();
  int swapped = leaders_swap(x, mine.base(), gathered, stype, a.recvbuf, theirs, rtype);
  return after_swap(swapped,
                    PMPI_Bcast(a.recvbuf, static_cast<int>(theirs), a.recvtype, 0, x.entry.local));
}

// One block of a transfer with one remote process.
struct Block {
  void* buf;
  std::int64_t count;
  const core::Datatype* type;
};
using MaybeBlock = std::optional<Block>;

// Receives (posted first) and sends one block per remote process where recv_of / send_of
// give one.
template <class RecvOf, class SendOf>
int blocks(const Inter& x, RecvOf&& recv_of, SendOf&& send_of) {
  Exchange e(x);
  Status st;
  for (int r = 0; r < x.remote_size() && st.ok(); ++r)
    if (MaybeBlock b = recv_of(r)) st = e.recv(r, b->buf, b->count, b->type);
  for (int r = 0; r < x.remote_size() && st.ok(); ++r)
    if (MaybeBlock b = send_of(r)) st = e.send(r, b->buf, b->count, b->type);
  if (!st.ok()) return raise_status(x.call, x.comm, st);
  return e.wait();
}

// gather, scatter and alltoall: point-to-point between the groups.
int direct(const Inter& x, InterKind kind, const InterArgs& a, const core::Datatype* stype,
           const core::Datatype* rtype) {
  bool root_side = a.root == MPI_ROOT, all = kind == InterKind::kAlltoall;
  auto recv_of = [&](int r) -> MaybeBlock {
    if (all || (kind == InterKind::kGather && root_side))
      return Block{at(a.recvbuf, r, a.recvcount, *rtype), a.recvcount, rtype};
    if (kind == InterKind::kScatter && !root_side && r == a.root)
      return Block{a.recvbuf, a.recvcount, rtype};
    return std::nullopt;
  };
  auto send_of = [&](int r) -> MaybeBlock {
    if (all || (kind == InterKind::kScatter && root_side))
      return Block{at(a.sendbuf, r, a.sendcount, *stype), a.sendcount, stype};
    if (kind == InterKind::kGather && !root_side && r == a.root)
      return Block{const_cast<void*>(a.sendbuf), a.sendcount, stype};
    return std::nullopt;
  };
  return blocks(x, recv_of, send_of);
}

// The buffer, count and datatype of one side (`send` or not), when the call moves it.
int check_side(const Inter& x, const void* buf, std::int64_t count, MPI_Datatype handle, bool send,
               const core::Datatype** type) {
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, buf, send ? "sendbuf" : "recvbuf", ""));
  GPURUN_COLL_TRY(check_count(x.call, x.comm, count, send ? "sendcount" : "recvcount"));
  GPURUN_COLL_TRY(check_type(x.call, x.comm, handle, send ? "sendtype" : "recvtype", type));
  return check_buffer(x.call, x.comm, buf, count, *type, send ? "sendbuf" : "recvbuf");
}

std::byte* displaced(const void* buf, std::int64_t bytes) {
  return static_cast<std::byte*>(const_cast<void*>(buf)) + bytes;
}

// gatherv, scatterv, allgatherv, alltoallv.
int direct_v(const Inter& x, InterKind kind, const InterArgs& a, const core::Datatype* stype,
             const core::Datatype* rtype) {
  bool root_side = a.root == MPI_ROOT;
  bool to_all = kind == InterKind::kAlltoallv || kind == InterKind::kAllgatherv;
  auto recv_of = [&](int r) -> MaybeBlock {
    if (to_all || (kind == InterKind::kGatherv && root_side))
      return Block{displaced(a.recvbuf, a.rdispls[r] * rtype->extent()), a.recvcounts[r], rtype};
    if (kind == InterKind::kScatterv && !root_side && r == a.root)
      return Block{a.recvbuf, a.recvcount, rtype};
    return std::nullopt;
  };
  auto send_of = [&](int r) -> MaybeBlock {
    if (kind == InterKind::kAlltoallv || (kind == InterKind::kScatterv && root_side))
      return Block{displaced(a.sendbuf, a.sdispls[r] * stype->extent()), a.sendcounts[r], stype};
    bool one = kind == InterKind::kAllgatherv || (kind == InterKind::kGatherv && r == a.root);
    if (one && !root_side) return Block{const_cast<void*>(a.sendbuf), a.sendcount, stype};
    return std::nullopt;
  };
  return blocks(x, recv_of, send_of);
}

using Types = std::vector<const core::Datatype*>;

int alltoallw(const Inter& x, const InterArgs& a, const Types& stypes, const Types& rtypes) {
  auto recv_of = [&](int r) -> MaybeBlock {
    return Block{displaced(a.recvbuf, a.rdispls[r]), a.recvcounts[r], rtypes[r]};
  };
  auto send_of = [&](int r) -> MaybeBlock {
    return Block{displaced(a.sendbuf, a.sdispls[r]), a.sendcounts[r], stypes[r]};
  };
  return blocks(x, recv_of, send_of);
}

int reduce_scatter(const Inter& x, const InterArgs& a, const core::Datatype* type, bool block) {
  int n = x.local_size();
  std::vector<MPI_Count> counts(static_cast<std::size_t>(n));
  std::vector<MPI_Aint> displs(static_cast<std::size_t>(n));
  MPI_Count total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    counts[i] = block ? a.recvcount : a.recvcounts[i];
    displs[i] = static_cast<MPI_Aint>(total);
    total += counts[i];
  }
  Scratch mine(total, *type), theirs(x.rank() == 0 ? total : 0, *type);
  mine.lb = theirs.lb = type->true_lb();
  GPURUN_COLL_TRY(PMPI_Reduce_c(a.sendbuf, mine.base(), total, a.sendtype, a.op, 0, x.entry.local));
  int swapped = leaders_swap(x, mine.base(), total, type, theirs.base(), total, type);
  return after_swap(
      swapped,
      PMPI_Scatterv_c(theirs.base(), counts.data(), displs.data(), a.sendtype, a.recvbuf,
                      counts[static_cast<std::size_t>(x.rank())], a.sendtype, 0, x.entry.local));
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

int run_reduce_scatter(const Inter& x, InterKind kind, const InterArgs& a) {
  const Call& call = x.call;
  bool block = kind == InterKind::kReduceScatterBlock;
  if (!block) {
    if (a.recvcounts == nullptr)
      return raise(x.call, x.comm, MPI_ERR_ARG, "argument recvcounts is a null pointer");
    GPURUN_COLL_TRY(check_counts(x.call, x.comm, a.recvcounts, x.local_size(), "recvcounts"));
  }
  std::int64_t total = 0, mine = block ? a.recvcount : a.recvcounts[x.rank()];
  for (int i = 0; i < x.local_size(); ++i) total += block ? a.recvcount : a.recvcounts[i];
  const core::Datatype* type = nullptr;
  GPURUN_COLL_TRY(check_not_in_place(x.call, x.comm, a.sendbuf, "sendbuf", ""));
  if (block) GPURUN_COLL_TRY(check_count(x.call, x.comm, a.recvcount, "recvcount"));
  GPURUN_COLL_TRY(check_type(x.call, x.comm, a.sendtype, "datatype", &type));
  GPURUN_COLL_TRY(check_buffer(x.call, x.comm, a.sendbuf, total, type, "sendbuf"));
  GPURUN_COLL_TRY(check_buffer(x.call, x.comm, a.recvbuf, mine, type, "recvbuf"));
  GPURUN_CHECK_OP(x.comm, op, a.op, type);
  (void)op;
  return reduce_scatter(x, a, type, block);
}

// The v and w forms and the reduce_scatters.
int run_v(const Inter& x, InterKind kind, const InterArgs& a) {
  if (kind == InterKind::kReduceScatter || kind == InterKind::kReduceScatterBlock)
    return run_reduce_scatter(x, kind, a);
  if (kind == InterKind::kAlltoallw) {
    Types stypes, rtypes;
    GPURUN_COLL_TRY(
        check_w_side(x, a.recvbuf, a.recvcounts, a.rdispls, a.recvtypes, kRecvW, rtypes));
    GPURUN_COLL_TRY(
        check_w_side(x, a.sendbuf, a.sendcounts, a.sdispls, a.sendtypes, kSendW, stypes));
    return alltoallw(x, a, stypes, rtypes);
  }
  bool rooted = kind == InterKind::kGatherv || kind == InterKind::kScatterv;
  if (rooted) GPURUN_COLL_TRY(check_inter_root(x, a.root));
  if (rooted && a.root == MPI_PROC_NULL) return MPI_SUCCESS;
  bool all = kind == InterKind::kAlltoallv, root_side = a.root == MPI_ROOT;
  bool send_v = all || (kind == InterKind::kScatterv && root_side);
  bool send_one = kind == InterKind::kAllgatherv || (kind == InterKind::kGatherv && !root_side);
  bool recv_v = all || kind == InterKind::kAllgatherv || (kind == InterKind::kGatherv && root_side);
  bool recv_one = kind == InterKind::kScatterv && !root_side;
  const core::Datatype *stype = nullptr, *rtype = nullptr;
  if (send_v) {
    GPURUN_COLL_TRY(check_v_side(x, a.sendbuf, a.sendcounts, a.sdispls, a.sendtype,
                                 all ? kSendA : kSendV, &stype));
  }
  if (send_one) GPURUN_COLL_TRY(check_side(x, a.sendbuf, a.sendcount, a.sendtype, true, &stype));
  if (recv_v) {
    GPURUN_COLL_TRY(check_v_side(x, a.recvbuf, a.recvcounts, a.rdispls, a.recvtype,
                                 all ? kRecvA : kRecvV, &rtype));
  }
  if (recv_one) GPURUN_COLL_TRY(check_side(x, a.recvbuf, a.recvcount, a.recvtype, false, &rtype));
  return direct_v(x, kind, a, stype, rtype);
}

int run(const Inter& x, InterKind kind, const InterArgs& a) {
  const Call& call = x.call;
  if (kind == InterKind::kBarrier) return barrier(x);
  if (kind >= InterKind::kGatherv) return run_v(x, kind, a);
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
                 "argument comm is an intercommunicator: gpurun runs the blocking collectives "
                 "on one, not the nonblocking, persistent or scan forms");
  }
  const Inter x{call, comm, entry, entry.next_coll_tag()};
  return run(x, kind, a);
}

}  // namespace gpurun::api
