// The collectives that move data from or to a root, or from everyone to everyone, without
// reducing it: MPI_Bcast, MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v), each blocking,
// nonblocking and persistent, with their large-count _c forms.
//
// MPI_IN_PLACE: as sendbuf at the root of a gather and everywhere for an allgather (this rank's
// block is then already in recvbuf); as recvbuf at the root of a scatter (its block stays in
// sendbuf); never for MPI_Bcast. Arguments "significant only at the root" are not looked at
// elsewhere, as the standard says.
#include "api/checks.h"
#include "api/coll.h"
#include "api/intercomm_coll.h"
#include "coll/algorithm.h"

namespace gpurun::api {
namespace {

using coll::Collective;

// One side of a transfer: a buffer of `count` elements (or per-rank counts and displacements)
// of a datatype.
struct Side {
  const void* buf;
  std::int64_t count;
  MPI_Datatype type;
  const std::int64_t* counts = nullptr;  // v forms, widened
  const std::int64_t* displs = nullptr;
};

// The names of one side's arguments, for messages.
struct Names {
  const char* buf;
  const char* count;
  const char* counts;
  const char* displs;
  const char* type;
};
constexpr Names kSend{"sendbuf", "sendcount", "sendcounts", "displs", "sendtype"};
constexpr Names kRecv{"recvbuf", "recvcount", "recvcounts", "displs", "recvtype"};

// Checks a side that moves data: count (or counts and displacements of `n` ranks), datatype,
// buffer. Sets *type.
int check_side(const Call& call, MPI_Comm comm, const Side& s, bool v, int n, const Names& name,
               const core::Datatype** type) {
  std::int64_t total = s.count;
  if (v) {
    if (s.counts == nullptr || s.displs == nullptr) {
      return raise(call, comm, MPI_ERR_ARG, "argument %s is a null pointer",
                   s.counts == nullptr ? name.counts : name.displs);
    }
    GPURUN_COLL_TRY(check_counts(call, comm, s.counts, n, name.counts));
    total = 0;
    for (int i = 0; i < n; ++i) total += s.counts[i];
  } else {
    GPURUN_COLL_TRY(check_count(call, comm, s.count, name.count));
  }
  GPURUN_COLL_TRY(check_type(call, comm, s.type, name.type, type));
  return check_buffer(call, comm, s.buf, total, *type, name.buf);
}

// The key of a call for api/coll_repeat.h.
RepeatKey key_of(Collective collective, MPI_Comm comm, const Side& send, const Side& recv,
                 int root) {
  return repeat_key_of(collective, comm, {send.buf, send.count, send.type},
                       {recv.buf, recv.count, recv.type}, MPI_OP_NULL, root);
}

// The key of a v-form call: its arrays (null where this rank ignores them) count by value.
void add_arrays(RepeatKey& key, const CommEntry& entry, const Side& send, const Side& recv) {
  key.arrays = {send.counts, send.displs, recv.counts, recv.displs};
  key.size = entry.comm->size();
}

int bcast(const Call& call, void* buf, std::int64_t count, MPI_Datatype datatype, int root,
          MPI_Comm comm, const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, comm, form, InterKind::kBcast, buf, count, datatype, nullptr, 0,
                          MPI_DATATYPE_NULL, MPI_OP_NULL, root);
  const Side side{buf, count, datatype};
  const RepeatKey key = key_of(Collective::kBcast, comm, side, side, root);
  const RepeatKey* repeat = repeat_key(form, key);
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, comm, *op);
  GPURUN_COLL_TRY(check_form(call, comm, form));
  GPURUN_COLL_TRY(check_root(call, comm, *entry, root));
  GPURUN_COLL_TRY(check_not_in_place(call, comm, buf, "buffer", ""));
  GPURUN_COLL_TRY(check_count(call, comm, count, "count"));
  const core::Datatype* type;
  GPURUN_COLL_TRY(check_type(call, comm, datatype, "datatype", &type));
  GPURUN_COLL_TRY(check_buffer(call, comm, buf, count, type, "buffer"));
  coll::Args args{.collective = Collective::kBcast,
                  .sendbuf = buf,
                  .recvbuf = buf,
                  .count = count,
                  .type = type,
                  .root = root};
  args.tag = coll_tag;
  return run_collective(call, comm, *entry, args, form, datatype, repeat);
}

InterKind inter_kind(Collective collective) {
  switch (collective) {
    case Collective::kGather:
      return InterKind::kGather;
    case Collective::kGatherv:
      return InterKind::kGatherv;
    case Collective::kAllgather:
      return InterKind::kAllgather;
    case Collective::kAllgatherv:
      return InterKind::kAllgatherv;
    case Collective::kScatter:
      return InterKind::kScatter;
    case Collective::kScatterv:
      return InterKind::kScatterv;
    default:
      return InterKind::kUnsupported;
  }
}

