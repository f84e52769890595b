// coll/basic: the few collectives that creating communicators needs (and MPI_Barrier), written
// over the pml's nonblocking point-to-point on the collective channel, so that they never
// match a user's receive. A later issue brings the full collective engine (schedules, a
// registry, tuning tables); these stay small, correct for every team size, and nonblocking.
//
// A collective runs over a Team: the ranks of a communicator that take part (all of them, or
// the group of MPI_Comm_create_group) and a tag that tells its messages from those of other
// collectives on the same communicator (every member calls collectives in the same order, so
// a per-communicator sequence number makes a good tag).
//
// Each collective is a small state machine: it posts the sends and receives of one step, and
// when they have all completed (the pml calls back from progress) it combines what arrived
// and posts the next step. Nothing here blocks: callers wait on done() with the progress
// engine, or pass a callback that runs (from progress) when it is done. The callback may
// start other collectives and may destroy the one that calls it: nothing touches the
// collective after its callback returns.
//
// Threading: like the pml, not thread-safe; the API layer serialises callers.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pml/pml.h"
#include "runtime/base/status.h"
#include "runtime/core/communicator.h"

namespace gpurun::coll {

// Tags on the collective channel. A collective call's messages carry its sequence number
// (Args::tag, 0 to kCreationTags - 1, wrapping); those of a communicator's creation that took
// sequence number t carry creation_tag(t), so that they never match the messages of a
// collective call that another rank (erroneously) runs at t; -1 is the pml's wildcard; -2 to -31
// are kept for coll's own messages (the ones below); from kFirstTeamTag down,
// MPI_Comm_create_group's traffic (team_tag()).
inline constexpr int kGuardNoticeTag = -16;  // select_guard.cc: notices of a stuck call
inline constexpr int kShmSetupTag = -17;     // shm/setup.cc: a segment's set-up messages
inline constexpr int kFirstTeamTag = -32;
inline constexpr int kCreationTags = 1 << 30;
constexpr int creation_tag(int sequence) { return kCreationTags + sequence % kCreationTags; }
// The tag of the traffic of MPI_Comm_create_group with user tag `tag` (0..INT_MAX) on its
// parent: at or below kFirstTeamTag. Tags that differ by INT_MAX + kFirstTeamTag share one.
constexpr int team_tag(int tag) { return kFirstTeamTag - tag % (INT_MAX + kFirstTeamTag); }

// A member whose part of a collective failed still sends in every later step, so that nobody
// waits for it, but a message of the wrong length (the poison: nothing, or one byte where
// nothing is expected), so that its receivers fail too, and theirs in turn.
constexpr std::size_t poison_bytes(std::size_t bytes) { return bytes == 0 ? 1 : 0; }

// The error of a collective whose message with `peer` (a rank of `comm`) failed with `code`;
// `what` says which message ("a message from rank 3"). A peer that finalized (pml/leave.cc)
// is named as such: it never ran this call.
Status message_failed(const pml::Pml& pml, const core::Communicator& comm, int peer, ErrorCode code,
                      const std::string& what);

struct Team {
  const core::Communicator* comm = nullptr;  // the messages travel on its collective channel
  std::vector<int> members;                  // ranks of comm, in team order; empty: all of comm
  int tag = 0;
  bool blocking = false;  // run by a blocking call (coll/select_guard.h: deadlocks)
  // What the guard's notices say of the call (coll/select_guard.h: watch_creation) when it
  // runs several collectives at one tag (MPI_Comm_split: its exchange of colours, then the
  // context id's agreement): the first one's kind and bytes. -1: each collective's own.
  int call_kind = -1;
  std::size_t call_bytes = 0;

  int size() const { return members.empty() ? comm->size() : static_cast<int>(members.size()); }
  // The rank in comm of team member `index`.
  int comm_rank(int index) const { return members.empty() ? index : members[index]; }
  // This process's index in the team, or -1 when it is not a member.
  int me() const;
};

enum class ReduceOp : std::uint8_t { kBand, kBor, kMax, kMin, kSum };

// Which collective a BasicCollective is, for the guard's notices (coll/select_guard.h).
enum class BasicKind : std::uint8_t { kBarrier, kBcast, kAllgather, kAllreduce };
// "barrier", "bcast", "allgather", "allreduce"; "?" for a value out of range.
std::string_view basic_kind_name(int kind);

class BasicCollective {
 public:
  using DoneFn = void (*)(void* context);
  virtual ~BasicCollective();
  BasicCollective(const BasicCollective&) = delete;
  BasicCollective& operator=(const BasicCollective&) = delete;

