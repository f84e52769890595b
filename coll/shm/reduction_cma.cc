// Reduce of two ranks by CMA (the "cma" algorithm for reduce; see reduction.h).
//
// Idea: each rank publishes where its operand lies (and the root where its result goes) in its
// flag line. The root reads the head of the other's operand (elements [0, h)) by CMA and
// combines it with its own into its result; meanwhile the other rank reads the tail of the
// root's operand, combines it with its own and writes that part of the result into the root's
// buffer (process_vm_writev). Both cores copy and combine at once; the root's share is larger
// (h = 2n/3), since the other rank copies its part twice. Each rank then posts that it is done
// with the other's buffer, and returns once the other has too.
// Operands are combined in rank order (x0 op x1); a commutative op lets the root read the
// other's head straight into its result and combine over it.
// Requirements: two ranks on one host that reach each other by CMA (Arena::cma; else the
// slot ways), host buffers, a contiguous datatype.
// Cost: 2 hops; the root reads 2n/3 by CMA and combines it, the other reads n/3, combines it
// and writes it by CMA.
#include <algorithm>
#include <cstring>

#include "coll/shm/cma.h"
#include "coll/shm/reduction.h"
#include "runtime/transport/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

// What a rank publishes in its flag line.
struct ReduceLine {
  std::uint64_t check = 0;   // line_check(seq): the line holds this (coll/shm/cma.h)
  std::uint64_t in = 0;      // its operand
  std::uint64_t out = 0;     // the root's result (0 elsewhere)
  std::uint64_t bytes = 0;   // of its operand
  std::uint64_t failed = 0;  // 1: the other rank's share could not be written (before step 1)
};
static_assert(sizeof(ReduceLine) <= kInlineBytes);

ReduceLine line_of(const FlagLine& line) {
  ReduceLine l;
  std::memcpy(&l, line.data, sizeof l);
  return l;
}

// The failure of a rank that found no ReduceLine in the other's line.
Status other_algorithm(int rank) { return no_source("reduce", rank); }

// The step each rank posts once it is done with the other's buffer.
constexpr std::uint64_t kDoneStep = kReadStep;

}  // namespace

bool Reduction::run_cma() {
  int other = 1 - arena_.rank();
  if (phase_ == 0) {
    if (!arena_.line_writable(seq_)) return false;
    ReduceLine mine{.check = line_check(seq_),
                    .in = reinterpret_cast<std::uint64_t>(in_.packed(0)),
                    .out = is_root() ? reinterpret_cast<std::uint64_t>(out_.packed(0)) : 0,
                    .bytes = bytes_};
    std::memcpy(arena_.line(arena_.rank(), seq_).data, &mine, sizeof mine);
    post_line();
    arena_.line_written(seq_, other);
    phase_ = 1;
  }
  if (phase_ == 1) {
    if (is_root() ? !cma_root_share() : !cma_other_share()) return false;
    if (mismatched()) return true;
    arena_.post(step_value(seq_, kDoneStep));
    phase_ = 2;
  }
  if (!arena_.reached(other, step_value(seq_, kDoneStep))) return false;
  if (is_root() && line_of(arena_.line(other, seq_)).failed != 0)
    fail(Status(ErrorCode::kIo, "reduce: rank " + std::to_string(other) +
                                    " could not write its part of the result by CMA"));
  return true;
}

// Elements [0, h) of the result, at the root. False while the other's count or line is missing.
bool Reduction::cma_root_share() {
  int other = 1 - arena_.rank();
  if (!check_counts()) return false;
  if (mismatched()) return true;
  if (!arena_.line_ready(other, seq_)) return false;
  ReduceLine line = line_of(arena_.line(other, seq_));
  if (line.check != line_check(seq_)) {
    fail(other_algorithm(other));
    return true;
  }
  std::int64_t h = cma_root_elements();
  std::size_t length = static_cast<std::size_t>(h * element_);
  std::uint64_t theirs = line.in;
  const std::byte* mine = in_.packed(0);
  std::byte* out = out_.packed(0);
  bool mine_first = arena_.rank() < other;
  bool in_place = mine == out;
  if (!in_place && (mine_first || op_->commutative())) {
    cma_read_operand(other, out, theirs, length);
    apply(mine, out, h);  // mine op theirs
  } else {
    scratch_.resize(length);
    cma_read_operand(other, scratch_.data(), theirs, length);
    if (mine_first) {
      apply(mine, scratch_.data(), h);
      std::memcpy(out, scratch_.data(), length);
    } else {
      if (!in_place) std::memcpy(out, mine, length);
      apply(scratch_.data(), out, h);  // theirs op mine
    }
  }
  return true;
}

// Elements [h, n) of the result, at the other rank, written into the root's buffer.
bool Reduction::cma_other_share() {
  int root = 1 - arena_.rank();
  // A root whose count chose another way (an erroneous call) may pass without a line, which
  // it reports (its count check); a count in its line that differs, both report.
  if (!arena_.line_ready(root, seq_)) return arena_.reached(root, step_value(seq_, kEndStep));
  ReduceLine theirs = line_of(arena_.line(root, seq_));
  if (theirs.check != line_check(seq_)) return true;  // the root reports it
  if (theirs.bytes != bytes_) {
    fail_source(root, "rank " + std::to_string(root), theirs.bytes, bytes_);
    return true;
  }
  std::int64_t h = cma_root_elements(), n = count_ - h;
  std::size_t at = static_cast<std::size_t>(h * element_);
  std::size_t length = static_cast<std::size_t>(n * element_);
  const std::byte* mine = in_.packed(at);
  scratch_.resize(length);
  cma_read_operand(root, scratch_.data(), theirs.in + at, length);
  std::byte* result = scratch_.data();
  if (arena_.rank() < root || op_->commutative()) {
    apply(mine, result, n);  // mine op theirs
  } else {
    mine_copy_.assign(mine, mine + length);
    apply(result, mine_copy_.data(), n);  // theirs op mine
    result = mine_copy_.data();
  }
  Status st = transport::shm::cma_write(arena_.cma_pid(root), result, theirs.out + at, length);
  if (!st.ok()) {
    fail(std::move(st.prepend("reduce: writing this rank's part of the result")));
    ReduceLine failed = line_of(arena_.line(arena_.rank(), seq_));
    failed.failed = 1;
    std::memcpy(arena_.line(arena_.rank(), seq_).data, &failed, sizeof failed);
  }
  return true;
}

void Reduction::cma_read_operand(int rank, std::byte* into, std::uint64_t from,
                                 std::size_t length) {
  Status st = transport::shm::cma_read(arena_.cma_pid(rank), into, from, length);
  if (!st.ok())
    fail(std::move(st.prepend("reduce: reading the operand of rank " + std::to_string(rank))));
}

}  // namespace gpurun::coll::shm
