// MPI_Barrier and the all-to-all exchanges MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw, each
// blocking, nonblocking and persistent, with the large-count _c forms of the exchanges.
//
// MPI_IN_PLACE as sendbuf of an exchange: the data to send is in recvbuf, laid out as the
// receive arguments say, and is replaced by the data received.
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/coll.h"
#include "api/intercomm_coll.h"
#include "coll/algorithm.h"
#include "coll/schedule.h"

namespace gpurun::api {
namespace {

using coll::Collective;

int barrier(const Call& call, MPI_Comm comm, const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, comm, form, InterKind::kBarrier);
  const RepeatKey key{.collective = Collective::kBarrier, .comm = comm};
  const RepeatKey* repeat = repeat_key(form, key);
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, comm, *op);
  GPURUN_COLL_TRY(check_form(call, comm, form));
  coll::Args args{.collective = Collective::kBarrier};
  args.tag = coll_tag;
  return run_collective(call, comm, *entry, args, form, MPI_DATATYPE_NULL, repeat);
}

// One side of an exchange: `count` x `type` per rank (alltoall), counts and displacements in
// elements of `type` (alltoallv), or counts, byte displacements and one type per rank
// (alltoallw). Arrays widened to int64; types resolved by check_side.
struct Side {
  // Constructors, not an aggregate: aggregate initialization zeroed the arrays' inline values
  // (some 140 instructions of every MPI_Alltoall, which reads none of them).
  Side() = default;
  explicit Side(const void* b, std::int64_t c = 0, MPI_Datatype t = MPI_DATATYPE_NULL)
      : buf(b), count(c), type(t) {}

  const void* buf = nullptr;
  std::int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  WideArray counts, displs;
  const MPI_Datatype* types = nullptr;
  bool arrays_given = true;                     // the v/w forms' arrays were not null
  std::vector<const core::Datatype*> resolved;  // alltoallw: per-rank types
};

// The names of one side's arguments, for messages.
struct Names {
  const char* buf;
  const char* count;
  const char* counts;
  const char* arrays;  // when one of the arrays is missing
  const char* type;
  const char* types;
};
constexpr Names kSend{"sendbuf",  "sendcount", "sendcounts", "sendcounts, sdispls or sendtypes",
                      "sendtype", "sendtypes"};
constexpr Names kRecv{"recvbuf",  "recvcount", "recvcounts", "recvcounts, rdispls or recvtypes",
                      "recvtype", "recvtypes"};

// alltoallw: each rank's type, valid and committed where its count is not 0.
int check_types(const Call& call, MPI_Comm comm, Side& s, int n, const Names& name) {
  s.resolved.assign(n, &coll::byte_type());  // moves nothing where the count is 0
  for (int i = 0; i < n; ++i) {
    if (s.counts[i] == 0) continue;
    const core::Datatype* t = find_datatype(s.types[i]);
    if (t == nullptr || !t->committed()) {
      std::string what = std::string(name.types) + "[" + std::to_string(i) + "]";
      return check_type(call, comm, s.types[i], what.c_str(), &t);
    }
    s.resolved[i] = t;
    GPURUN_COLL_TRY(check_buffer(call, comm, s.buf, s.counts[i], t, name.buf));
  }
  return MPI_SUCCESS;
}

// Checks counts, displacements and types of one side of `n` ranks; sets *type (alltoall(v)).
int check_side(const Call& call, MPI_Comm comm, Collective collective, Side& s, int n,
               const Names& name, const core::Datatype** type) {
  std::int64_t total = s.count * n;
  if (collective != Collective::kAlltoall) {
    if (!s.arrays_given)
      return raise(call, comm, MPI_ERR_ARG, "argument %s is a null pointer", name.arrays);
    GPURUN_COLL_TRY(check_counts(call, comm, s.counts.data(), n, name.counts));
    total = 0;
    for (std::int64_t c : s.counts) total += c;
  } else {
    GPURUN_COLL_TRY(check_count(call, comm, s.count, name.count));
  }
  if (collective == Collective::kAlltoallw) return check_types(call, comm, s, n, name);
  GPURUN_COLL_TRY(check_type(call, comm, s.type, name.type, type));
  return check_buffer(call, comm, s.buf, total, *type, name.buf);
}

