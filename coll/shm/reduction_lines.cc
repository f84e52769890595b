// Reduce, allreduce, scan and exscan of up to 56 bytes, through the flag lines (see
// reduction.h).
#include <cstring>

#include "coll/shm/reduction.h"

namespace gpurun::coll::shm {
namespace {

// Line data sits 8 bytes into its line; ops may want their operands 16-byte aligned.
struct alignas(16) Operand {
  std::byte bytes[kLineBytes];
};

}  // namespace

bool Reduction::run_lines() {
  if (phase_ == 0 && !lines_post()) return false;
  return flat() ? lines_flat() : lines_tree();
}

// Flat: every rank but the root of a reduce posts its operand at once. Tree: a rank posts
// the partial result of its subtree once its children have posted theirs.
bool Reduction::lines_post() {
  if (!flat()) {
    const auto& children = arena_.children();
    for (; cursor_ < static_cast<int>(children.size()); ++cursor_)
      if (!arena_.line_ready(children[cursor_].rank, seq_)) return false;
  } else if (root_ == arena_.rank()) {
    phase_ = 1;
    cursor_ = 0;
    return true;
  }
  if (!arena_.line_writable(seq_)) return false;
  in_.pack(0, acc_, bytes_);
  if (!flat()) combine_children(acc_);
  std::memcpy(arena_.line(arena_.rank(), seq_).data, acc_, bytes_);
  post_line();
  int reader = flat() ? root_ : arena_.parent();
  arena_.line_written(seq_, reader < 0 ? Arena::kAllReaders : reader);
  phase_ = 1;
  cursor_ = 0;
  return true;
}

bool Reduction::lines_flat() {
  if (!is_root()) return true;
  for (; cursor_ < arena_.size(); ++cursor_)
    if (cursor_ != arena_.rank() && !arena_.line_ready_soon(cursor_, seq_)) return false;
  if (int last = last_operand(); last >= 0) {  // (none: rank 0 of an exscan)
    alignas(16) std::byte result[kLineBytes];
    combine_lines(0, last, result);
    out_.unpack(0, result, bytes_);
  }
  arena_.learn_all_started(seq_);
  return true;
}

// Rank 0 holds the result of the whole tree in acc_ (and its line); the others that need it
// read rank 0's line.
bool Reduction::lines_tree() {
  if (!is_root()) return true;
  if (arena_.rank() == 0) {
    out_.unpack(0, acc_, bytes_);
  } else {
    if (!arena_.line_ready(0, seq_)) return false;
    Operand result;
    std::memcpy(result.bytes, arena_.line(0, seq_).data, bytes_);
    out_.unpack(0, result.bytes, bytes_);
  }
  arena_.learn_all_started(seq_);
  return true;
}

// acc = x(first) op (... op x(last)), the operands from the lines (this rank's from its own
// buffer).
void Reduction::combine_lines(int first, int last, std::byte* acc) {
  auto load = [&](int r, std::byte* to) {
    if (r == arena_.rank()) {
      in_.pack(0, to, bytes_);
    } else {
      std::memcpy(to, arena_.line(r, seq_).data, bytes_);
    }
  };
  load(last, acc);
  Operand operand;
  for (int r = last - 1; r >= first; --r) {
    load(r, operand.bytes);
    apply(operand.bytes, acc, count_);
  }
}

// acc (this rank's operand) becomes the result of its subtree: at each level, acc op (c1 op
// (... op cm)) for the children c1 < ... < cm of that level, whose lines hold their subtrees'.
void Reduction::combine_children(std::byte* acc) {
  const auto& children = arena_.children();
  std::size_t i = 0;
  while (i < children.size()) {
    std::size_t end = i;
    while (end < children.size() && children[end].level == children[i].level) ++end;
    Operand tmp;
    Operand operand;
    std::memcpy(tmp.bytes, arena_.line(children[end - 1].rank, seq_).data, bytes_);
    for (std::size_t j = end - 1; j-- > i;) {
      std::memcpy(operand.bytes, arena_.line(children[j].rank, seq_).data, bytes_);
      apply(operand.bytes, tmp.bytes, count_);
    }
    apply(acc, tmp.bytes, count_);
    std::memcpy(acc, tmp.bytes, bytes_);
    i = end;
  }
}

}  // namespace gpurun::coll::shm
