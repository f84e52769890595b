// One rank's side of a communicator's shared-memory collectives: its view of the shared
// segment (coll/shm/layout.h), the flags it posts and waits for, what it may overwrite, and
// the order in which its collectives run.
//
// Ordering. Every member starts the collectives of a communicator in the same order, so each
// takes the next sequence number (number()) and they all agree on it. A collective's data moves
// only once every earlier one of this arena has finished on this rank (they run from a queue,
// head first, whichever of them the caller progresses), so the flags of two collectives never
// mix; nonblocking collectives still overlap with everything else the rank does.
//
// Reuse. A rank overwrites a flag line or a part of its slot only once every rank that reads
// it has shown, by its step counter, that it is done with what was there (writable()). The
// arena remembers a lower bound of everyone's counter, learnt from the flags it waited for,
// so that back-to-back collectives rarely read a counter for this.
//
// Waking. A rank that waits polls the flags through the progress engine; when ranks outnumber
// cores the engine puts it to sleep on its doorbell. Every post rings the doorbells of the
// other members (cheap when they are awake: one load of a line that stays in cache), when the
// arena knows where they are (set_doorbell; see coll/shm/README.md).
//
// Threading: like the rest of coll, not thread-safe; the API layer serialises callers.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coll/shm/layout.h"
#include "coll/shm/tree.h"
#include "runtime/base/prefetch.h"
#include "runtime/core/communicator.h"
#include "runtime/core/group.h"
#include "runtime/progress/progress.h"
#include "runtime/transport/shm/segment.h"

namespace gpurun::pml {
class Pml;
}

namespace gpurun::coll::shm {

class ShmOp;
class Setup;

// What the composition root tells this module once the shm transport has connected:
// where rank `job_rank` of this host can be woken (its progress doorbell, mapped in this
// process; nullptr: unknown), and the job's token, which names the fallback POSIX segments
// ("/gpurun-<token>-coll-...") so that the launcher removes any a failing rank leaves behind.
void set_doorbell(int job_rank, progress::Doorbell* bell);
progress::Doorbell* doorbell_of(int job_rank);
void set_job_token(std::string token);
const std::string& job_token();

// The slot size of the segments this process creates: GPURUN_COLL_SHM_SLOT_SIZE in whole
// pages, at least a page per part.
std::size_t new_slot_bytes();

// Collectives queued on any arena of this process (the progress poller's quick test).
std::size_t queued_everywhere();
// Where that count lives: the progress engine calls the arenas' poller only while it is not 0.
const progress::PendingWord* queued_word();

class Arena {
 public:
  enum class State : std::uint8_t { kNew, kSettingUp, kReady, kBroken };

