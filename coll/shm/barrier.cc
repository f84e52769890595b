// Barrier through flags in shared memory.
//
// Idea: each rank bumps its own flag line to the barrier's sequence number. Flat: every rank
// waits until every member's line shows it. Release (flat teams whose ranks outnumber the
// cores, and two ranks before a small bcast or scatter from rank 0; GPURUN_COLL_SHM_BARRIER):
// rank 0 bumps its line only once every other member's line shows the number, so that rank 0
// is running when the barrier opens. Tree (teams above GPURUN_COLL_SHM_FLAT_MAX): a rank bumps
// its line once the lines of its children in the tree of flags show it, and waits for rank 0's
// (tree.h). No data moves and nothing resets: the next collective uses the next number.
// Why release when ranks outnumber cores: a flat barrier lets go first whichever ranks run at
// the last arrival; a collective rooted at rank 0 that follows (bcast, reduce, gather) then
// makes them wait until rank 0 gets a core again, a context switch or two each. With the
// release, rank 0's data is posted by the time the others look (osu_bcast -np 4 on 2 cores,
// 8 B: 0.13 us instead of 0.64-0.93). Only rank 0 chooses, each time: every other rank posts
// at once and waits for every line in both shapes, so the ranks need not agree. Rank 0
// releases when the collective that followed the previous barrier was rooted at rank 0 (and
// before any barrier), and stays flat when a barrier followed a barrier, since the release
// costs a context switch more on rank 0's core (osu_barrier -np 4 on 2 cores: 1.05 us flat,
// 1.59 us release).
// Why release with two ranks on cores of their own, before a bcast or scatter from rank 0 of up
// to 56 bytes (a flag line's; larger ones gained little or lost: 1M 21.8 -> 23.4 us): the
// flat barrier lets rank 1 go a hop before rank 0 (rank 0's line was there when rank 1 came),
// and rank 1 then waits for rank 0's data, posted a hop after rank 0 left, two hops in all,
// which an osu-style loop (the call, then a barrier) times as the call's. After the release
// both leave together and rank 0's data follows at once (osu_bcast -np 2 8 B, 7 interleaved
// runs: 0.13 -> 0.09 us; osu_scatter 0.14 -> 0.09). Not before a reduce or gather to rank 0
// (osu_reduce 0.18 -> 0.20, osu_gather 0.14 -> 0.17: there rank 0 waits for the others), nor
// with more ranks on cores of their own (not measured: flat).
// Requirements: the members share memory (one host).
// Cost: flat, one cache-line hop (every rank reads p - 1 lines written at the same time);
// release, two hops; tree, ceil(log_radix p) + 1 hops.
#include <string>

#include "coll/shm/algorithms.h"
#include "coll/shm/check.h"
#include "coll/shm/params.h"
#include "runtime/progress/progress.h"

namespace gpurun::coll::shm {
namespace {

// Rank 0's shape in a team of 3 or more: flat, release, or auto (chosen at each start from what
// followed the previous barrier), read once per operation. Whether the team is flat is known
// only once the arena has its segment, which may be after the operation was made: arrive()
// asks then.
bool spinning() { return progress::engine().policy() == progress::WaitPolicy::kSpin; }

BarrierShape shape_of(const Arena& arena) {
  if (arena.size() < 2 || arena.rank() != 0) return BarrierShape::kFlat;
  BarrierShape shape = params::barrier().get();
  if (shape == BarrierShape::kAuto && spinning() && arena.size() > 2) return BarrierShape::kFlat;
  return shape;
}

class Barrier final : public ShmOp {
 public:
  Barrier(Arena& arena, const Args& args)
      : ShmOp(arena, args), shape_(shape_of(arena)), spinning_(spinning()) {}

