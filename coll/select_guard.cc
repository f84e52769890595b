// The guard against counts that differ between ranks (see select_guard.h): notices, the
// per-communicator record of calls, and the Guard operation.
#include "coll/select_guard.h"

#include <array>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coll/basic.h"
#include "coll/params.h"
#include "coll/schedule.h"
#include "pml/pml.h"
#include "runtime/base/clock.h"
#include "runtime/base/log.h"
#include "runtime/progress/progress.h"

namespace gpurun::coll {
namespace {

// The tag of notices on the collective channel: collective calls take tags 0..INT_MAX, and the
// pml's wildcards are -1 and -2.
constexpr int kNoticeTag = kGuardNoticeTag;
constexpr std::size_t kKeptNotices = 128;  // per communicator, oldest dropped first
constexpr std::size_t kHistory = 16;       // calls per communicator a late notice can ask about
constexpr std::int32_t kWaiting = 1, kDone = 2;

struct Notice {
  std::int32_t tag = 0;
  std::int32_t collective = 0;
  std::int32_t algorithm = -1;  // index in Registry::of(collective): the same in every process
  std::int32_t state = 0;       // kWaiting or kDone
  std::int32_t memory = 0;      // accel::MemoryKind of the call's buffers
  std::int32_t root = -1;       // a rooted collective's root; -1 for the others
  std::int64_t bytes = 0;
};

struct Received {
  int source = 0;
  Notice notice;
};

struct CommGuard {
  pml::Pml* pml = nullptr;
  const core::Communicator* comm = nullptr;
  core::Request* control = nullptr;                            // the posted receive for notices
  std::unique_ptr<Notice> inbox = std::make_unique<Notice>();  // the posted receive's buffer
  std::vector<Received> received;
  std::array<Notice, kHistory> history{};  // this rank's calls, by tag % kHistory
  std::vector<std::pair<int, int>> told;   // (tag, member) that have this rank's notice
  int unanswered = 0;  // waiting notices of calls this rank had not started when they came
};

struct Guards {
  std::unordered_map<std::uint32_t, std::shared_ptr<CommGuard>> comms;  // guards share them
  std::vector<std::unique_ptr<Operation>> abandoned;  // never destroyed: see select_guard.h
  bool poller_added = false;
};

Guards& guards() {
  static auto* g = new Guards;
  return *g;
}

bool rooted(Collective c) {
  switch (c) {
    case Collective::kBcast:
    case Collective::kReduce:
    case Collective::kGather:
    case Collective::kGatherv:
    case Collective::kScatter:
    case Collective::kScatterv:
      return true;
    default:
      return false;
  }
}

// Whether every rank's byte count must be the same (the v forms' differ).
bool counts_match(Collective c) {
  switch (c) {
    case Collective::kBcast:
    case Collective::kReduce:
    case Collective::kAllreduce:
    case Collective::kReduceScatterBlock:
    case Collective::kScan:
    case Collective::kExscan:
    case Collective::kGather:
    case Collective::kScatter:
    case Collective::kAllgather:
    case Collective::kAlltoall:
      return true;
    default:
      return false;
  }
}

int index_of(const Algorithm& algorithm) {
  std::span<const Algorithm* const> all = Registry::of(algorithm.collective);
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i] == &algorithm) return static_cast<int>(i);
  return -1;
}

std::string name_of(const Notice& n) {
  auto c = static_cast<Collective>(n.collective);
  if (n.collective < 0 || n.collective >= static_cast<int>(Collective::kCount)) return "?";
  std::span<const Algorithm* const> all = Registry::of(c);
  if (n.algorithm < 0 || n.algorithm >= static_cast<int>(all.size())) return "?";
  return std::string(all[n.algorithm]->name);
}

bool is_shm(const Notice& n) { return name_of(n) == "shm"; }

const char* memory_name(std::int32_t kind) {
  switch (static_cast<accel::MemoryKind>(kind)) {
    case accel::MemoryKind::kHost:
      return "host memory";
    case accel::MemoryKind::kCudaDevice:
      return "device memory";
    default:
      return "managed memory";
  }
}

