// Reduce and allreduce through the slots in shared memory (see reduction.h for the three ways).
//
// Requirements: the members share memory (one host); host buffers; a contiguous datatype (the
// slots hold the packed operands, which the op reads as they are); any op, commutative or not.
// Cost, p ranks, n bytes, h = half slot, gamma per byte combined:
// - lines: flat, 1 hop + p gamma n; tree, (log_radix p + 1) hops.
// - direct: (n / h) x 2 hops + n copied in + p n read and (p - 1) n gamma per combining rank.
// - shares: (n / h) x 3 hops + (p - 1) n / p copied in + n read and (p - 1) n / p gamma per
//   rank + n copied out (allreduce); all ranks combine at once, every byte in cache.
// - core groups: (n / h) x 2 hops; n copied in by each member and leader; a leader of m
//   members reads and combines m n, the root (m + other leaders) n; n per other core crosses.
#include "coll/shm/reduction.h"

#include <algorithm>
#include <cstring>

#include "coll/shm/algorithms.h"
#include "coll/shm/params.h"

namespace gpurun::coll::shm {
namespace {

// Largest vector every rank combines whole: up to it, one hop less per round beats p times
// less combining per rank.
std::uint64_t direct_max(int size) {
  if (auto knob = params::direct_max().get()) return knob->bytes;
  return std::max<std::uint64_t>(4096, 32768 / static_cast<std::uint64_t>(size));
}

// The stream's chunk: small enough that the root starts combining soon after the other rank
// starts copying, large enough that the hops per chunk stay a small part.
constexpr std::uint64_t kStreamChunk = 128 << 10;

}  // namespace

Reduction::Reduction(Arena& arena, const Args& args, int root, bool cma)
    : ShmOp(arena, args),
      root_(root),
      prefix_(args.collective == Collective::kScan     ? Prefix::kInclusive
              : args.collective == Collective::kExscan ? Prefix::kExclusive
                                                       : Prefix::kNone),
      op_(args.op),
      type_(args.type),
      loop_(args.op->packed_loop(*args.type)),
      hold_(args.type),
      hold_op_(args.op),
      in_(args.in_place ? args.recvbuf : args.sendbuf, args.count, args.type),
      out_(args.recvbuf, args.count, args.type),
      own_in_buffer_(!args.in_place && in_.contiguous()),
      count_(args.count),
      element_(args.type->size()),
      bytes_(in_.bytes()),
      cma_(cma && root >= 0 && args.collective == Collective::kReduce) {
  if (bytes_ <= kInlineBytes) {
    way_ = Way::kLines;
  } else if (prefix_ != Prefix::kNone || bytes_ <= direct_max(arena.size())) {
    way_ = Way::kDirect;
  } else {
    way_ = Way::kShares;
  }
}

void Reduction::plan() {
  if (cma_ && way_ != Way::kLines && arena_.cma() && arena_.size() == 2) way_ = Way::kCma;
  // (A chunk holds at least one element: a contiguous type larger than a quarter slot keeps
  // the shares, whose chunk is a half.)
  const std::uint64_t stream_chunk = std::min<std::uint64_t>(arena_.part_bytes(), kStreamChunk);
  if (way_ == Way::kShares && stream_possible() &&
      static_cast<std::uint64_t>(element_) <= stream_chunk)
    way_ = Way::kStream;
  if (way_ == Way::kShares && root_ >= 0 && op_->commutative() && arena_.grouped()) {
    way_ = Way::kGroups;
    plan_groups();
  }
  // A non-root of a reduce that only posts its operand (flat lines, direct) checks nobody's
  // count: waiting for every member's would make it wait for the slowest, when the root,
  // which checks them all, reports a mismatch. In the shares it waits for the others' data.
  // So in cma, where it compares the root's byte count in the root's line itself.
  bool posts_only = way_ == Way::kDirect || way_ == Way::kCma || way_ == Way::kStream ||
                    (way_ == Way::kLines && arena_.flat());
  if (root_ >= 0 && !is_root() && posts_only) check_no_sources();
  half_ = arena_.slot_bytes() / 2;
  chunk_ = static_cast<std::int64_t>(way_ == Way::kStream ? stream_chunk : half_) / element_;
  rounds_ = (count_ + chunk_ - 1) / chunk_;
}

void Reduction::reset() {
  round_ = 0;
  phase_ = 0;
  cursor_ = 0;
}

bool Reduction::run() {
  if (bytes_ == 0) return true;
  switch (way_) {
    case Way::kLines:
      return run_lines();
    case Way::kDirect:
      return run_direct();
    case Way::kShares:
      return run_shares();
    case Way::kGroups:
      return run_groups();
    case Way::kCma:
      return run_cma();
    case Way::kStream:
      return run_stream();
  }
  return true;
}

// Straight into the op's loop where it can go (most reductions: a predefined op on a basic
// type), which skips the op's per-call dispatch.
void Reduction::apply(const void* in, void* inout, std::int64_t count) {
  if (count == 0) return;
  auto mask = static_cast<std::uintptr_t>(loop_.alignment - 1);
  if (loop_.loop != nullptr &&
      ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(inout)) & mask) ==
          0) [[likely]] {
    loop_.loop(in, inout, count * loop_.per_item);
    return;
  }
  Status st = op_->apply(typed_at(in, *type_), typed_at(inout, *type_), count, *type_);
  if (!st.ok()) [[unlikely]]
    fail(std::move(st));
}

