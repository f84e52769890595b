// The guard against calls that do not match between ranks (see select_guard.h): the Guard
// operation that wraps a collective call.
#include "coll/select_guard.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coll/guard_state.h"
#include "coll/params.h"
#include "pml/pml.h"
#include "runtime/base/clock.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

using guard::CommGuard;
using guard::is_shm;
using guard::kDone;
using guard::kWaiting;
using guard::Notice;
using guard::Received;

// Operations the guard abandoned: never destroyed (see select_guard.h).
std::vector<std::unique_ptr<Operation>>& abandoned() {
  static auto* list = new std::vector<std::unique_ptr<Operation>>;
  return *list;
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

// The notice of a call of `args` run by `algorithm` (state kWaiting).
Notice notice_of(const Args& args, const Algorithm& algorithm, std::int64_t bytes) {
  return Notice{.tag = args.tag,
                .collective = static_cast<std::int32_t>(args.collective),
                .algorithm = index_of(algorithm),
                .state = kWaiting,
                .memory = static_cast<std::int32_t>(args.memory),
                .root = rooted(args.collective) ? args.root : -1,
                .bytes = bytes};
}

// The guard's state of the communicator of call `args` by `algorithm`, or null for calls that
// need no guard (host staging's: the host algorithm inside is guarded).
std::shared_ptr<CommGuard> guard_of(const Args& args, const Algorithm& algorithm) {
  if (args.comm == nullptr || args.comm->size() < 2 || args.pml == nullptr) return nullptr;
  if (index_of(algorithm) < 0) return nullptr;
  return guard::of(*args.pml, *args.comm);
}

// `op` is abandoned: the receives of the schedule that runs it (itself, or the pml algorithm a
// shared-memory operation fell back to: Operation::runner), which nobody will match, are
// cancelled, and its sends that cannot be are no longer waited for by MPI_Finalize (they stay
// with the pml). Schedules own their requests through Request::owner; other operations are left
// as they are. Error path only: it scans the request pool.
void abandon(pml::Pml& pml, std::unique_ptr<Operation> op) {
  std::vector<const void*> owners;
  for (const Operation* o = op.get(); o != nullptr; o = o->runner()) owners.push_back(o);
  pml.give_up(owners, /*detach=*/false);  // the operation stays (abandoned()) for callbacks
  abandoned().push_back(std::move(op));
}

// The operation of one guarded call. Holds copies of the call's scalar arguments (and
// references on its types and op) so that it can join "shm" later.
class Guard final : public Operation {
 public:
  Guard(std::unique_ptr<Operation> op, const Args& args, const Algorithm& algorithm,
        std::int64_t bytes, std::shared_ptr<CommGuard> comm, bool blocking)
      : active_(std::move(op)),
        args_(args),
        shared_(std::move(comm)),
        comm_(*shared_),
        blocking_call_(blocking),
        blocking_(blocking) {
    base_ = notice_of(args, algorithm, bytes);
    for (const core::Datatype* t : {args_.type, args_.recvtype})
      if (t != nullptr) t->retain();
    if (args_.op != nullptr) args_.op->retain();
  }
  ~Guard() override {
    if (blocked_) guard::unblock();
    for (const core::Datatype* t : {args_.type, args_.recvtype})
      if (t != nullptr) t->release();
    if (args_.op != nullptr) args_.op->release();
  }

  Status start() override {
    if (!failure_.ok()) return failure_;  // a persistent call restarted after it failed
    begin();
    return active_->start();
  }

  Status start_blocking(bool& done) override {
    done = false;
    if (!failure_.ok()) return failure_;
    begin();
    Status st = active_->start_blocking(done);
    if (done) finish();
    return st;
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
  bool ok() const override { return failure_.ok() && active_->ok(); }

  void waited() override { blocking_ = true; }

  bool rearm(const Args& args) override {
    return runs_again() && active_->rearm(args) && take_tag(args.tag);
  }
  bool repeat(int tag) override { return runs_again() && active_->repeat(tag) && take_tag(tag); }

 private:
  void begin() {
    polls_ = 0;
    stuck_since_ = 0;
    told_ = false;
    blocking_ = blocking_call_;
    guard::remember(comm_, base_, args_.tag);
  }
  // This call's notice (the slow paths'): base_ with the call's tag.
  Notice mine() const {
    Notice n = base_;
    n.tag = args_.tag;
    return n;
  }
  // Whether the operation may run a call again: it did not fail, nor end on the guard's word.
  bool runs_again() const { return failure_.ok() && !joined_ && !ended_; }
  bool take_tag(int tag) {
    args_.tag = tag;
    return true;
  }

  void finish() {
    if (blocked_) {
      blocked_ = false;
      guard::unblock();
    }
    // Failures that members must learn of are the guard's own (end_with); the status of every
    // call would cost a virtual call and a copy on the fast path.
    guard::mark_done(comm_, args_.tag, ended_ ? status().code() : ErrorCode::kOk);
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
      guard::tell_others(comm_, mine());
    }
    if (blocking_ && !blocked_) {  // (a nonblocking call's once MPI_Wait holds it)
      blocked_ = true;
      guard::block(comm_, mine());
    }
    if (ended_ || joined_) return false;
    const Received* failed = nullptr;
    for (const Received& r : comm_.received) {
      if (r.notice.tag != args_.tag) continue;
      if (r.notice.state == guard::kFailed && r.notice.collective == base_.collective &&
          like_mine(r.notice)) {
        failed = &r;
        continue;
      }
      if (std::optional<bool> over = look_at(r)) return *over;
    }
    // A member that failed this call as this rank runs it (it found a deadlock, say; perhaps in
    // another algorithm) takes no further part. Members whose calls differ come first: their
    // messages say more.
    if (failed != nullptr) return end_with(guard::member_failed(*failed, mine()));
    return false;
  }

  // What member r.source's notice of this call decides: whether the call is over now, or
  // nothing (nullopt: the other notices decide).
  std::optional<bool> look_at(const Received& r) {
    const Notice& n = r.notice;
    if (n.state == guard::kNotStarted) {
      std::optional<Status> deadlock = blocked_ ? guard::deadlock(comm_, r, mine()) : std::nullopt;
      if (deadlock) return end_with(std::move(*deadlock));
      return std::nullopt;
    }
    if (n.collective != base_.collective) return end_with(guard::other_call(r, mine()));
    bool same = n.algorithm == base_.algorithm &&
                (n.bytes == base_.bytes || !counts_match(args_.collective));
    if (same && n.root == base_.root) return std::nullopt;
    if (same) return end_with(other_root(r));
    // A shared-memory operation stays: the other side joins it, or shm's count check decides.
    if (is_shm(base_) || falls_back_here(n)) return std::nullopt;
    if (is_shm(n) && join()) return false;
    return end_with(other_count(r));
  }

  // Ends this call with `why`: a shared-memory operation ends by itself, as on a count
  // mismatch (Operation::abort: its segment stays in step, and the members it no longer waits
  // for see that it passed the call), any other is abandoned. Returns whether it is over now.
  bool end_with(Status why) {
    ended_ = true;
    if (active_->abort(why)) return false;  // it completes with `why` as its status
    failure_ = std::move(why);
    abandon(*args_.pml, std::move(active_));
    finish();
    return true;
  }

  // Whether a member's call `n` has this rank's size, root and memory kind.
  bool like_mine(const Notice& n) const {
    return (n.bytes == base_.bytes || !counts_match(args_.collective)) && n.root == base_.root &&
           n.memory == base_.memory;
  }

  // Whether a member's call `n`, of the same size as this rank's with another algorithm, runs
  // this rank's: that algorithm falls back here (Algorithm::falls_back: a shared-memory one
  // whose segment failed to set up, which every member learns, some later), to what selection
  // gives without it, as this rank's selection did.
  bool falls_back_here(const Notice& n) const {
    std::span<const Algorithm* const> all = Registry::of(args_.collective);
    if (n.algorithm < 0 || n.algorithm >= static_cast<int>(all.size())) return false;
    const Algorithm& theirs = *all[static_cast<std::size_t>(n.algorithm)];
    return like_mine(n) && theirs.falls_back != nullptr && theirs.falls_back(args_);
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
    GPURUN_LOG(debug, coll, "call with tag %d joins shm: another rank runs it there", args_.tag);
    return true;
  }

  // A member runs this call as this rank does, but from another root: nobody may be able to
  // finish (two ranks that both take themselves for the root of a gather wait for each other).
  Status other_root(const Received& r) const {
    return Status(ErrorCode::kInvalidRoot,
                  "rank " + std::to_string(r.source) + " runs this call (tag " +
                      std::to_string(args_.tag) + ") with root " + std::to_string(r.notice.root) +
                      ", this rank with root " + std::to_string(base_.root) +
                      ": every rank must pass the same root");
  }

  // A member runs this collective with another count, algorithm or memory kind.
  Status other_count(const Received& r) const {
    const Notice& n = r.notice;
    std::string what = guard::call_name(n);
    std::string text = "rank " + std::to_string(r.source) + " runs this call (tag " +
                       std::to_string(n.tag) + ") as " + what + " of " + std::to_string(n.bytes) +
                       " bytes with algorithm " + guard::algorithm_name(n) + ", this rank as " +
                       what + " of " + std::to_string(base_.bytes) + " bytes with " +
                       guard::algorithm_name(base_) +
                       ": the ranks' counts or datatypes do not match (check the count, "
                       "datatype and root each rank passes)";
    if (n.memory != base_.memory && n.bytes == base_.bytes) {
      text = "rank " + std::to_string(r.source) + " runs this call on " +
             guard::memory_name(n.memory) + " with algorithm " + guard::algorithm_name(n) +
             ", this rank on " + guard::memory_name(base_.memory) + " with " +
             guard::algorithm_name(base_) +
             ": the two do not match (gpurun cannot mix these memory kinds in this collective; "
             "pass buffers of one kind on every rank)";
    }
    return Status(n.bytes > base_.bytes ? ErrorCode::kTruncated : ErrorCode::kInvalidArgument,
                  std::move(text));
  }

  std::unique_ptr<Operation> active_;
  Args args_;
  std::shared_ptr<CommGuard> shared_;  // outlives forget_guard while this call lives
  CommGuard& comm_;
  Notice base_;
  Status failure_;
  std::uint64_t polls_ = 0;
  std::int64_t stuck_since_ = 0;
  std::int64_t wait_ns_ = 0;  // GPURUN_COLL_MISMATCH_WAIT, read when first stuck
  bool told_ = false;
  const bool blocking_call_;  // a blocking call's operation (the kept one of its collective)
  bool blocking_;             // that, or MPI_Wait holds the process in it (waited())
  bool blocked_ = false;      // this process is marked blocked in it (guard::block)
  bool joined_ = false;
  bool ended_ = false;  // by end_with
};

}  // namespace

std::unique_ptr<Operation> guard_operation(std::unique_ptr<Operation> op, const Args& args,
                                           const Algorithm& algorithm, std::int64_t bytes,
                                           bool blocking) {
  std::shared_ptr<CommGuard> g = guard_of(args, algorithm);
  if (g == nullptr) return op;
  return std::make_unique<Guard>(std::move(op), args, algorithm, bytes, std::move(g), blocking);
}

void guard_failed(const Args& args, const Algorithm& algorithm, std::int64_t bytes,
                  ErrorCode error) {
  std::shared_ptr<CommGuard> g = guard_of(args, algorithm);
  if (g == nullptr) return;
  guard::remember(*g, notice_of(args, algorithm, bytes), args.tag);
  guard::mark_done(*g, args.tag, error);
}

}  // namespace gpurun::coll
