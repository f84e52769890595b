// The base of every shared-memory collective: an Operation (coll/algorithm.h) that runs in its
// arena's order, and falls back to another algorithm should the arena's segment fail to set up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "coll/algorithm.h"
#include "coll/shm/arena.h"
#include "coll/shm/buffer.h"
#include "coll/shm/check.h"
#include "coll/shm/cma.h"
#include "coll/signature.h"
#include "runtime/base/status.h"

namespace gpurun::coll::shm {

class ShmOp : public Operation {
 public:
  explicit ShmOp(Arena& arena) : arena_(arena) {}
  // An operation that publishes and checks the byte counts of `args` (coll/shm/check.h).
  ShmOp(Arena& arena, const Args& args)
      : arena_(arena),
        counts_(count_check(args, arena.rank(), arena.size())),
        tag_(args.tag),
        barrier_(args.collective == Collective::kBarrier),
        rooted_(is_rooted(args.collective)),
        at_zero_(at_zero_of(args)) {}
  ~ShmOp() override;
  ShmOp(const ShmOp&) = delete;
  ShmOp& operator=(const ShmOp&) = delete;

  Status start() final;
  Status start_blocking(bool& done) final;
  bool progress() final;
  Status status() const final;
  bool ok() const final { return on_fallback_ ? fallback_->ok() : status_.ok(); }
  // Same call again (same buffers, counts, types, op, root) on a ready segment: run as it is.
  bool rearm(const Args& args) final;
  bool repeat(int tag) final;
  // Ends as a count mismatch does: posts its end without moving more data. False (the guard
  // abandons it) once it runs on its fallback, a pml algorithm, and while its segment is not
  // set up: it then ends when the set-up does, moving no data.
  bool abort(Status why) final;
  const Operation* runner() const final { return on_fallback_ ? fallback_.get() : nullptr; }

  // What the operation was made for, so that rearm() can compare (create_on_arena() sets it).
  void remember(const Args& args) { signature_.emplace(args); }

  // What the first collective of a new arena needs to set its segment up, and the operation
  // to run instead should that fail (both only while the arena is not ready).
  void prepare_setup(const Args& args, std::unique_ptr<Operation> fallback);

  // --- for the arena ---
  // Runs the algorithm as far as it goes; true once this rank has moved all its data (or
  // found that the ranks' counts differ).
  bool step();
  // Ends the collective on this rank: it has read all it needed.
  void complete();
  // The arena has no segment: hand over to the fallback.
  void divert(const Status& why);

 protected:
  // A waiting rank reads lines that other ranks write at every collective (their counters,
  // their counts) at one poll in this many only: each read takes the line from its writer,
  // whose next store then waits for it (see step()).
  static constexpr std::uint32_t kWaitCountLooks = 64;
  // Steps a blocking call takes in start_blocking before it waits through the engine.
  static constexpr int kQuickSteps = 64;
  // Sizes its rounds to the segment, before its first step: the slot size is rank 0's choice,
  // known only once the arena is set up, which may be after the operation was created.
  virtual void plan() {}
  // Fresh state for a new start (persistent collectives start many times).
  virtual void reset() = 0;
  // Advances without blocking; true once this rank has moved all its data.
  virtual bool run() = 0;
  // This rank waits for no other member's data (a non-root of a small reduce): like a non-root
  // of a gather, it publishes its count for the root to check and checks nobody's.
  void check_no_sources() { counts_.sources = CountCheck::Sources::kNone; }
  // Records why the collective failed (the first reason wins); it still runs to its end, so
  // that the other ranks do not wait for ever.
  void fail(Status why) {
    if (status_.ok()) status_ = std::move(why);
  }
  // Whether the head of a block from `source` (HeadedChunks, at `head`) is there for this
  // collective: then `theirs` is its count. A source that passed the collective without
  // writing it did not run the call here: `theirs` is then kSkippedCount.
  bool source_head(const std::byte* head, int source, std::uint64_t& theirs) const;
  // Whether to look for the head of `source`'s round 0 now: at once for a block expected to
  // fit in its head; for a larger one once the source has posted `step` (after its head), so
  // that its head and data are read together (waiting for the head, then reading the data,
  // took two hops in a row: far placement, osu_allgatherv -np 2 64-512 B, 10% slower).
  bool head_due(int source, std::uint64_t expected, std::uint32_t step) const {
    return expected <= kHeadBytes || arena_.reached(source, step_value(seq_, step));
  }
  // Round 0 of gatherv (at the root) and allgatherv: the head of each member's block but
  // `self`'s, at the start of its slot, into `heads`, compared with what `blocks` expect (a
  // difference is reported; this rank then takes no more than both counts, and nothing of a
  // member that passed the collective without a head: it did not run the call here). A block
  // expected beyond its head is looked at once its member has posted `step` (head_due).
  // False until every head is in.
  bool read_member_heads(MemberHeads& heads, int self, std::uint32_t step,
                         const std::vector<Buffer>& blocks);
  // Member `source` (`who` names it, as in "rank 3") has `theirs` for this rank where
  // `expected` were expected; theirs may be kSkippedCount (it did not run the call here, or
  // left: Arena::leave) or kBadCount (its own counts differ).
  void fail_source(int source, const std::string& who, std::uint64_t theirs,
                   std::uint64_t expected);