void send_notice(CommGuard& g, int member, const Notice& n) {
  for (const auto& [tag, who] : g.told)
    if (tag == n.tag && who == member) return;
  if (g.told.size() >= kKeptNotices) g.told.erase(g.told.begin());
  g.told.emplace_back(n.tag, member);
  // The pml may read the message until the send completes: the request owns a copy, which
  // its completion deletes; the request is an orphan that the pml then releases.
  auto owned = std::make_unique<Notice>(n);
  Notice* copy = owned.get();
  core::Request* r = g.pml->requests().allocate();
  r->kind = core::RequestKind::kSend;
  r->orphan = true;
  r->active = true;
  r->owner = owned.release();
  r->on_complete = [](core::Request* done) {
    std::unique_ptr<Notice>(static_cast<Notice*>(done->owner)).reset();
  };
  Status st = g.pml->isend(pml::SendArgs{.comm = g.comm,
                                         .buf = copy,
                                         .count = sizeof(Notice),
                                         .type = &byte_type(),
                                         .dest = member,
                                         .tag = kNoticeTag,
                                         .mode = pml::SendMode::kStandard,
                                         .channel = pml::Channel::kColl},
                           r);
  if (!st.ok()) {
    GPURUN_LOG(debug, coll, "notice to rank %d not sent: %s", member, st.to_string().c_str());
    std::unique_ptr<Notice>(copy).reset();
    g.pml->requests().release(r);
  }
}

const Notice* record_of(const CommGuard& g, int tag) {
  const Notice& n = g.history[static_cast<std::size_t>(tag) % kHistory];
  return n.state != 0 && n.tag == tag ? &n : nullptr;
}

// Answers the waiting notices of call `tag` that this rank can answer now.
void answer(CommGuard& g, int tag) {
  const Notice* mine = record_of(g, tag);
  if (mine == nullptr) return;
  for (const Received& r : g.received) {
    if (r.notice.tag != tag || r.notice.state != kWaiting) continue;
    send_notice(g, r.source, *mine);
  }
}

Status post_control(CommGuard& g) {
  core::Request* r = g.pml->requests().allocate();
  r->kind = core::RequestKind::kRecv;
  r->active = true;
  Status st = g.pml->irecv(pml::RecvArgs{.comm = g.comm,
                                         .buf = g.inbox.get(),
                                         .count = sizeof(Notice),
                                         .type = &byte_type(),
                                         .source = pml::kAnySource,
                                         .tag = kNoticeTag,
                                         .channel = pml::Channel::kColl},
                           r);
  if (!st.ok()) {
    g.pml->requests().release(r);
    return st;
  }
  g.control = r;
  return ok_status();
}

// Takes in a notice that arrived, answers it if this rank can, and posts the next receive.
void take_notice(CommGuard& g) {
  core::Request* r = g.control;
  g.control = nullptr;
  bool whole = r->status.error == ErrorCode::kOk && r->status.bytes == sizeof(Notice);
  Received got{r->status.source, *g.inbox};
  g.pml->requests().release(r);
  if (whole) {
    if (g.received.size() >= kKeptNotices) g.received.erase(g.received.begin());
    g.received.push_back(got);
    if (got.notice.state == kWaiting) {
      if (record_of(g, got.notice.tag) != nullptr)
        answer(g, got.notice.tag);
      else
        ++g.unanswered;
    }
  }
  if (Status st = post_control(g); !st.ok())
    GPURUN_LOG(warn, coll, "no receive for count notices: %s", st.to_string().c_str());
}

int poll_notices(void*) {
  int events = 0;
  for (auto& [context, g] : guards().comms) {
    if (g->control != nullptr && g->control->complete()) {
      take_notice(*g);
      ++events;
    }
  }
  return events;
}

std::shared_ptr<CommGuard> guard_of(const Args& args) {
  Guards& all = guards();
  auto [it, fresh] = all.comms.try_emplace(args.comm->context_id());
  if (!fresh) {  // null: another communicator's state (forget_guard was not called)
    return it->second->comm == args.comm ? it->second : nullptr;
  }
  it->second = std::make_shared<CommGuard>();
  CommGuard& g = *it->second;
  g.pml = args.pml;
  g.comm = args.comm;
  if (Status st = post_control(g); !st.ok()) {
    all.comms.erase(it);
    return nullptr;
  }
  if (!all.poller_added) {
    progress::engine().add(poll_notices, nullptr, "coll-guard");
    all.poller_added = true;
  }
  return it->second;
}

// Indices of the request pool that abandon() looks through: the pool only grows to the
// most requests ever live at once, which is far below this in any program.
constexpr std::uint32_t kPoolScan = 1u << 20;

// `op` (a schedule) is abandoned: its receives, which nobody will match, are cancelled and
// its sends that cannot be are no longer waited for by MPI_Finalize (they stay with the pml).
// Schedules own their requests through Request::owner; other operations are left as they are.
// Error path only: it scans the request pool.
void abandon(pml::Pml& pml, std::unique_ptr<Operation> op) {
  core::RequestPool& pool = pml.requests();
  const void* owner = op.get();
  for (std::uint32_t i = 0; i < kPoolScan; ++i) {
    core::Request* r = pool.find(i);
    if (r == nullptr || r->owner != owner || r->complete()) continue;
    if (!pml.cancel(r)) r->orphan = false;
  }
  guards().abandoned.push_back(std::move(op));
}

