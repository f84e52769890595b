#include "coll/shm/op.h"

#include <sched.h>

#include <algorithm>
#include <string>

#include "coll/shm/buffer.h"
#include "runtime/progress/progress.h"

namespace gpurun::coll::shm {

ShmOp::~ShmOp() {
  if (queued_) arena_.drop(this);
}

void ShmOp::prepare_setup(const Args& args, std::unique_ptr<Operation> fallback) {
  setup_pml_ = args.pml;
  setup_comm_ = args.comm;
  fallback_ = std::move(fallback);
}

Status ShmOp::start() {
  status_ = ok_status();
  on_fallback_ = false;
  if (arena_.state() == Arena::State::kBroken) {
    divert(Status(ErrorCode::kUnsupported, "the communicator has no shared collective segment"));
    return ok_status();
  }
  if (arena_.state() == Arena::State::kNew) {
    if (setup_pml_ == nullptr || setup_comm_ == nullptr)
      return Status(ErrorCode::kInternal, "shared-memory collective without a segment to use");
    arena_.start_setup(*setup_pml_, *setup_comm_);
  }
  arena_.enqueue(this);
  queued_ = true;
  begin();
  arena_.advance();
  return ok_status();
}

// With nothing queued before it on a ready segment, the call steps here: the round trips of
// the progress engine (the guard's, this operation's and the arena's progress, the engine's
// pollers) were most of an 8-byte collective's instructions. Ranks that outnumber cores take
// one step only, then the engine's waiting, which gives the core away: a call that waits for
// nobody (a gather's non-root, a scatter's root) is over at once.
Status ShmOp::start_blocking(bool& done) {
  done = false;
  if (arena_.state() != Arena::State::kReady || arena_.busy()) return start();
  const int steps = progress::engine().policy() == progress::WaitPolicy::kSpin ? kQuickSteps : 1;
  status_ = ok_status();
  on_fallback_ = false;
  begin();
  for (int i = 0; i < steps; ++i) {
    if (step()) {
      complete();
      done = true;
      return ok_status();
    }
  }
  arena_.enqueue(this);  // a long wait: the engine's, with the other pollers
  queued_ = true;
  return ok_status();
}

void ShmOp::begin() {
  seq_ = arena_.number(tag_);
  arena_.note_begin(barrier_, at_zero_);
  tag_ = -1;
  published_ = ran_ = mismatch_ = false;
  check_cursor_ = 0;
  wait_looks_ = 0;
  reset();
  done_ = false;
}

// When ranks outnumber cores, the ranks this one waits for are often not running: give them
// the core at once rather than after the engine's spin (the engine still puts this rank to
// sleep on its doorbell once nothing has happened for a while).
bool ShmOp::progress() {
  if (on_fallback_) return fallback_->progress();
  if (!done_) {
    arena_.advance();
    if (on_fallback_) return fallback_->progress();
    if (!done_ && progress::engine().policy() == progress::WaitPolicy::kBlock) sched_yield();
  }
  return done_;
}

bool ShmOp::step() {
  if (!planned_) {
    plan();
    planned_ = true;
  }
  if (!published_) {
    arena_.close_gap(seq_);
    if (!publish_count()) return false;
  }
  if (mismatch_) return true;
  if (!ran_) {
    ran_ = run();
    // About to wait: a source whose count differs may never post what this rank waits for.
    // Looked at in one wait of kWaitCountLooks only: a look reads the sources' count and
    // counter lines, which they write at every collective, and each such write then first
    // takes its line back from this rank (osu_* -np 2, 8 B, medians of 15 interleaved runs:
    // allreduce 0.51 -> 0.47 us, allgather 0.48 -> 0.45, reduce 0.44 -> 0.42, bcast 0.36 -> 0.32).
    if (!ran_) return (++wait_looks_ % kWaitCountLooks) == 0 && check_counts() && mismatch_;
  }
  return check_counts();
}

bool ShmOp::publish_count() {
  if (counts_.publish && !arena_.publish_count(seq_, counts_.bytes)) return false;
  published_ = true;
  if (counts_.own_mismatch) {
    fail(Status(ErrorCode::kInvalidArgument,
                "this rank's send and receive counts or datatypes do not match"));
    mismatch_ = true;
  }
  return true;
}

bool ShmOp::check_counts() {
  if (counts_.sources == CountCheck::Sources::kNone) return true;
  if (counts_.sources == CountCheck::Sources::kRoot) {
    if (arena_.rank() == counts_.root || check_cursor_ > 0) return true;
    std::uint64_t theirs = 0;
    if (!source_count(counts_.root, theirs)) return false;
    if (theirs != counts_.expect) count_error(counts_.root, theirs);
    check_cursor_ = 1;
    return true;
  }
  for (; check_cursor_ < arena_.size(); ++check_cursor_) {
    if (check_cursor_ == arena_.rank()) continue;
    std::uint64_t theirs = 0;
    if (!source_count(check_cursor_, theirs)) return false;
    if (theirs != counts_.expect) {
      count_error(check_cursor_, theirs);
      check_cursor_ = arena_.size();
      return true;
    }
  }
  return true;
}

// A source publishes its count before its first post of the collective and posts its end
// after (release stores), so a counter at the end (acquire) with no count behind it means
// that the source never ran this collective here: its count chose a pml algorithm (which
// finished without waiting for this rank: the root of a bcast, a non-root of a reduce), or its
// call failed before it started. Its entry cannot have been reused since: that waits until
// this rank has finished the collective.
bool ShmOp::source_count(int r, std::uint64_t& bytes) const {
  if (count_of(r, bytes)) return true;
  if (!arena_.reached(r, step_value(seq_, kEndStep))) return false;
  if (count_of(r, bytes)) return true;  // published just before the counter was read
  bytes = kSkippedCount;
  return true;
}

bool ShmOp::source_head(const std::byte* head, int source, std::uint64_t& theirs) const {
  if (HeadedChunks::head_ready(head, seq_, theirs)) return true;
  if (!arena_.reached(source, step_value(seq_, kEndStep))) return false;
  if (!HeadedChunks::head_ready(head, seq_, theirs)) theirs = kSkippedCount;
  return true;
}

bool ShmOp::read_member_heads(MemberHeads& heads, int self, std::uint32_t step,
                              const std::vector<Buffer>& blocks) {
  for (; heads.cursor < arena_.size(); ++heads.cursor) {
    int r = heads.cursor;
    if (r == self) continue;
    auto at = static_cast<std::size_t>(r);
    std::uint64_t theirs = 0, expected = blocks[at].bytes();
    if (!head_due(r, expected, step) || !source_head(arena_.slot(r), r, theirs)) return false;
    heads.theirs[at] = theirs == kSkippedCount ? 0 : theirs;
    if (theirs == expected) continue;
    heads.got[at] = std::min(heads.theirs[at], expected);
    fail_source(r, "rank " + std::to_string(r), theirs, expected);
  }
  return true;
}

void ShmOp::count_error(int source, std::uint64_t theirs) {
  mismatch_ = true;
  std::string who = "rank " + std::to_string(source);
  if (theirs >= kSkippedCount) {
    fail_source(source, who, theirs, count_bytes(counts_.expect));
  } else if (Collective c = count_collective(theirs); c != count_collective(counts_.expect)) {
    fail(Status(ErrorCode::kInvalidArgument,
                "a shared-memory collective: " + who + " runs " + std::string(collective_name(c)) +
                    " in this call, this rank " +
                    std::string(collective_name(count_collective(counts_.expect))) +
                    ": every rank must call the collectives of a communicator in the same "
                    "order"));
  } else {
    fail_source(source, who, count_bytes(theirs), count_bytes(counts_.expect));
  }
}

void ShmOp::fail_source(int source, const std::string& who, std::uint64_t theirs,
                        std::uint64_t expected) {
  if (theirs == kSkippedCount) {
    // A member that ran it from another root ends like this too, once the guard stops it.
    std::string text = "a shared-memory collective: " + who;
    if (arena_.left(source)) {
      text +=
          " left the communicator (MPI_Comm_free or MPI_Finalize) without running this "
          "call: a call on that rank failed, or the ranks' calls";
    } else {
      text += " ran this call with another algorithm (its count or datatype selected one)";
      if (rooted_) text += " or another root,";
      text += " or did not run it: the ranks' counts";
      text += rooted_ ? ", datatypes" : " or datatypes";
    }
    text += rooted_ ? " or roots do not match" : " do not match";
    fail(Status(ErrorCode::kInvalidArgument, std::move(text)));
    return;
  }
  if (theirs == kBadCount) {
    fail(Status(ErrorCode::kInvalidArgument,
                who + "'s send and receive counts or datatypes do not match"));
    return;
  }
  fail_count(who, theirs, expected);
}

void ShmOp::fail_count(const std::string& who, std::uint64_t theirs, std::uint64_t expected) {
  fail(Status(theirs > expected ? ErrorCode::kTruncated : ErrorCode::kInvalidArgument,
              "a shared-memory collective: " + who + " has " + std::to_string(theirs) +
                  " bytes where " + std::to_string(expected) +
                  " were expected: the ranks' counts or datatypes do not match"));
}

bool ShmOp::rearm(const Args& args) {
  return signature_ && arena_.serves(*args.comm) && signature_->matches(args) && repeat(args.tag);
}

bool ShmOp::repeat(int tag) {
  if (!done_ || on_fallback_ || !signature_ || arena_.state() != Arena::State::kReady) return false;
  tag_ = tag;
  return true;
}

bool ShmOp::abort(Status why) {
  if (done_ || on_fallback_) return false;
  fail(std::move(why));
  mismatch_ = true;  // it ends at its next step, moving no more data
  // Until the segment is set up it takes no step (the member it waits for may never come to
  // the set-up): the caller abandons it, and it ends once the set-up does, if ever.
  return arena_.state() == Arena::State::kReady;
}

Status ShmOp::status() const { return on_fallback_ ? fallback_->status() : status_; }

void ShmOp::complete() {
  arena_.post(step_value(seq_, kEndStep));
  // The next collective's flag line: its readers are done with it once this one ended here
  // (or soon after), and taking it now keeps the transfer off the next post (osu_barrier -np 2:
  // 0.40 -> 0.34 us, 11 interleaved runs).
  arena_.claim_line(seq_ + 1);
  queued_ = false;
  done_ = true;
}

void ShmOp::divert(const Status& why) {
  queued_ = false;
  if (mismatch_) {  // aborted: nothing more to run
    done_ = true;
    return;
  }
  if (fallback_ == nullptr) {
    status_ = Status(ErrorCode::kUnsupported,
                     "shared-memory collective cannot run: " + std::string(why.message()) +
                         "; choose another algorithm (GPURUN_COLL_<COLLECTIVE>_ALGO)");
    done_ = true;
    return;
  }
  on_fallback_ = true;
  if (Status st = fallback_->start(); !st.ok()) {
    status_ = std::move(st);
    on_fallback_ = false;
    done_ = true;
  }
}

}  // namespace gpurun::coll::shm
