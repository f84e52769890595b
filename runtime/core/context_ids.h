// Context ids: the number that tells one communicator's messages from another's. Every member
// of a communicator uses the same id for it, and no two live communicators of a process share
// one. Ids stay small (the pml indexes its matching queues by id); 0 is MPI_COMM_WORLD's and 1
// MPI_COMM_SELF's.
//
// How the members agree (the field's way, as in MPICH and Open MPI): each process keeps a mask
// of its free ids; the members AND their masks together over the parent communicator and take
// the lowest bit of the result. This class is one process's side of that: the free mask and the
// bookkeeping that keeps concurrent agreements (MPI_Comm_idup in flight while other
// communicators are created) from taking the same id:
// - Only one agreement at a time may offer the free mask (it "holds" it); the others offer
//   zeros, which makes their round find nothing and try again. The holder keeps the mask until
//   its round ends, so whatever bit the AND gives it is free on every member.
// - Which agreement gets the mask follows a key that every member computes the same way (the
//   parent's id, then the creation's sequence on the parent), lowest first, so that all the
//   members of the most urgent agreement end up offering it their masks in the same round: no
//   livelock. An agreement enters the competition only once every member has started it (a
//   first round that offers nothing), so the holder never waits for a process that has not
//   even reached the call.
// - A one-process communicator needs no round: it takes the lowest free id when no agreement
//   holds the mask.
// - A released id rests before it is free again (the last kResting released, while at least half
//   the ids are free): a message an erroneous program sent on a freed communicator that arrives
//   late then finds no new communicator with its id (the pml drops it) instead of matching one.
//
// Not thread-safe: the API layer serialises callers.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <span>
#include <utility>
#include <vector>

namespace gpurun::core {

class ContextIds {
 public:
  static constexpr int kMaxIds = 2048;
  static constexpr int kWords = kMaxIds / 64;
  // Bit i of word i / 64 set: id i is free. Words are int64 so that the collective layer's
  // integer allreduce (bitwise and) carries them.
  using Mask = std::array<std::int64_t, kWords>;
  using Ticket = std::uint64_t;  // one agreement, on this process
  // The id of the communicator over two groups that are connecting (api/connect.h), which
  // have no common communicator to agree over: never handed out.
  static constexpr int kBridgeId = kMaxIds - 1;

  ContextIds();  // every id free but 0 and 1 (MPI_COMM_WORLD and MPI_COMM_SELF) and kBridgeId

  // An agreement whose every member has started it joins the competition for the mask.
  Ticket enter(std::uint64_t key);
  // The agreement ended (id taken or failed): it gives the mask back if it held it.
  void leave(Ticket ticket);
  // What `ticket` offers in its next round: the free mask if it holds it or takes it now (no
  // holder, and it has the lowest key of those competing), else zeros. Returns true when it
  // offered the free mask.
  bool offer(Ticket ticket, Mask* out);
  // The end of a round, with `reduced` the AND of the members' offers: takes and returns the
  // lowest id in it, or -1 when it is empty (the agreement tries another round). On -1 the
  // holder gives the mask up if an agreement of lower key now competes.
  int conclude(Ticket ticket, const Mask& reduced);
  // A one-process communicator: the lowest free id, taken; -1 while an agreement holds the mask
  // (try again once it ends), -2 when no id is free.
  int take_alone();

  // Gives `id` back (MPI_Comm_free, or a process that took part but needs no communicator): it
  // rests first. Returns the ids that became free again.
  std::vector<int> release(int id);
  static constexpr std::size_t kResting = 16;
  bool is_free(int id) const;
  int free_count() const;
  // Whether some agreement holds the mask now.
  bool held() const { return holder_ != 0; }

  static int lowest(const Mask& mask);  // lowest set bit, or -1

 private:
  Mask free_{};
  std::deque<int> resting_;                               // released, not free yet; oldest first
  std::set<std::pair<std::uint64_t, Ticket>> competing_;  // (key, ticket), lowest key first
  Ticket holder_ = 0;
  Ticket next_ticket_ = 1;
};

}  // namespace gpurun::core