// The operation of one guarded call. Holds copies of the call's scalar arguments (and
// references on its types and op) so that it can join "shm" later.
class Guard final : public Operation {
 public:
  Guard(std::unique_ptr<Operation> op, const Args& args, const Algorithm& algorithm,
        std::int64_t bytes, std::shared_ptr<CommGuard> comm)
      : active_(std::move(op)), args_(args), shared_(std::move(comm)), comm_(*shared_) {
    mine_ = Notice{.tag = args.tag,
                   .collective = static_cast<std::int32_t>(args.collective),
                   .algorithm = index_of(algorithm),
                   .state = kWaiting,
                   .memory = static_cast<std::int32_t>(args.memory),
                   .root = rooted(args.collective) ? args.root : -1,
                   .bytes = bytes};
    for (const core::Datatype* t : {args_.type, args_.recvtype})
      if (t != nullptr) t->retain();
    if (args_.op != nullptr) args_.op->retain();
  }
  ~Guard() override {
    for (const core::Datatype* t : {args_.type, args_.recvtype})
      if (t != nullptr) t->release();
    if (args_.op != nullptr) args_.op->release();
  }

  Status start() override {
    if (!failure_.ok()) return failure_;  // a persistent call restarted after it failed
    polls_ = 0;
    stuck_since_ = 0;
    told_ = false;
    mine_.state = kWaiting;
    remember();
    return active_->start();
  }

  bool progress() override {
    if (!failure_.ok()) return true;
    if (active_->progress()) {
      finish();
      return true;
    }
    if ((++polls_ & 63) != 0) [[likely]]
      return false;
    return slow();
  }

  Status status() const override { return failure_.ok() ? active_->status() : failure_; }

  bool rearm(const Args& args) override {
    if (!failure_.ok() || joined_ || root_failed_ || !active_->rearm(args)) return false;
    args_.tag = args.tag;
    mine_.tag = args.tag;
    return true;
  }

 private:
  void remember() {
    comm_.history[static_cast<std::size_t>(mine_.tag) % kHistory] = mine_;
    if (comm_.unanswered > 0) {
      comm_.unanswered = 0;  // answered now, or never (their calls are older than kHistory)
      answer(comm_, mine_.tag);
    }
  }

  void finish() {
    mine_.state = kDone;
    Notice& kept = comm_.history[static_cast<std::size_t>(mine_.tag) % kHistory];
    if (kept.tag == mine_.tag) kept.state = kDone;
  }

  // The operation has not completed for a while: tell the others (once) and look at what
  // they said of this call.
  bool slow() {
    std::int64_t now = clock::now_ns();
    if (stuck_since_ == 0) {
      stuck_since_ = now;
      wait_ns_ = params::mismatch_wait().get().count();
    }
    if (now - stuck_since_ < wait_ns_) return false;
    if (!told_) {
      told_ = true;
      for (int member = 0; member < args_.comm->size(); ++member)
        if (member != args_.comm->rank()) send_notice(comm_, member, mine_);
    }
    for (const Received& r : comm_.received) {
      if (r.notice.tag != mine_.tag) continue;
      const Notice& n = r.notice;
      bool same = n.collective == mine_.collective && n.algorithm == mine_.algorithm &&
                  (n.bytes == mine_.bytes || !counts_match(args_.collective));
      if (same && n.root == mine_.root) continue;
      if (same ? abort_for_root(r) : resolve(r)) return !failure_.ok();
    }
    return false;
  }

  // A member runs this call otherwise. Returns whether this rank acted on it.
  bool resolve(const Received& r) {
    const Notice& n = r.notice;
    // A shared-memory operation is never left: the other side joins it, or shm's own count
    // check decides.
    if (joined_ || is_shm(mine_)) return false;
    if (n.collective == mine_.collective && is_shm(n) && join()) return true;
    fail(r);
    return true;
  }