// gather, gatherv, allgather, allgatherv.
int gather(const Call& call, Collective collective, const Side& send, const Side& recv, int root,
           MPI_Comm comm, const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, comm, form, inter_kind(collective), send.buf, send.count,
                          send.type, const_cast<void*>(recv.buf), recv.count, recv.type,
                          MPI_OP_NULL, root, nullptr, nullptr, recv.counts, recv.displs);
  bool v = collective == Collective::kGatherv || collective == Collective::kAllgatherv;
  RepeatKey key = key_of(collective, comm, send, recv, root);
  if (v) add_arrays(key, *entry, send, recv);
  const RepeatKey* repeat = repeat_key(form, key);
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, comm, *op);
  GPURUN_COLL_TRY(check_form(call, comm, form));
  bool rooted = collective == Collective::kGather || collective == Collective::kGatherv;
  if (rooted) GPURUN_COLL_TRY(check_root(call, comm, *entry, root));
  bool receives = !rooted || entry->comm->rank() == root;
  bool in_place = send.buf == MPI_IN_PLACE;
  if (in_place && !receives)
    GPURUN_COLL_TRY(check_not_in_place(call, comm, send.buf, "sendbuf", "at the root"));
  coll::Args args{.collective = collective, .in_place = in_place, .root = root};
  if (!in_place) {
    GPURUN_COLL_TRY(check_side(call, comm, send, false, 0, kSend, &args.type));
    args.sendbuf = send.buf;
    args.count = send.count;
  }
  if (receives) {
    GPURUN_COLL_TRY(check_not_in_place(call, comm, recv.buf, "recvbuf", ""));
    GPURUN_COLL_TRY(check_side(call, comm, recv, v, entry->comm->size(), kRecv, &args.recvtype));
    args.recvbuf = const_cast<void*>(recv.buf);
    args.recvcount = recv.count;
    args.recvcounts = recv.counts;
    args.rdispls = recv.displs;
  }
  args.tag = coll_tag;
  return run_collective(call, comm, *entry, args, form, in_place ? recv.type : send.type, repeat);
}

// scatter, scatterv.
int scatter(const Call& call, Collective collective, const Side& send, const Side& recv, int root,
            MPI_Comm comm, const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, comm, form, inter_kind(collective), send.buf, send.count,
                          send.type, const_cast<void*>(recv.buf), recv.count, recv.type,
                          MPI_OP_NULL, root, send.counts, send.displs);
  bool v = collective == Collective::kScatterv;
  RepeatKey key = key_of(collective, comm, send, recv, root);
  if (v) add_arrays(key, *entry, send, recv);
  const RepeatKey* repeat = repeat_key(form, key);
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, comm, *op);
  GPURUN_COLL_TRY(check_form(call, comm, form));
  GPURUN_COLL_TRY(check_root(call, comm, *entry, root));
  bool sends = entry->comm->rank() == root;
  bool in_place = recv.buf == MPI_IN_PLACE;
  if (in_place && !sends)
    GPURUN_COLL_TRY(check_not_in_place(call, comm, recv.buf, "recvbuf", "at the root"));
  coll::Args args{.collective = collective, .in_place = in_place, .root = root};
  if (sends) {
    GPURUN_COLL_TRY(check_not_in_place(call, comm, send.buf, "sendbuf", ""));
    GPURUN_COLL_TRY(check_side(call, comm, send, v, entry->comm->size(), kSend, &args.type));
    args.sendbuf = send.buf;
    args.count = send.count;
    args.sendcounts = send.counts;
    args.sdispls = send.displs;
  }
  if (!in_place) {
    GPURUN_COLL_TRY(check_side(call, comm, recv, false, 0, kRecv, &args.recvtype));
    args.recvbuf = const_cast<void*>(recv.buf);
    args.recvcount = recv.count;
  }
  args.tag = coll_tag;
  return run_collective(call, comm, *entry, args, form, sends ? send.type : recv.type, repeat);
}

// The v forms' arrays, widened to int64 (at ranks where they are significant and given).
struct Widened {
  WideArray counts, displs;
  template <class Count, class Displ>
  Widened(MPI_Comm comm, bool significant, const Count* c, const Displ* d) {
    CommEntry* entry = find_comm(comm);
    if (entry == nullptr || !significant) return;
    int n = entry->comm->size();
    if (c != nullptr) counts.assign(c, n);
    if (d != nullptr) displs.assign(d, n);
  }
  const std::int64_t* c() const { return counts.data(); }
  const std::int64_t* d() const { return displs.data(); }
};

// Whether this process is the root (on an intercommunicator: passes MPI_ROOT).
bool is_root(MPI_Comm comm, int root) {
  CommEntry* entry = find_comm(comm);
  if (entry == nullptr) return false;
  return entry->comm->inter() ? root == MPI_ROOT : entry->comm->rank() == root;
}

template <class Count, class Displ>
int gatherv(const Call& call, Collective collective, const Side& send, void* recvbuf,
            const Count* recvcounts, const Displ* displs, MPI_Datatype recvtype, int root,
            MPI_Comm comm, const CollForm& form) {
  bool significant = collective == Collective::kAllgatherv || is_root(comm, root);
  Widened w(comm, significant, recvcounts, displs);
  return gather(call, collective, send, Side{recvbuf, 0, recvtype, w.c(), w.d()}, root, comm, form);
}