int alltoall(const Call& call, Collective collective, Side& send, Side& recv, MPI_Comm comm,
             const CollForm& form) {
  GPURUN_COLL_ENTER_INTER(entry, comm, form,
                          collective == Collective::kAlltoall    ? InterKind::kAlltoall
                          : collective == Collective::kAlltoallv ? InterKind::kAlltoallv
                                                                 : InterKind::kAlltoallw,
                          send.buf, send.count, send.type, const_cast<void*>(recv.buf), recv.count,
                          recv.type, MPI_OP_NULL, 0, send.counts.data(), send.displs.data(),
                          recv.counts.data(), recv.displs.data(), send.types, recv.types);
  RepeatKey key = repeat_key_of(collective, comm, {send.buf, send.count, send.type},
                                {recv.buf, recv.count, recv.type});
  key.arrays = {send.counts.data(), send.displs.data(), recv.counts.data(), recv.displs.data()};
  key.size = entry->comm->size();
  const RepeatKey* repeat = collective != Collective::kAlltoallw ? repeat_key(form, key) : nullptr;
  if (coll::Operation* op = repeat_of(repeat, coll_tag)) return run_operation(call, comm, *op);
  GPURUN_COLL_TRY(check_form(call, comm, form));
  const int p = entry->comm->size();
  bool in_place = send.buf == MPI_IN_PLACE;
  GPURUN_COLL_TRY(check_not_in_place(call, comm, recv.buf, "recvbuf", ""));
  coll::Args args{.collective = collective, .in_place = in_place};
  GPURUN_COLL_TRY(check_side(call, comm, collective, recv, p, kRecv, &args.recvtype));
  Side& from = in_place ? recv : send;
  if (!in_place)
    GPURUN_COLL_TRY(check_side(call, comm, collective, send, p, kSend, &args.type));
  else
    args.type = args.recvtype;
  args.sendbuf = in_place ? recv.buf : send.buf;
  args.recvbuf = const_cast<void*>(recv.buf);
  args.count = from.count;
  args.recvcount = recv.count;
  if (collective != Collective::kAlltoall) {
    args.sendcounts = from.counts.data();
    args.sdispls = from.displs.data();
    args.recvcounts = recv.counts.data();
    args.rdispls = recv.displs.data();
  }
  if (collective == Collective::kAlltoallw) {
    args.sendtypes = from.resolved.data();
    args.recvtypes = recv.resolved.data();
  }
  args.tag = coll_tag;
  return run_collective(call, comm, *entry, args, form, from.type, repeat);
}

int comm_size(MPI_Comm comm) {
  CommEntry* entry = find_comm(comm);
  return entry != nullptr ? entry->comm->size() : 0;
}

template <class Count, class Displ>
Side v_side(MPI_Comm comm, const void* buf, const Count* counts, const Displ* displs,
            MPI_Datatype type, const MPI_Datatype* types) {
  Side s;
  s.buf = buf;
  s.type = type;
  s.types = types;
  int n = comm_size(comm);
  s.arrays_given = counts != nullptr && displs != nullptr;
  if (s.arrays_given) {
    s.counts.assign(counts, n);
    s.displs.assign(displs, n);
  }
  return s;
}

