// The chains of collectives on intercommunicators (api/intercomm_ops.h). Per collective (the
// leader is rank 0 of each group):
//   barrier    local barrier, the leaders exchange nothing, local barrier
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
// root's rank in the root's group. A rank with MPI_PROC_NULL has no phase at all.
#include "api/intercomm_ops.h"

#include <optional>
#include <utility>
#include <vector>

#include "api/coll.h"
#include "api/datatypes.h"
#include "api/memory.h"
#include "api/requests.h"
#include "coll/engine.h"
#include "coll/schedule.h"

namespace gpurun::api {
namespace {

using coll::Buf;
using coll::Collective;

// Phases run one after another (api/intercomm_ops.h).
class Chain final : public coll::Operation {
 public:
  void add(std::unique_ptr<coll::Operation> phase) { phases_.push_back(std::move(phase)); }
  // Memory that the phases share, kept as long as the chain.
  std::byte* keep(std::size_t bytes) {
    scratch_.emplace_back(bytes);
    return scratch_.back().data();
  }

  Status start() override {
    status_ = ok_status();
    at_ = 0;
    enter();
    return ok_status();
  }
  bool progress() override {
    while (at_ < phases_.size()) {
      coll::Operation& phase = *phases_[at_];
      if (!phase.progress()) return false;
      if (!phase.ok()) keep_error(phase.status());
      ++at_;
      enter();
    }
    return true;
  }
  Status status() const override { return status_; }
  bool ok() const override { return status_.ok(); }
  void waited() override {
    if (at_ < phases_.size()) phases_[at_]->waited();
  }

 private:
  // Starts the phase at at_, or the first after it whose start succeeds (a failed start's
  // error is kept, and its phase passed).
  void enter() {
    for (; at_ < phases_.size(); ++at_) {
      Status st = phases_[at_]->start();
      if (st.ok()) return;
      keep_error(std::move(st));
    }
  }
  void keep_error(Status st) {
    if (status_.ok()) status_ = std::move(st);
  }

  std::vector<std::unique_ptr<coll::Operation>> phases_;
  std::vector<std::vector<std::byte>> scratch_;
  std::size_t at_ = 0;
  Status status_;
};

// One block of a transfer with one remote process.
struct Block {
  int peer;
  Buf buf;
};
using Blocks = std::vector<Block>;

class Plan {
 public:
  explicit Plan(const InterCall& c)
      : c_(c), local_(*find_comm(c.entry.local)), chain_(std::make_unique<Chain>()) {}

  int rank() const { return c_.entry.comm->rank(); }
  bool leader() const { return rank() == 0; }
  int remote_size() const { return c_.entry.comm->size(); }
  int local_size() const { return c_.entry.comm->shared_local_group()->size(); }

  // A collective on the local communicator: `args` has its collective, buffers, counts,
  // types, op and root.
  void local(coll::Args args) {
    ++locals_;
    args.tag = local_.next_coll_tag();  // taken even after an error: the group stays in step
    if (!error_.ok()) return;
    complete_args(local_, args);
    if (c_.entry.inter_overlap) {  // point-to-point algorithms only (api/intercomm_ops.h)
      args.one_host = false;
      args.job_nodes = {};
    }
    add(coll::create(args));
  }
  // Messages with the other group.
  void exchange(const Blocks& recvs, const Blocks& sends) {
    if (!error_.ok() || (recvs.empty() && sends.empty())) return;
    coll::Args args;  // what a schedule reads: pml, communicator, tag, memory kind
    args.pml = &the_pml();
    args.comm = c_.entry.comm.get();
    args.tag = c_.tag;
    for (const Blocks* list : {&recvs, &sends})
      for (const Block& b : *list)
        if (b.buf.bytes() > 0 && !accel::is_host(memory_of(b.buf.first_byte())))
          args.memory = memory_of(b.buf.first_byte());
    coll::ScheduleBuilder builder(args);
    for (const Block& b : recvs) builder.recv(b.peer, b.buf);
    for (const Block& b : sends) builder.send(b.peer, b.buf);
    add(builder.build());
  }
  // The leaders exchange `out` for `in`; the others do nothing.
  void leaders_swap(const Buf& out, const Buf& in) {
    if (leader()) exchange({Block{0, in}}, {Block{0, out}});
  }
  // Room for `count` elements of `type`, laid out as a user buffer of them.
  Buf scratch(std::int64_t count, const core::Datatype& type) {
    coll::Span s = coll::span_of(count, type);
    return Buf{chain_->keep(static_cast<std::size_t>(s.size)) - s.lo, count, &type};
  }
  int locals() const { return locals_; }
  Result<std::unique_ptr<coll::Operation>> done() {
    if (!error_.ok()) return std::move(error_);
    return std::unique_ptr<coll::Operation>(std::move(chain_));
  }

 private:
  void add(Result<std::unique_ptr<coll::Operation>> made) {
    if (!made.ok()) {
      error_ = made.status();
      return;
    }
    chain_->add(std::move(made).value());
  }