template <class Count, class Displ>
int scatterv(const Call& call, const void* sendbuf, const Count* sendcounts, const Displ* displs,
             MPI_Datatype sendtype, const Side& recv, int root, MPI_Comm comm,
             const CollForm& form) {
  Widened w(comm, is_root(comm, root), sendcounts, displs);
  return scatter(call, Collective::kScatterv, Side{sendbuf, 0, sendtype, w.c(), w.d()}, recv, root,
                 comm, form);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::coll::Collective;

#define GPURUN_BCAST(sfx, count_t)                                                  \
  GPURUN_COLL_FORMS(MPI_Bcast##sfx, MPI_Ibcast##sfx, MPI_Bcast_init##sfx,           \
                    (void* buffer, count_t count, MPI_Datatype datatype, int root), \
                    (bcast(call, buffer, count, datatype, root, comm, form)))
GPURUN_BCAST(, int)
GPURUN_BCAST(_c, MPI_Count)

#define GPURUN_GATHER(name, iname, initname, collective, count_t)                                  \
  GPURUN_COLL_FORMS(name, iname, initname,                                                         \
                    (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf, \
                     count_t recvcount, MPI_Datatype recvtype, int root),                          \
                    (gather(call, collective, Side{sendbuf, sendcount, sendtype},                  \
                            Side{recvbuf, recvcount, recvtype}, root, comm, form)))
GPURUN_GATHER(MPI_Gather, MPI_Igather, MPI_Gather_init, Collective::kGather, int)
GPURUN_GATHER(MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, Collective::kGather, MPI_Count)

#define GPURUN_ALLGATHER(sfx, count_t)                                                             \
  GPURUN_COLL_FORMS(MPI_Allgather##sfx, MPI_Iallgather##sfx, MPI_Allgather_init##sfx,              \
                    (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf, \
                     count_t recvcount, MPI_Datatype recvtype),                                    \
                    (gather(call, Collective::kAllgather, Side{sendbuf, sendcount, sendtype},      \
                            Side{recvbuf, recvcount, recvtype}, 0, comm, form)))
GPURUN_ALLGATHER(, int)
GPURUN_ALLGATHER(_c, MPI_Count)

#define GPURUN_GATHERV(sfx, count_t, displ_t)                                                \
  GPURUN_COLL_FORMS(                                                                         \
      MPI_Gatherv##sfx, MPI_Igatherv##sfx, MPI_Gatherv_init##sfx,                            \
      (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf,         \
       const count_t recvcounts[], const displ_t displs[], MPI_Datatype recvtype, int root), \
      (gatherv(call, Collective::kGatherv, Side{sendbuf, sendcount, sendtype}, recvbuf,      \
               recvcounts, displs, recvtype, root, comm, form)))
GPURUN_GATHERV(, int, int)
GPURUN_GATHERV(_c, MPI_Count, MPI_Aint)

#define GPURUN_ALLGATHERV(sfx, count_t, displ_t)                                                   \
  GPURUN_COLL_FORMS(MPI_Allgatherv##sfx, MPI_Iallgatherv##sfx, MPI_Allgatherv_init##sfx,           \
                    (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf, \
                     const count_t recvcounts[], const displ_t displs[], MPI_Datatype recvtype),   \
                    (gatherv(call, Collective::kAllgatherv, Side{sendbuf, sendcount, sendtype},    \
                             recvbuf, recvcounts, displs, recvtype, 0, comm, form)))
GPURUN_ALLGATHERV(, int, int)
GPURUN_ALLGATHERV(_c, MPI_Count, MPI_Aint)

#define GPURUN_SCATTER(sfx, count_t)                                                               \
  GPURUN_COLL_FORMS(MPI_Scatter##sfx, MPI_Iscatter##sfx, MPI_Scatter_init##sfx,                    \
                    (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf, \
                     count_t recvcount, MPI_Datatype recvtype, int root),                          \
                    (scatter(call, Collective::kScatter, Side{sendbuf, sendcount, sendtype},       \
                             Side{recvbuf, recvcount, recvtype}, root, comm, form)))
GPURUN_SCATTER(, int)
GPURUN_SCATTER(_c, MPI_Count)

#define GPURUN_SCATTERV(sfx, count_t, displ_t)                                                    \
  GPURUN_COLL_FORMS(                                                                              \
      MPI_Scatterv##sfx, MPI_Iscatterv##sfx, MPI_Scatterv_init##sfx,                              \
      (const void* sendbuf, const count_t sendcounts[], const displ_t displs[],                   \
       MPI_Datatype sendtype, void* recvbuf, count_t recvcount, MPI_Datatype recvtype, int root), \
      (scatterv(call, sendbuf, sendcounts, displs, sendtype, Side{recvbuf, recvcount, recvtype},  \
                root, comm, form)))
GPURUN_SCATTERV(, int, int)
GPURUN_SCATTERV(_c, MPI_Count, MPI_Aint)