// out = a op b: in one pass where the op's loop has a form with a third buffer, else b is
// copied into out first.
void Reduction::combine_into(const void* a, const void* b, std::byte* out, std::int64_t count) {
  auto mask = static_cast<std::uintptr_t>(loop_.alignment - 1);
  auto bits = reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) |
              reinterpret_cast<std::uintptr_t>(out);
  if (loop_.combine != nullptr && (bits & mask) == 0 && count > 0) {
    loop_.combine(a, b, out, count * loop_.per_item);
    return;
  }
  std::memcpy(out, b, static_cast<std::size_t>(count * element_));
  apply(a, out, count);
}

std::int64_t Reduction::chunk_elements() const {
  return std::min<std::int64_t>(chunk_, count_ - static_cast<std::int64_t>(round_) * chunk_);
}

std::int64_t Reduction::share_begin(int r) const { return chunk_elements() * r / arena_.size(); }

// ---- direct: phase 0 puts the chunk, phase 1 combines it (on the combining ranks) ----

bool Reduction::run_direct() {
  for (; round_ < rounds_; ++round_, phase_ = 0) {
    if (phase_ == 0 && !put_chunk()) return false;
    if (is_root() && !combine_direct()) return false;
  }
  return true;
}

bool Reduction::put_chunk() {
  int first = static_cast<int>(round_ % 2) * 2;
  if (!arena_.parts_writable(first, 2)) return false;
  std::uint64_t offset = round_ * chunk_ * element_;
  in_.pack(offset, half_of(arena_.rank()), chunk_elements() * element_);
  std::uint64_t done = step_value(seq_, 2 * round_ + 2);
  arena_.post(is_root() ? step_value(seq_, 2 * round_ + 1) : done);
  arena_.parts_written(first, 2, done, root_ < 0 ? Arena::kAllReaders : root_);
  phase_ = 1;
  return true;
}

// The result chunk goes straight into the output: x(p-2) op x(p-1) in one pass (combine_into),
// then x(r) op it for r = p-3 .. 0 (osu_reduce -np 2, 7 interleaved runs against copying
// x(p-1) in first: 8K 0.45 -> 0.42 us, 16K 0.65 -> 0.57; osu_allreduce equal).
// The operands come from the slots; this rank's from its buffer where it can (in place, the
// output is its input): once another rank has read a line of its slot, reading it again here
// took a hop (osu_allreduce -np 2, 9 interleaved runs: 64 B 0.64 -> 0.59 us, 512 B 1.18 -> 1.09).
bool Reduction::combine_direct() {
  if (!arena_.all_reached(step_value(seq_, 2 * round_ + 1))) return false;
  std::int64_t count = chunk_elements();
  std::uint64_t offset = round_ * chunk_ * element_;
  int me = arena_.rank();
  auto operand = [&](int r) -> const std::byte* {
    return r == me && own_in_buffer_ ? in_.packed(offset) : half_of(r);
  };
  std::byte* out = out_.packed(offset);
  if (int last = last_operand(); last == 0) {
    out_.unpack(offset, operand(0), count * element_);
  } else if (last > 0) {  // (none: rank 0 of an exscan)
    combine_into(operand(last - 1), operand(last), out, count);
    for (int r = last - 2; r >= 0; --r) apply(operand(r), out, count);
  }
  arena_.post(step_value(seq_, 2 * round_ + 2));
  return true;
}