  // Compares the sources' counts with this rank's (those published so far); true once all
  // are compared or one differs (mismatched(): the failure is recorded). An algorithm that
  // reads the sources' own buffers (CMA, coll/shm/cma.h) calls it before it reads.
  bool check_counts();
  bool mismatched() const { return mismatch_; }

  // The single-copy exchange of allgather and alltoall (coll/shm/cma.h), `x` keeping its place
  // between calls: publishes make_source() in this rank's line, runs own(0) (the first half of
  // this rank's block, while the others' lines arrive), reads every other member's block once
  // the counts agree (read(r, its source) -> Status, the next rank first; `collective` names
  // the call in errors), posts that it is done, runs own(1) (the second half, while the others
  // finish their reads) and waits until every member has. False until then.
  // `reads_buffer(r)`, when given, tells whether member r reads this rank's buffer: the end
  // waits only for those (the others take what they need from elsewhere, this rank's slot).
  template <class MakeSource, class Own, class Read, class ReadsBuffer = std::nullptr_t>
  bool exchange_by_cma(CmaExchange& x, const char* collective, MakeSource make_source, Own own,
                       Read read, ReadsBuffer reads_buffer = nullptr) {
    if (!x.posted) {
      if (!arena_.line_writable(seq_)) return false;
      put_source(arena_.line(arena_.rank(), seq_), seq_, make_source());
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      x.posted = true;
      own(0);
    }
    if (!x.read) {
      if (!check_counts()) return false;
      if (mismatched()) return true;
      if (!read_sources(x, collective, read)) return false;
      arena_.post(step_value(seq_, kReadStep));
      x.read = true;
      own(1);
    }
    if constexpr (std::is_null_pointer_v<ReadsBuffer>) {
      return arena_.all_reached(step_value(seq_, kReadStep));
    } else {
      for (; x.waited < arena_.size(); ++x.waited)
        if (x.waited != arena_.rank() && reads_buffer(x.waited) &&
            !arena_.reached(x.waited, step_value(seq_, kReadStep)))
          return false;
      return true;
    }
  }

  // Single copy from entry lines (coll/shm/cma.h): for every other member, the next rank's
  // first, waits for entry_of(r) of this collective and runs take(r, entry) -> Status; a member
  // that passed the call without one ran another algorithm for it. False while one is missing.
  template <class EntryOf, class Take>
  bool read_entries(CmaExchange& x, const char* collective, EntryOf entry_of, Take take) {
    return for_each_source(
        x, collective, [&](int r) { return entry_ready(entry_of(r), seq_); },
        [&](int r) { return take(r, entry_of(r)); });
  }
  // The same from one member, `source` (the root of a scatterv or gatherv: `root`): false while
  // its entry `e` is missing.
  template <class Take>
  bool read_entry(int source, bool root, const char* collective, const EntryLine& e, Take take) {
    return read_source(
        source, root, collective, [&](int) { return entry_ready(e, seq_); },
        [&](int r) { return take(r, e); });
  }
  // Takes block `into` of member `r` (the root: `root`) as its entry line `e` describes: from
  // the entry, r's slot half or r's buffer by CMA; a count that differs from the block's is
  // reported, and no more than both is taken (`got`).
  Status take_block(int r, bool root, const EntryLine& e, const Buffer& into, std::uint64_t& got,
                    std::vector<std::byte>& scratch) {
    got = take_count(r, root, e.bytes, into);
    return take_entry(e, slot_half(r), arena_.slot_bytes() / 2, arena_.cma_pid(r), into, got,
                      scratch);
  }
  // What this rank takes of member r's block `into` (the root's: `root`) whose writer has
  // `theirs` bytes: no more than both; a difference is reported.
  std::uint64_t take_count(int r, bool root, std::uint64_t theirs, const Buffer& into) {
    if (theirs != into.bytes()) fail_source(r, member_name(r, root), theirs, into.bytes());
    return std::min(theirs, into.bytes());
  }
  // Whether every member that `addressed` marks (given the address of this rank's buffer) has
  // posted that it is done with it; `waited` keeps the place between calls.
  bool addressed_readers_done(const std::vector<std::uint8_t>& addressed, int& waited) const {
    for (; waited < arena_.size(); ++waited)
      if (addressed[static_cast<std::size_t>(waited)] &&
          !arena_.reached(waited, step_value(seq_, kReadStep)))
        return false;
    return true;
  }

  // The half of `rank`'s slot that this collective writes when it needs only half (entry lines
  // of coll/shm/cma.h with small blocks, blocks for core partners, a relayed bcast's message),
  // and its first part: back-to-back collectives alternate halves, so that a writer seldom
  // waits for the readers of the one before.
  std::byte* slot_half(int rank) const {
    return arena_.slot(rank) + (seq_ % 2) * (arena_.slot_bytes() / 2);
  }
  int slot_half_parts() const { return static_cast<int>(seq_ % 2) * 2; }