 private:
  void reset() override {
    posted_ = false;
    cursor_ = 0;
    looks_ = 0;
    release_ = shape_ == BarrierShape::kRelease ||
               (shape_ == BarrierShape::kAuto && releases_before(arena_.followed_barrier()));
  }
  // Ranks that outnumber cores: before any collective rooted at rank 0. Two ranks on cores of
  // their own: before a small bcast or scatter from rank 0 (see the top of the file).
  bool releases_before(Arena::AtZero next) const {
    if (spinning_) return next == Arena::AtZero::kSmallOut;
    return next != Arena::AtZero::kNone;
  }
  // Never this rank's own line: once the others have read it, a look at it takes a hop
  // (osu_barrier -np 2, 9 interleaved runs: 0.34 -> 0.25 us; the osu_* loops, which call a
  // barrier between the timed calls, 8 B: allreduce 0.46 -> 0.38, alltoall 0.47 -> 0.38).
  bool run() override {
    if (!posted_ && !arrive()) return false;
    if (arena_.flat()) {
      if (!all_arrived()) return false;
    } else if (arena_.rank() != 0 && !arrived(0)) {
      return false;
    }
    arena_.learn_all_started(seq_);
    return true;
  }
  // Posts this rank's line: at once (flat), once every other member has posted (rank 0
  // releasing; their lines then need no second look), or once its subtree has arrived (tree).
  // The line's data does not change, so no reader of older data there needs to be waited for.
  bool arrive() {
    if (release_ && arena_.flat()) {
      for (; cursor_ < arena_.size(); ++cursor_)
        if (cursor_ != 0 && !arrived(cursor_)) return false;
      cursor_ = 2 * arena_.size();  // all_arrived() has nothing left to look at
    } else if (!arena_.flat()) {
      const auto& children = arena_.children();
      for (; cursor_ < static_cast<int>(children.size()); ++cursor_)
        if (!arrived(children[cursor_].rank)) return false;
      cursor_ = 0;
    }
    post_line();
    posted_ = true;
    return true;
  }

  // Whether every other member has posted its line: first those on other cores, which may be
  // running now, then those that share this rank's core (Arena::core_group), which cannot
  // have run since this rank took the core; looking at one of them first only yields the core
  // sooner (osu_barrier -np 4 on 2 cores, medians of 10 interleaved runs, twice: 1.92 -> 1.82
  // us, 1.98 -> 1.87). The cursor runs over the members twice, one kind at a time.
  bool all_arrived() {
    int size = arena_.size();
    int own = arena_.core_group(arena_.rank());
    for (; cursor_ < 2 * size; ++cursor_) {
      int r = cursor_ % size;
      bool elsewhere = arena_.core_group(r) != own;
      if (r == arena_.rank() || elsewhere != (cursor_ < size)) continue;
      if (!arrived(r)) return false;
    }
    return true;
  }

  // Whether member r has posted its line. One whose counter passed this barrier without it
  // (it left: Arena::leave) fails the barrier here, which goes on as if r had arrived, so that
  // nobody waits for this rank either. The counter, a line of
  // its own, is read at one look in kWaitCountLooks only: reading it at every look slowed the
  // barrier (osu_barrier -np 2, far placement: 524 -> 616 ns).
  bool arrived(int r) {
    if (arena_.line_ready_soon(r, seq_)) return true;
    if ((++looks_ % kWaitCountLooks) != 0 || !arena_.reached(r, step_value(seq_, kEndStep)))
      return false;
    if (!arena_.line_ready(r, seq_)) fail_source(r, "rank " + std::to_string(r), kSkippedCount, 0);
    return true;
  }

  const BarrierShape shape_;
  const bool spinning_;  // the wait policy spins: ranks on cores of their own
  bool release_ = false;
  bool posted_ = false;
  int cursor_ = 0;
  std::uint32_t looks_ = 0;  // at lines not ready yet
};

}  // namespace

std::unique_ptr<ShmOp> make_barrier(Arena& arena, const Args& args) {
  return std::make_unique<Barrier>(arena, args);
}

}  // namespace gpurun::coll::shm