  const InterCall& c_;
  CommEntry& local_;
  int locals_ = 0;  // local phases so far
  std::unique_ptr<Chain> chain_;
  Status error_;
};

coll::Args local_args(Collective collective, const void* sendbuf, void* recvbuf, std::int64_t count,
                      const core::Datatype* type) {
  coll::Args args;
  args.collective = collective;
  args.sendbuf = sendbuf;
  args.recvbuf = recvbuf;
  args.count = count;
  args.type = type;
  args.root = 0;
  return args;
}

Buf buf_of(const void* base, std::int64_t count, const core::Datatype* type) {
  return Buf{const_cast<void*>(base), count, type};
}

void barrier(Plan& p) {
  p.local(local_args(Collective::kBarrier, nullptr, nullptr, 0, nullptr));
  Buf nothing = coll::packed(nullptr, 0);
  p.leaders_swap(nothing, nothing);
  p.local(local_args(Collective::kBarrier, nullptr, nullptr, 0, nullptr));
}

void bcast(Plan& p, const InterCall& c) {
  const InterArgs& a = c.a;
  Buf data = buf_of(a.sendbuf, a.sendcount, c.stype);
  if (a.root == MPI_ROOT) return p.exchange({}, {Block{0, data}});
  if (p.leader()) p.exchange({Block{a.root, data}}, {});
  p.local(local_args(Collective::kBcast, a.sendbuf, data.base, a.sendcount, c.stype));
}

// The group's reduction of sendbuf at its leader: in scratch there, null elsewhere.
Buf reduce_to_leader(Plan& p, const InterCall& c, std::int64_t count) {
  Buf mine = p.leader() ? p.scratch(count, *c.stype) : Buf{nullptr, count, c.stype};
  coll::Args args = local_args(Collective::kReduce, c.a.sendbuf, mine.base, count, c.stype);
  args.op = c.op;
  p.local(args);
  return mine;
}

void reduce(Plan& p, const InterCall& c, bool all) {
  const InterArgs& a = c.a;
  if (!all && a.root == MPI_ROOT)
    return p.exchange({Block{0, buf_of(a.recvbuf, a.sendcount, c.stype)}}, {});
  Buf mine = reduce_to_leader(p, c, a.sendcount);
  if (!all) {
    if (p.leader()) p.exchange({}, {Block{a.root, mine}});
    return;
  }
  p.leaders_swap(mine, buf_of(a.recvbuf, a.sendcount, c.stype));
  p.local(local_args(Collective::kBcast, a.recvbuf, a.recvbuf, a.sendcount, c.stype));
}

void allgather(Plan& p, const InterCall& c) {
  const InterArgs& a = c.a;
  std::int64_t gathered = a.sendcount * p.local_size();
  Buf mine = p.leader() ? p.scratch(gathered, *c.stype) : Buf{nullptr, gathered, c.stype};
  coll::Args args = local_args(Collective::kGather, a.sendbuf, mine.base, a.sendcount, c.stype);
  args.recvcount = a.sendcount;
  args.recvtype = c.stype;
  p.local(args);
  std::int64_t theirs = a.recvcount * p.remote_size();
  p.leaders_swap(mine, buf_of(a.recvbuf, theirs, c.rtype));
  p.local(local_args(Collective::kBcast, a.recvbuf, a.recvbuf, theirs, c.rtype));
}

void reduce_scatter(Plan& p, const InterCall& c) {
  const InterArgs& a = c.a;
  bool block = c.kind == InterKind::kReduceScatterBlock;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p.local_size()));
  std::vector<std::int64_t> displs(counts.size());
  std::int64_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    counts[i] = block ? a.recvcount : a.recvcounts[i];
    displs[i] = total;
    total += counts[i];
  }
  Buf mine = reduce_to_leader(p, c, total);
  Buf theirs = p.leader() ? p.scratch(total, *c.stype) : Buf{nullptr, total, c.stype};
  p.leaders_swap(mine, theirs);
  coll::Args args = local_args(Collective::kScatterv, theirs.base, a.recvbuf, 0, c.stype);
  args.sendcounts = counts.data();
  args.sdispls = displs.data();
  args.recvcount = counts[static_cast<std::size_t>(p.rank())];
  args.recvtype = c.stype;
  p.local(args);
}

std::byte* displaced(const void* buf, std::int64_t bytes) {
  return static_cast<std::byte*>(const_cast<void*>(buf)) + bytes;
}

// Block `index` of `count` elements of `type` in `buf`.
Buf nth(const void* buf, int index, std::int64_t count, const core::Datatype* type) {
  return Buf{displaced(buf, index * count * type->extent()), count, type};
}

