// Barrier through flags in shared memory.
//
// Idea: each rank bumps its own flag line to the barrier's sequence number and waits until
// every member's line shows it (flat), or, in teams above GPURUN_COLL_SHM_FLAT_MAX, bumps its
// line once the lines of its children in the tree of flags show it, and waits for rank 0's
// (tree.h). No data moves and nothing resets: the next collective uses the next number.
// Requirements: the members share memory (one host).
// Cost: flat, one cache-line hop (every rank reads p - 1 lines written at the same time);
// tree, ceil(log_radix p) + 1 hops.
#include "coll/shm/algorithms.h"

namespace gpurun::coll::shm {
namespace {

class Barrier final : public ShmOp {
 public:
  Barrier(Arena& arena, const Args& args) : ShmOp(arena, args) {}

 private:
  void reset() override {
    posted_ = false;
    cursor_ = 0;
  }
  bool run() override {
    if (!posted_ && !arrive()) return false;
    if (arena_.flat()) {
      for (; cursor_ < arena_.size(); ++cursor_)
        if (!arena_.line_ready(cursor_, seq_)) return false;
    } else if (arena_.rank() != 0 && !arena_.line_ready(0, seq_)) {
      return false;
    }
    arena_.learn_all_started(seq_);
    return true;
  }
  // Posts this rank's line: at once (flat), or once its subtree has arrived (tree). The line's
  // data does not change, so no reader of older data there needs to be waited for.
  bool arrive() {
    if (!arena_.flat()) {
      const auto& children = arena_.children();
      for (; cursor_ < static_cast<int>(children.size()); ++cursor_)
        if (!arena_.line_ready(children[cursor_].rank, seq_)) return false;
      cursor_ = 0;
    }
    post_line();
    posted_ = true;
    return true;
  }

  bool posted_ = false;
  int cursor_ = 0;
};

}  // namespace

std::unique_ptr<ShmOp> make_barrier(Arena& arena, const Args& args) {
  return std::make_unique<Barrier>(arena, args);
}

}  // namespace gpurun::coll::shm