  // A member runs this call as this rank does, but from another root: nobody may be able to
  // finish (two ranks that both take themselves for the root of a gather wait for each other).
  // Every rank that waits sees a member with another root and ends its call with MPI_ERR_ROOT;
  // a shared-memory operation ends as on a count mismatch (its segment stays in step), any
  // other is abandoned. Returns whether this rank acted on it (once).
  bool abort_for_root(const Received& r) {
    if (root_failed_) return false;
    root_failed_ = true;
    Status why(ErrorCode::kInvalidRoot, "rank " + std::to_string(r.source) +
                                            " runs this call (tag " + std::to_string(mine_.tag) +
                                            ") with root " + std::to_string(r.notice.root) +
                                            ", this rank with root " + std::to_string(mine_.root) +
                                            ": every rank must pass the same root");
    if (active_->abort(why)) return false;  // it completes with `why` as its status
    failure_ = std::move(why);
    abandon(*args_.pml, std::move(active_));
    finish();
    return true;
  }

  // Runs "shm" with this call's arguments instead of the algorithm chosen.
  bool join() {
    const Algorithm* shm = Registry::find(args_.collective, "shm");
    if (shm == nullptr || (shm->usable != nullptr && !shm->usable(args_))) return false;
    Result<std::unique_ptr<Operation>> op = shm->create(args_);
    if (!op.ok()) return false;
    std::unique_ptr<Operation> next = std::move(op).value();
    if (!next->start().ok()) return false;
    abandon(*args_.pml, std::exchange(active_, std::move(next)));
    joined_ = true;
    GPURUN_LOG(debug, coll, "call with tag %d joins shm: another rank runs it there", mine_.tag);
    return true;
  }

  void fail(const Received& r) {
    const Notice& n = r.notice;
    std::string text =
        "rank " + std::to_string(r.source) + " runs this call (tag " + std::to_string(n.tag) +
        ") as " + std::string(collective_name(static_cast<Collective>(n.collective))) + " of " +
        std::to_string(n.bytes) + " bytes with algorithm " + name_of(n) + ", this rank as " +
        std::string(collective_name(args_.collective)) + " of " + std::to_string(mine_.bytes) +
        " bytes with " + name_of(mine_) +
        ": the ranks' counts or datatypes do not match (check the count, datatype and root "
        "each rank passes)";
    if (n.memory != mine_.memory && n.collective == mine_.collective && n.bytes == mine_.bytes) {
      text = "rank " + std::to_string(r.source) + " runs this call on " + memory_name(n.memory) +
             " with algorithm " + name_of(n) + ", this rank on " + memory_name(mine_.memory) +
             " with " + name_of(mine_) +
             ": the two do not match (gpurun cannot mix these memory kinds in this collective; "
             "pass buffers of one kind on every rank)";
    }
    bool more = n.collective == mine_.collective && n.bytes > mine_.bytes;
    failure_ = Status(more ? ErrorCode::kTruncated : ErrorCode::kInvalidArgument, text);
    abandon(*args_.pml, std::move(active_));
    finish();
  }

  std::unique_ptr<Operation> active_;
  Args args_;
  std::shared_ptr<CommGuard> shared_;  // outlives forget_guard while this call lives
  CommGuard& comm_;
  Notice mine_;
  Status failure_;
  std::uint64_t polls_ = 0;
  std::int64_t stuck_since_ = 0;
  std::int64_t wait_ns_ = 0;  // GPURUN_COLL_MISMATCH_WAIT, read when first stuck
  bool told_ = false;
  bool joined_ = false;
  bool root_failed_ = false;
};

}  // namespace

std::unique_ptr<Operation> guard_operation(std::unique_ptr<Operation> op, const Args& args,
                                           const Algorithm& algorithm, std::int64_t bytes) {
  if (!(counts_match(args.collective) || rooted(args.collective)) || args.comm == nullptr ||
      args.comm->size() < 2 || args.pml == nullptr)
    return op;
  if (index_of(algorithm) < 0) return op;  // host staging: the host algorithm inside is guarded
  std::shared_ptr<CommGuard> g = guard_of(args);
  if (g == nullptr) return op;
  return std::make_unique<Guard>(std::move(op), args, algorithm, bytes, std::move(g));
}

void forget_guard(std::uint32_t context_id) {
  Guards& all = guards();
  auto it = all.comms.find(context_id);
  if (it == all.comms.end()) return;
  CommGuard& g = *it->second;
  if (g.control != nullptr) {
    if (!g.control->complete()) g.pml->cancel(g.control);
    if (g.control->complete()) {
      g.pml->requests().release(g.control);
    } else {
      // Still posted (the pml could not unpost it): it may yet write into its buffer, which
      // is left behind, and the pml releases the request when it completes.
      g.control->orphan = true;
      (void)g.inbox.release();
      GPURUN_LOG(debug, coll, "count-notice receive of context %u could not be cancelled",
                 context_id);
    }
  }
  all.comms.erase(it);
}

}  // namespace gpurun::coll