// ---- shares: phase 0 puts the others' shares, 1 combines this rank's, 2 copies all out ----

bool Reduction::run_shares() {
  for (; round_ < rounds_; ++round_, phase_ = 0) {
    if (phase_ == 0 && !put_shares()) return false;
    if (phase_ == 1 && !combine_share()) return false;
    if (phase_ == 2 && !copy_shares()) return false;
  }
  return true;
}

bool Reduction::put_shares() {
  int first = static_cast<int>(round_ % 2) * 2;
  if (!arena_.parts_writable(first, 2)) return false;
  std::uint64_t base = round_ * chunk_ * element_;
  std::byte* half = half_of(arena_.rank());
  for (int r = 0; r < arena_.size(); ++r) {
    if (r == arena_.rank()) continue;
    std::uint64_t at = share_begin(r) * element_;
    in_.pack(base + at, half + at, (share_begin(r + 1) - share_begin(r)) * element_);
  }
  arena_.post(step_value(seq_, 3 * round_ + 1));
  arena_.parts_written(first, 2, step_value(seq_, 3 * round_ + 3), Arena::kAllReaders);
  phase_ = 1;
  return true;
}

// This rank's share, combined where one operand already lies: in the slot of its holder,
// whose operand for this share nobody else reads. The accumulator starts as the holder's
// operand, so with a non-commutative op the holder is the last rank (x0 op (... op acc));
// with a commutative one it is the next rank, which spreads the writes over the slots. The
// holder's own share sits in its own slot: its operand comes from its buffer first.
bool Reduction::combine_share() {
  if (!arena_.all_reached(step_value(seq_, 3 * round_ + 1))) return false;
  int me = arena_.rank();
  int size = arena_.size();
  std::int64_t begin = share_begin(me);
  std::int64_t count = share_begin(me + 1) - begin;
  std::uint64_t at = begin * element_;
  std::uint64_t offset = round_ * chunk_ * element_ + at;
  int holder = holder_of(me);
  std::byte* acc = half_of(holder) + at;
  if (holder == me) in_.pack(offset, acc, count * element_);
  auto operand = [&](int r) -> const void* {
    return r == me ? static_cast<const void*>(in_.packed(offset)) : half_of(r) + at;
  };
  if (op_->commutative()) {
    for (int i = 1; i < size; ++i) apply(operand((holder + i) % size), acc, count);
  } else {
    for (int r = size - 2; r >= 0; --r) apply(operand(r), acc, count);
  }
  bool copies = is_root();
  arena_.post(step_value(seq_, 3 * round_ + (copies ? 2 : 3)));
  phase_ = copies ? 2 : 3;
  return true;
}

int Reduction::holder_of(int share) const {
  int size = arena_.size();
  return op_->commutative() ? (share + 1) % size : size - 1;
}

bool Reduction::copy_shares() {
  if (!arena_.all_reached(step_value(seq_, 3 * round_ + 2))) return false;
  std::uint64_t base = round_ * chunk_ * element_;
  for (int r = 0; r < arena_.size(); ++r) {
    std::uint64_t at = share_begin(r) * element_;
    out_.unpack(base + at, half_of(holder_of(r)) + at,
                (share_begin(r + 1) - share_begin(r)) * element_);
  }
  arena_.post(step_value(seq_, 3 * round_ + 3));
  phase_ = 3;
  return true;
}

std::unique_ptr<ShmOp> make_reduce(Arena& arena, const Args& args) {
  return std::make_unique<Reduction>(arena, args, args.root);
}

std::unique_ptr<ShmOp> make_reduce_cma(Arena& arena, const Args& args) {
  return std::make_unique<Reduction>(arena, args, args.root, true);
}

std::unique_ptr<ShmOp> make_allreduce(Arena& arena, const Args& args) {
  return std::make_unique<Reduction>(arena, args, -1);
}

}  // namespace gpurun::coll::shm