  // How errors name member r: "rank 3", or "the root (rank 3)".
  static std::string member_name(int r, bool root) {
    std::string rank = "rank " + std::to_string(r);
    return root ? "the root (" + rank + ")" : rank;
  }
  // Publishes this rank's flag line with its byte count (readers check it there for free).
  void post_line() {
    bool small = counts_.publish && counts_.bytes <= kMaxLineCount;
    arena_.post_line(seq_, small ? counts_.bytes + 1 : 0);
  }

  Arena& arena_;
  std::uint64_t seq_ = 0;  // this start's sequence number in the arena

 private:
  // Every other member's source line, read by read(r, its source) -> Status.
  template <class Read>
  bool read_sources(CmaExchange& x, const char* collective, Read& read) {
    return for_each_source(
        x, collective, [&](int r) { return arena_.line_ready(r, seq_); },
        [&](int r) {
          Source from;
          if (get_source(arena_.line(r, seq_), seq_, from)) return read(r, from);
          fail(no_source(collective, r));
          return ok_status();
        });
  }
  // For every other member, the next rank's first: once ready(r), runs take(r) -> Status (its
  // failure recorded, naming the block); a member that passed the call while not ready ran
  // another algorithm for it. False while one is not ready; `x.cursor` keeps the place.
  template <class Ready, class Take>
  bool for_each_source(CmaExchange& x, const char* collective, Ready ready, Take take) {
    int me = arena_.rank(), p = arena_.size();
    for (; x.cursor < p - 1; ++x.cursor)
      if (!read_source((me + 1 + x.cursor) % p, false, collective, ready, take)) return false;
    arena_.learn_all_started(seq_);
    return true;
  }
  // Member r's block (the root's: `root`), once ready(r): take(r) -> Status; false while it is
  // not. A member that passed the call without one ran it with another algorithm, or root.
  template <class Ready, class Take>
  bool read_source(int r, bool root, const char* collective, Ready&& ready, Take&& take) {
    if (!ready(r)) {
      if (!arena_.reached(r, step_value(seq_, kEndStep))) return false;
      if (!ready(r)) {
        fail_source(r, member_name(r, root), kSkippedCount, 0);
        return true;
      }
    }
    if (Status st = take(r); !st.ok())
      fail(std::move(st.prepend(std::string(collective) + ": reading the block of rank " +
                                std::to_string(r))));
    return true;
  }
  static Arena::AtZero at_zero_of(const Args& args) {
    if (!is_rooted(args.collective) || args.root != 0) return Arena::AtZero::kNone;
    const core::Datatype* type = args.type != nullptr ? args.type : args.recvtype;
    std::int64_t count = args.type != nullptr ? args.count : args.recvcount;
    bool out = args.collective == Collective::kBcast || args.collective == Collective::kScatter;
    bool small = type != nullptr && count * type->size() <= std::int64_t{kInlineBytes};
    return out && small ? Arena::AtZero::kSmallOut : Arena::AtZero::kRooted;
  }
  static bool is_rooted(Collective c) {
    return c == Collective::kBcast || c == Collective::kReduce || c == Collective::kGather ||
           c == Collective::kGatherv || c == Collective::kScatter || c == Collective::kScatterv;
  }
  // Takes the next sequence number and fresh state for a start.
  void begin();
  // Publishes this rank's count; false: its entry is not free yet.
  bool publish_count();
  void count_error(int source, std::uint64_t theirs);
  // `who` has `theirs` bytes for this rank where `expected` were expected: MPI_ERR_TRUNCATE
  // when more, MPI_ERR_ARG when less.
  void fail_count(const std::string& who, std::uint64_t theirs, std::uint64_t expected);
  // Source r's count, from its flag line or its count line; false: not published yet.
  bool count_of(int r, std::uint64_t& bytes) const {
    return arena_.line_count(r, seq_, bytes) || arena_.count_of(r, seq_, bytes);
  }
  // Source r's count, or kSkippedCount once r's step counter has passed this collective
  // without publishing one (r ran it with another algorithm, or not at all); false: neither.
  bool source_count(int r, std::uint64_t& bytes) const;

  CountCheck counts_;
  int tag_ = -1;  // the call's tag until its start takes it (-1: a restart)
  bool barrier_ = false;
  bool rooted_ = false;                           // a bcast, reduce, gather(v) or scatter(v)
  Arena::AtZero at_zero_ = Arena::AtZero::kNone;  // ... from or to rank 0
  bool published_ = false;
  bool ran_ = false;
  bool mismatch_ = false;
  int check_cursor_ = 0;
  std::uint32_t wait_looks_ = 0;  // waits of run() since the start
  bool done_ = true;
  bool queued_ = false;
  bool planned_ = false;
  bool on_fallback_ = false;
  Status status_;
  std::optional<CallSignature> signature_;  // none: never rearm
  std::unique_ptr<Operation> fallback_;
  pml::Pml* setup_pml_ = nullptr;
  const core::Communicator* setup_comm_ = nullptr;
};

}  // namespace gpurun::coll::shm