  bool done() const { return done_; }
  // The first failure of any of its messages, once done.
  const Status& status() const { return status_; }
  // `fn(context)` runs once when the collective is done, from progress; not when it is already
  // done on return from the function that started it (check done() then).
  void on_done(DoneFn fn, void* context) {
    done_fn_ = fn;
    done_context_ = context;
  }
  // Posts the first step; later ones follow from completions. The factories below call it,
  // with what the collective is and its bytes per member (the same on every member).
  void start(BasicKind kind, std::size_t bytes);
  // Ends the collective now with `why` (coll/select_guard.h: a member runs another call at its
  // tag, so what it waits for may never come): its receives are cancelled, its sends are left
  // to the pml, no request calls back into it any more, and the done callback runs.
  void abort(Status why);

 protected:
  BasicCollective(pml::Pml& pml, Team team);
  // Posts the messages of step `step` (with send/recv). Returns false when there is no such
  // step: the collective is done. A step may post nothing.
  virtual bool post_step(int step) = 0;
  // Runs when every message of step `step` has completed, before the next step is posted.
  virtual void end_step(int /*step*/) {}
  void send(int member, const void* buf, std::size_t bytes);
  void recv(int member, void* buf, std::size_t bytes);

  const Team& team() const { return team_; }
  int me() const { return me_; }
  int size() const { return size_; }

 private:
  static void on_request(core::Request* r);
  void advance();
  core::Request* new_request();

  pml::Pml& pml_;
  Team team_;
  int me_;
  int size_;
  int step_ = -1;
  int pending_ = 0;
  bool advancing_ = false;
  bool done_ = false;
  bool started_ = false;
  bool starting_ = false;
  bool watched_ = false;  // by the guard (select_guard.h: watch_creation)
  Status status_;
  DoneFn done_fn_ = nullptr;
  void* done_context_ = nullptr;
};

// Every member has entered before any leaves. Dissemination: ceil(log2 p) rounds of one
// zero-byte send and receive.
std::unique_ptr<BasicCollective> barrier(pml::Pml& pml, Team team);
// `bytes` at `buf` of team member `root` end up at `buf` of every member. Binomial tree.
std::unique_ptr<BasicCollective> bcast(pml::Pml& pml, Team team, void* buf, std::size_t bytes,
                                       int root);
// Each member's `bytes` at `mine` end up at all + index * bytes on every member (all holds
// size * bytes). Bruck's algorithm: ceil(log2 p) rounds.
std::unique_ptr<BasicCollective> allgather(pml::Pml& pml, Team team, const void* mine,
                                           std::size_t bytes, void* all);
// data[i] becomes op over the members' data[i], on every member. Recursive doubling, with the
// ranks beyond the largest power of two folded in first and served last.
std::unique_ptr<BasicCollective> allreduce(pml::Pml& pml, Team team, std::span<std::int64_t> data,
                                           ReduceOp op);

// Applies `op` elementwise: inout[i] = op(inout[i], in[i]).
void reduce(ReduceOp op, std::span<const std::int64_t> in, std::span<std::int64_t> inout);

// The schedules of the collectives above: who talks to whom at each step, as pure functions
// of (member, team size, step), so that tests can check them for every size without a pml.
// Members are team indexes; -1 means nobody.
namespace plan {

// Dissemination barrier, round k of ceil(log2 size): send to me + 2^k, hear from me - 2^k.
int barrier_rounds(int size);
int barrier_to(int me, int size, int round);
int barrier_from(int me, int size, int round);

// Binomial bcast: the parent a member receives from (-1 at the root), and the children it
// sends to, farthest first.
int bcast_parent(int me, int size, int root);
std::vector<int> bcast_children(int me, int size, int root);

// Bruck allgather, round k: `count` blocks from the start of the member's block array go to
// `to`, and `count` blocks from `from` land at block `offset` of it. The array holds member
// (me + i) % size's block at i; the rounds end when offset reaches size.
struct BruckRound {
  int to;
  int from;
  int count;
  int offset;
};
int allgather_rounds(int size);
BruckRound allgather_round(int me, int size, int round);

// Recursive-doubling allreduce, step by step: step 0 folds the members beyond the largest
// power of two in, the middle steps exchange with a partner and combine, the last step hands
// the result to the folded members. `combine` is false where what arrives replaces the data.
struct Exchange {
  int send_to = -1;
  int recv_from = -1;
  bool combine = false;
};
int allreduce_steps(int size);
Exchange allreduce_step(int me, int size, int step);

}  // namespace plan

}  // namespace gpurun::coll