template <class Count, class Displ>
int alltoallv(const Call& call, const void* sendbuf, const Count* sendcounts, const Displ* sdispls,
              MPI_Datatype sendtype, void* recvbuf, const Count* recvcounts, const Displ* rdispls,
              MPI_Datatype recvtype, MPI_Comm comm, const CollForm& form) {
  Side send = sendbuf == MPI_IN_PLACE
                  ? Side{sendbuf}
                  : v_side(comm, sendbuf, sendcounts, sdispls, sendtype, nullptr);
  Side recv = v_side(comm, recvbuf, recvcounts, rdispls, recvtype, nullptr);
  return alltoall(call, Collective::kAlltoallv, send, recv, comm, form);
}

template <class Count, class Displ>
int alltoallw(const Call& call, const void* sendbuf, const Count* sendcounts, const Displ* sdispls,
              const MPI_Datatype* sendtypes, void* recvbuf, const Count* recvcounts,
              const Displ* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm,
              const CollForm& form) {
  Side send = sendbuf == MPI_IN_PLACE
                  ? Side{sendbuf}
                  : v_side(comm, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes);
  Side recv = v_side(comm, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes);
  send.arrays_given = send.arrays_given && (sendbuf == MPI_IN_PLACE || sendtypes != nullptr);
  recv.arrays_given = recv.arrays_given && recvtypes != nullptr;
  return alltoall(call, Collective::kAlltoallw, send, recv, comm, form);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::coll::Collective;

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Barrier");
  return barrier(call, comm, blocking());
}
extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Ibarrier");
  return barrier(call, comm, nonblocking(request));
}
extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Barrier_init");
  return barrier(call, comm, persistent(info, request));
}
GPURUN_MPI_ALIAS(MPI_Barrier)
GPURUN_MPI_ALIAS(MPI_Ibarrier)
GPURUN_MPI_ALIAS(MPI_Barrier_init)

#define GPURUN_ALLTOALL(sfx, count_t)                                                              \
  GPURUN_COLL_FORMS(MPI_Alltoall##sfx, MPI_Ialltoall##sfx, MPI_Alltoall_init##sfx,                 \
                    (const void* sendbuf, count_t sendcount, MPI_Datatype sendtype, void* recvbuf, \
                     count_t recvcount, MPI_Datatype recvtype),                                    \
                    ([&] {                                                                         \
                      Side send{sendbuf, sendcount, sendtype};                                     \
                      Side recv{recvbuf, recvcount, recvtype};                                     \
                      return alltoall(call, Collective::kAlltoall, send, recv, comm, form);        \
                    }()))
GPURUN_ALLTOALL(, int)
GPURUN_ALLTOALL(_c, MPI_Count)

#define GPURUN_ALLTOALLV(sfx, count_t, displ_t)                                                   \
  GPURUN_COLL_FORMS(MPI_Alltoallv##sfx, MPI_Ialltoallv##sfx, MPI_Alltoallv_init##sfx,             \
                    (const void* sendbuf, const count_t sendcounts[], const displ_t sdispls[],    \
                     MPI_Datatype sendtype, void* recvbuf, const count_t recvcounts[],            \
                     const displ_t rdispls[], MPI_Datatype recvtype),                             \
                    (alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, \
                               rdispls, recvtype, comm, form)))
GPURUN_ALLTOALLV(, int, int)
GPURUN_ALLTOALLV(_c, MPI_Count, MPI_Aint)

#define GPURUN_ALLTOALLW(sfx, count_t, displ_t)                                                    \
  GPURUN_COLL_FORMS(MPI_Alltoallw##sfx, MPI_Ialltoallw##sfx, MPI_Alltoallw_init##sfx,              \
                    (const void* sendbuf, const count_t sendcounts[], const displ_t sdispls[],     \
                     const MPI_Datatype sendtypes[], void* recvbuf, const count_t recvcounts[],    \
                     const displ_t rdispls[], const MPI_Datatype recvtypes[]),                     \
                    (alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, \
                               rdispls, recvtypes, comm, form)))
GPURUN_ALLTOALLW(, int, int)
GPURUN_ALLTOALLW(_c, MPI_Count, MPI_Aint)
