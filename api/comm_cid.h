// Agreeing on the context id of a new communicator among its creators (the scheme is described
// in runtime/core/context_ids.h). An agreement runs as a state machine over coll/basic
// allreduces, driven by progress: a process may start one (MPI_Comm_idup), go on
// communicating, and wait for it later.
//
// Rounds, all allreduces (bitwise and) over the team, of the free mask and one flag:
// - round 0 offers nothing: once it completes, every member has started the agreement, and it
//   competes for the right to offer this process's free mask;
// - each later round offers the mask (or zeros, while another agreement holds it) and a flag
//   "I offered": a non-empty result is the id; an empty one with every flag set means no id is
//   free on every member (too many live communicators), else another round.
// A team of one process needs no round.
// Every round also carries one more word: this process's "asserts device memory only" flag
// (api/memory_kinds.h), whose and over the team says whether the new communicator is
// device-only.
//
// Not thread-safe: the API layer serialises callers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "coll/basic.h"
#include "runtime/base/status.h"
#include "runtime/core/context_ids.h"

namespace gpurun::api {

class CidAgreement {
 public:
  using DoneFn = void (*)(void* context);

  // Starts agreeing among `team`; `key` orders concurrent agreements the same way on every
  // member (see ContextIds). May be done on return.
  // `device_only`: whether this process asserts device memory only on the new communicator.
  static std::unique_ptr<CidAgreement> start(coll::Team team, std::uint64_t key,
                                             bool device_only = false);
  ~CidAgreement();
  CidAgreement(const CidAgreement&) = delete;
  CidAgreement& operator=(const CidAgreement&) = delete;

  bool done() const { return done_; }
  // Once done: the id this process now owns (give it back with release_context_id when no
  // communicator uses it), or the failure.
  int id() const { return id_; }
  const Status& status() const { return status_; }
  // Once done: whether every member of the team asserted device memory only.
  bool device_only() const { return device_only_; }
  // `fn(context)` runs from progress when the agreement ends later than its start.
  void on_done(DoneFn fn, void* context) {
    done_fn_ = fn;
    done_context_ = context;
  }

 private:
  static constexpr int kWords = core::ContextIds::kWords;
  CidAgreement(coll::Team team, std::uint64_t key, bool device_only)
      : team_(std::move(team)), key_(key), device_only_(device_only) {}
  static void on_round(void* self);
  friend void kick_parked();
  void run();
  bool take_alone();
  void conclude_round();
  void start_round();
  void finish(int id, Status status);

  coll::Team team_;
  std::uint64_t key_;
  core::ContextIds::Ticket ticket_ = 0;
  int round_ = 0;
  // The mask, the "offered" flag, then the "device memory only" flag.
  std::array<std::int64_t, kWords + 2> buffer_{};
  std::unique_ptr<coll::BasicCollective> coll_;    // the current round
  bool starting_ = false;
  bool running_ = false;
  bool parked_ = false;
  bool done_ = false;
  int id_ = -1;
  bool device_only_;  // this process's assertion, then (once a round is over) the team's
  Status status_;
  DoneFn done_fn_ = nullptr;
  void* done_context_ = nullptr;
};

// This process's context ids.
core::ContextIds& context_ids();
// Gives `id` back, and lets agreements that waited for the mask go on.
void release_context_id(int id);

}  // namespace gpurun::api