// gather, scatter and alltoall: point-to-point between the groups.
void direct(Plan& p, const InterCall& c) {
  const InterArgs& a = c.a;
  bool root_side = a.root == MPI_ROOT, all = c.kind == InterKind::kAlltoall;
  Blocks recvs, sends;
  for (int r = 0; r < p.remote_size(); ++r) {
    if (all || (c.kind == InterKind::kGather && root_side))
      recvs.push_back({r, nth(a.recvbuf, r, a.recvcount, c.rtype)});
    else if (c.kind == InterKind::kScatter && !root_side && r == a.root)
      recvs.push_back({r, buf_of(a.recvbuf, a.recvcount, c.rtype)});
    if (all || (c.kind == InterKind::kScatter && root_side))
      sends.push_back({r, nth(a.sendbuf, r, a.sendcount, c.stype)});
    else if (c.kind == InterKind::kGather && !root_side && r == a.root)
      sends.push_back({r, buf_of(a.sendbuf, a.sendcount, c.stype)});
  }
  p.exchange(recvs, sends);
}

// gatherv, scatterv, allgatherv, alltoallv.
void direct_v(Plan& p, const InterCall& c) {
  const InterArgs& a = c.a;
  InterKind kind = c.kind;
  bool root_side = a.root == MPI_ROOT;
  bool to_all = kind == InterKind::kAlltoallv || kind == InterKind::kAllgatherv;
  Blocks recvs, sends;
  for (int r = 0; r < p.remote_size(); ++r) {
    if (to_all || (kind == InterKind::kGatherv && root_side)) {
      Buf in{displaced(a.recvbuf, a.rdispls[r] * c.rtype->extent()), a.recvcounts[r], c.rtype};
      recvs.push_back({r, in});
    } else if (kind == InterKind::kScatterv && !root_side && r == a.root) {
      recvs.push_back({r, buf_of(a.recvbuf, a.recvcount, c.rtype)});
    }
    if (kind == InterKind::kAlltoallv || (kind == InterKind::kScatterv && root_side)) {
      Buf out{displaced(a.sendbuf, a.sdispls[r] * c.stype->extent()), a.sendcounts[r], c.stype};
      sends.push_back({r, out});
    } else if (!root_side &&
               (kind == InterKind::kAllgatherv || (kind == InterKind::kGatherv && r == a.root))) {
      sends.push_back({r, buf_of(a.sendbuf, a.sendcount, c.stype)});
    }
  }
  p.exchange(recvs, sends);
}

void alltoallw(Plan& p, const InterCall& c) {
  const InterArgs& a = c.a;
  Blocks recvs, sends;
  for (int r = 0; r < p.remote_size(); ++r) {
    recvs.push_back({r, Buf{displaced(a.recvbuf, a.rdispls[r]), a.recvcounts[r], c.rtypes[r]}});
    sends.push_back({r, Buf{displaced(a.sendbuf, a.sdispls[r]), a.sendcounts[r], c.stypes[r]}});
  }
  p.exchange(recvs, sends);
}

void plan(Plan& p, const InterCall& c) {
  switch (c.kind) {
    case InterKind::kBarrier:
      return barrier(p);
    case InterKind::kBcast:
      return bcast(p, c);
    case InterKind::kReduce:
    case InterKind::kAllreduce:
      return reduce(p, c, c.kind == InterKind::kAllreduce);
    case InterKind::kAllgather:
      return allgather(p, c);
    case InterKind::kGather:
    case InterKind::kScatter:
    case InterKind::kAlltoall:
      return direct(p, c);
    case InterKind::kAlltoallw:
      return alltoallw(p, c);
    case InterKind::kReduceScatter:
    case InterKind::kReduceScatterBlock:
      return reduce_scatter(p, c);
    case InterKind::kUnsupported:
      return;
    default:
      return direct_v(p, c);
  }
}

// The local phases that plan() makes for a call of `kind` with `root`.
int local_phases(InterKind kind, int root) {
  switch (kind) {
    case InterKind::kBcast:
    case InterKind::kReduce:
      return root == MPI_ROOT || root == MPI_PROC_NULL ? 0 : 1;
    case InterKind::kBarrier:
    case InterKind::kAllreduce:
    case InterKind::kAllgather:
    case InterKind::kReduceScatter:
    case InterKind::kReduceScatterBlock:
      return 2;
    default:
      return 0;
  }
}

}  // namespace

Result<std::unique_ptr<coll::Operation>> inter_operation(const InterCall& c) {
  Plan p(c);
  bool rooted = c.kind == InterKind::kBcast || c.kind == InterKind::kReduce ||
                c.kind == InterKind::kGather || c.kind == InterKind::kScatter ||
                c.kind == InterKind::kGatherv || c.kind == InterKind::kScatterv;
  if (!(rooted && c.a.root == MPI_PROC_NULL)) plan(p, c);
  if (p.locals() != local_phases(c.kind, c.a.root))
    return Status(ErrorCode::kInternal,
                  "an intercommunicator collective's local phases miscounted");
  return p.done();
}

void skip_local_phases(CommEntry& entry, InterKind kind, int root) {
  CommEntry* local = find_comm(entry.local);
  for (int i = local_phases(kind, root); i > 0; --i) (void)local->next_coll_tag();
}

}  // namespace gpurun::api