  // An arena for `comm`, whose segment is set up by its first collective (start_setup).
  explicit Arena(const core::Communicator& comm);
  // An arena over a segment that is already mapped and initialised (by `layout.init`): the
  // ranks of unit tests, which run as threads over one piece of memory. `bells`: the members'
  // doorbells by rank, or empty.
  Arena(void* base, const Layout& layout, int rank, std::vector<progress::Doorbell*> bells = {});
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  State state() const { return state_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Whether this arena belongs to `comm` (and not to a freed communicator that had its context).
  bool serves(const core::Communicator& comm) const;

  // --- the segment ---
  RankControl* control(int r) const { return layout_.control(base_, r); }
  FlagLine& line(int r, std::uint64_t seq) const { return control(r)->line[seq % kFlagLines]; }
  std::byte* slot(int r) const { return layout_.slot(base_, r); }
  std::size_t slot_bytes() const { return layout_.slot_bytes; }
  // Quarter k mod kParts of rank r's slot (the pipelines that run up to kParts chunks ahead).
  std::size_t part_bytes() const { return layout_.slot_bytes / kParts; }
  std::byte* part(int r, std::uint64_t k) const { return slot(r) + (k % kParts) * part_bytes(); }
  // Small collectives: whether each rank reads every member's flag line (flat), or they
  // combine up the tree of flags (coll/shm/tree.h).
  bool flat() const { return flat_; }
  int parent() const { return parent_; }
  const std::vector<TreeChild>& children() const { return children_; }
  // Ranks that share a core (coll/shm/core_groups.h): rank r's group, named by its lowest
  // member, and whether any group has two members or more. Set by the setup (and by unit
  // tests, whose thread ranks have no setup).
  int core_group(int r) const { return groups_.empty() ? r : groups_[static_cast<std::size_t>(r)]; }
  bool grouped() const { return grouped_; }
  void set_core_groups(std::vector<int> groups);
  // Whether every rank may copy from every other member's memory by CMA, as the setup found
  // (runtime/transport/shm/cma.h), and rank r's process id for it. Set by the setup (and by
  // unit tests: their thread ranks read one process, their own).
  bool cma() const { return !cma_pids_.empty(); }
  int cma_pid(int r) const { return cma_pids_[static_cast<std::size_t>(r)]; }
  void set_cma_pids(std::vector<int> pids) { cma_pids_ = std::move(pids); }

  // --- flags ---
  // Publishes this rank's flag line for collective `seq` (its data written before), with its
  // byte count + 1 (`code`; 0: none).
  void post_line(std::uint64_t seq, std::uint64_t code = 0) {
    line(rank_, seq).flag.store(seq | code << kSeqBits, std::memory_order_release);
    ring();
  }
  // Asks for this rank's flag line of collective `seq` in a writable state, without waiting:
  // its readers had it last, and the write that posts it should not wait for the transfer.
  void claim_line(std::uint64_t seq) const { prefetch_for_write(&line(rank_, seq)); }
  bool line_ready(int r, std::uint64_t seq) const {
    return (line(r, seq).flag.load(std::memory_order_acquire) & kSeqMask) >= seq;
  }
  // line_ready(r, seq), waiting a little for it when r runs on another core and every rank
  // that shares this rank's core has posted its line: r is then likely running and about to
  // post, while giving up the core would make a rank that has nothing left to do here run first
  // (and this one wait for its turn again). See kLineSpinLooks.
  bool line_ready_soon(int r, std::uint64_t seq) const {
    if (line_ready(r, seq)) return true;
    if (!grouped_ || core_group(r) == core_group(rank_) || !own_core_posted(seq)) return false;
    return spin_for_line(r, seq);
  }
  // How many times line_ready_soon waited (for the unit tests).
  std::uint64_t line_spins() const { return line_spins_; }
  // The byte count member r posted with its flag line of collective `seq`, if it did.
  bool line_count(int r, std::uint64_t seq, std::uint64_t& bytes) const {
    std::uint64_t flag = line(r, seq).flag.load(std::memory_order_acquire);
    std::uint64_t code = flag >> kSeqBits;
    if ((flag & kSeqMask) != seq || code == 0) return false;
    bytes = code - 1;
    return true;
  }
  // Publishes this rank's step counter.
  void post(std::uint64_t value) {
    posted_ = value;
    control(rank_)->step.store(value, std::memory_order_release);
    ring();
  }
  // Collective `seq` is at the head of the queue: this rank is done with every collective
  // before it, including those it did not run (their numbers went to calls that ran on other
  // ranks alone, or to other algorithms), which the others may wait for.
  void close_gap(std::uint64_t seq) {
    if (posted_ < step_value(seq - 1, kEndStep)) post(step_value(seq - 1, kEndStep));
  }
  // This rank runs no more collectives here (its communicator is freed, or MPI_Finalize): its
  // counter goes past every collective, so that a member waiting in one this rank never ran
  // fails (a source that passed it without a count: coll/shm/check.h) instead of waiting.
  void leave() {
    if (state_ == State::kReady && size_ > 1 && posted_ < kLeftStep) post(kLeftStep);
  }
  bool left(int r) const { return reached(r, kLeftStep); }
  bool reached(int r, std::uint64_t value) const {
    return control(r)->step.load(std::memory_order_acquire) >= value;
  }
  // Whether every other member's counter is at `value` or beyond. Resumes where the last call
  // for the same value stopped.
  bool all_reached(std::uint64_t value);
  // Publishes this rank's byte count of collective `seq` (coll/shm/check.h), once every member
  // has finished the collective that last used its entry; false: not yet.
  bool publish_count(std::uint64_t seq, std::uint64_t bytes);
  // Member r's count of collective `seq`, once published: true and `bytes` set.
  bool count_of(int r, std::uint64_t seq, std::uint64_t& bytes) const {
    const CountEntry& e = control(r)->count[seq % kCountEntries];
    if (e.seq.load(std::memory_order_acquire) != seq) return false;
    bytes = e.bytes.load(std::memory_order_relaxed);
    return true;
  }
  // Everyone has posted something of collective `seq`, so finished collective seq - 1.
  void learn_all_started(std::uint64_t seq) {
    if (seq > 1 && step_value(seq - 1, kEndStep) > lower_bound_)
      lower_bound_ = step_value(seq - 1, kEndStep);
  }

  // --- reuse of what this rank writes: one of its flag lines, or quarters of its slot ---
  static constexpr int kParts = 4;
  static constexpr int kAllReaders = -1;
  // Whether the readers of the last data written there are done with it.
  bool line_writable(std::uint64_t seq) { return done(line_need_[seq % kFlagLines]); }
  // Data for collective `seq` went into the line; `reader` (a rank, or kAllReaders) reads it.
  void line_written(std::uint64_t seq, int reader) {
    line_need_[seq % kFlagLines] = Need{step_value(seq, kEndStep), reader};
  }
  bool parts_writable(int first, int count);
  // Parts [first, first + count) hold data that `reader` is done with at counter `value`.
  void parts_written(int first, int count, std::uint64_t value, int reader);

  // --- ordering ---
  // The next sequence number, for a collective about to start. `tag` (Args::tag, or -1 for a
  // restart of a persistent collective) keeps the members in step when a call failed its
  // argument checks on some of them only (MPI_Scatter with MPI_IN_PLACE off the root: the
  // root's call runs alone): every call takes a tag on every member, so a call's sequence
  // number is at least tag + 1, whatever collectives ran on this rank alone before.
  // (Persistent starts between calls take numbers of their own; a call that ran alone and more
  // persistent starts than tags since can still put the members out of step.)
  std::uint64_t number(int tag);
  // Queues `op` behind the collectives still running. A blocking call with nothing queued
  // before it takes its number and runs at once (ShmOp::start_blocking), joining the queue
  // only if it has to wait for long.
  void enqueue(ShmOp* op);
  // How a collective involves rank 0: not as its root (kNone), as its root (kRooted: bcast,
  // reduce, gather, scatter), or as the root of a bcast or scatter of at most a flag line's
  // data per rank (kSmallOut).
  enum class AtZero : std::uint8_t { kNone, kRooted, kSmallOut };
  // What the collective that began after the last barrier was, as AtZero. The barrier's rank 0
  // uses this as its guess of what will follow the next barrier (coll/shm/barrier.cc). Before
  // any barrier: kSmallOut.
  void note_begin(bool barrier, AtZero at_zero) {
    if (after_barrier_) followed_barrier_ = at_zero;
    after_barrier_ = barrier;
  }
  AtZero followed_barrier() const { return followed_barrier_; }
  // Runs the queued collectives, head first, as far as they go; how many completed.
  int advance();
  bool busy() const { return !queue_.empty(); }
  // Forgets `op` (destroyed before it finished).
  void drop(ShmOp* op);

  // Maps a segment set up elsewhere (by the setup, or by a unit test for its thread ranks).
  void attach(void* base, const Layout& layout) { map(base, layout); }

  // --- setup (the MPI path) ---
  // Starts creating and mapping the segment: `pml` carries the descriptor on the collective
  // channel of `comm` (coll/shm/setup.h).
  void start_setup(pml::Pml& pml, const core::Communicator& comm);

 private:
  struct Need {
    std::uint64_t value = 0;
    int reader = kAllReaders;
  };
  // The lower bound first, for one reader too: reading that reader's counter, which it wrote
  // last, costs a cache-line hop.
  bool done(const Need& need) {
    if (need.value <= lower_bound_) return true;
    return need.reader == kAllReaders ? all_reached(need.value) : reached(need.reader, need.value);
  }
  void ring() const {
    for (progress::Doorbell* bell : bells_)
      if (bell != nullptr) bell->ring();
  }
  // Whether every other member's counter is at `value`: reads them all and keeps their
  // minimum as the lower bound, so that the next few calls need not read them.
  bool all_finished(std::uint64_t value);
  void finish_setup();
  void map(void* base, const Layout& layout);

  State state_ = State::kNew;
  int rank_ = 0;
  int size_ = 1;
  std::uint32_t context_id_ = 0;
  core::GroupPtr group_;  // the communicator's group (to tell a reused context id)
  void* base_ = nullptr;
  Layout layout_;
  std::unique_ptr<transport::shm::Segment> segment_;
  std::vector<std::byte> private_memory_;  // the segment of a one-rank communicator
  std::unique_ptr<Setup> setup_;
  std::vector<progress::Doorbell*> bells_;  // of the other members; nullptr where unknown
  bool flat_ = true;
  int parent_ = -1;
  std::vector<TreeChild> children_;
  bool own_core_posted(std::uint64_t seq) const;
  bool spin_for_line(int r, std::uint64_t seq) const;
  mutable std::uint64_t line_spins_ = 0;

  std::vector<int> groups_;  // empty: every rank a group of its own
  bool grouped_ = false;
  std::vector<int> cma_pids_;  // empty: no CMA between the members

  std::uint64_t issued_ = 0;     // sequence numbers given out
  std::uint64_t posted_ = 0;     // this rank's step counter
  std::uint64_t last_tag_ = 0;   // the last tag number() took, extended past its wrap ...
  std::uint64_t tag_epoch_ = 0;  // ... by this
  std::uint64_t entry_seq_[kCountEntries] = {};  // who last published in each count entry
  std::deque<ShmOp*> queue_;
  bool after_barrier_ = false;                   // the last collective begun was a barrier
  AtZero followed_barrier_ = AtZero::kSmallOut;  // see note_begin()
  std::uint64_t lower_bound_ = 0;                // no other member's counter is below this
  std::uint64_t wait_value_ = 0;                 // all_reached: the value of the last call ...
  int wait_cursor_ = 0;                          // ... and the members already seen there
  Need line_need_[kFlagLines];
  Need part_need_[kParts];
};

}  // namespace gpurun::coll::shm
