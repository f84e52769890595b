// Leaving: what a rank that calls MPI_Finalize tells the others (packet kBye), and what they
// do with it.
//
// A rank finalizes once its own sends are done (the API layer waits until idle()), so its kBye
// travels behind everything it sent on each route, and transports keep the order of a route's
// packets. A receiver that takes kBye from rank p therefore holds every message p will ever
// send it: a receive that names p (in any communicator) and has not matched by then never
// will, and a send to p will never be received. Both fail with kPeerFailed (MPI_ERR_PROC_ABORTED)
// instead of waiting forever; this is what turns a call skipped on one rank (its arguments were
// wrong, under MPI_ERRORS_RETURN) into an error on the ranks that wait for it, once the rank
// that skipped it finalizes. Receives from MPI_ANY_SOURCE stay posted: another rank may match
// them. Sends to it that are already on their way fail too: a synchronous send waiting for the
// match, and a rendezvous whose offer the transport forgets (Endpoint::forget_offers: shm,
// ucx, ofi and cuda_ipc do). A request
// failed so was never matched: MPI_Cancel of it still succeeds, as it would have before the
// news (a receive posted just in case, cancelled at the end, is no error).
// Before it leaves, a rank cancels the receives its program freed (MPI_Request_free) that no
// message has matched, with a warning: it would otherwise wait for them in MPI_Finalize, for
// ever when every rank is there.
// Nor do the sends nobody waits for (freed, or buffered: MPI_Bsend) whose offer is out hold it
// (orphans_in_flight): their receiver may still take them after this rank left, which then
// waits for that, or leaves too without taking them, which fails them with a warning. Its own
// sends to itself that it never received fail as it leaves.
#include <algorithm>
#include <string>
#include <vector>

#include "pml/packets.h"
#include "pml/pml.h"
#include "runtime/base/clock.h"
#include "runtime/base/log.h"

namespace gpurun::pml {
namespace {

// How long leave() keeps offering kBye to a route with no room (its reader stopped reading:
// it has left or died): after that the rank leaves without telling it.
constexpr std::int64_t kByePatienceNs = 1'000'000'000;

}  // namespace

void Pml::leave() {
  const transport::PacketHeader header{kBye, 0, 0, 0, 0, job_rank_};
  for (int rank = 0; rank < static_cast<int>(routes_.size()); ++rank) {
    transport::Endpoint* ep = routes_[rank].endpoint;
    if (rank == job_rank_ || ep == nullptr) continue;
    std::int64_t deadline = clock::now_ns() + kByePatienceNs;
    Status st = ep->send(header, nullptr, 0);
    while (st.code() == ErrorCode::kNoResource && clock::now_ns() < deadline) {
      progress();
      st = ep->send(header, nullptr, 0);
    }
    if (!st.ok())
      GPURUN_LOG(debug, pml, "finalize: rank %d was not told that this rank leaves: %s", rank,
                 st.to_string().c_str());
  }
  // Nor does this rank take any more of its own messages: a send to itself that no receive
  // took fails, as one to a rank that left.
  fail_sends_to(job_rank_);
}

// A peer whose connection failed (a process of another job that died: gpurun ends the job when
// one of its own does) is gone as if it had left: what waits for it fails instead of waiting.
void Pml::on_lost_thunk(void* self, int peer, const Status& why) {
  GPURUN_LOG(warn, pml, "rank %d is lost (%s): operations with it fail", peer,
             std::string(why.message()).c_str());
  static_cast<Pml*>(self)->mark_lost(peer, "its connection failed: " + std::string(why.message()));
}

void Pml::on_bye(int peer, std::uint8_t how) {
  if (peer < 0 || peer >= static_cast<int>(gone_.size()) || gone_[peer] != 0) return;
  gone_[peer] = how;
  ++gone_count_;
  GPURUN_LOG(debug, pml, "rank %d %s", peer, how == kLost ? "is lost" : "finalized");
  for (auto& q : contexts_) {
    if (!q) continue;
    q->take_posted_if(
        [&](const core::Request* r) {
          return r->peer != kAnySource && r->comm->group().job_rank(r->peer) == peer;
        },
        [&](core::Request* r) { fail_if_gone(r); });
  }
  fail_sends_to(peer);
}

void Pml::fail_sends_to(int peer) {
  Route& route = routes_[peer];
  bool host_forgotten = route.endpoint != nullptr && route.endpoint->forget_offers();
  bool device_forgotten =
      route.device_endpoint != nullptr && route.device_endpoint->forget_offers();
  // An offer is out once a rendezvous send passed kNew; a synchronous eager send has none.
  auto offer_forgotten = [&](const core::Request* r) {
    if (r->stage == kNew || r->size <= route.eager_limit) return true;
    return r->memory != accel::MemoryKind::kHost && route.device_endpoint != nullptr
               ? device_forgotten
               : host_forgotten;
  };
  std::vector<core::Request*> failing;
  requests_.for_each([&](core::Request* r) {
    if (r->kind == core::RequestKind::kSend && !r->complete() && r->comm != nullptr &&
        r->comm->group().job_rank(r->peer) == peer && offer_forgotten(r))
      failing.push_back(r);
  });
  for (core::Request* r : failing) {
    std::erase(route.pending, r);
    r->status.error = ErrorCode::kPeerFailed;
    bool freed = r->orphan && r->on_complete == nullptr &&
                 r->channel == static_cast<std::uint8_t>(Channel::kUser);
    if (freed)  // nobody else learns of it: a buffered send says so itself (api/bsend.cc)
      GPURUN_LOG(warn, pml,
                 "a send freed by MPI_Request_free (%zu bytes to rank %d, tag %d) was never "
                 "received: that rank finalized (or was lost) without a matching receive",
                 static_cast<std::size_t>(r->size), r->peer, r->tag);
    complete(r);
  }
}

bool Pml::fail_if_gone(core::Request* r) {
  if (!left(*r->comm, r->peer)) return false;
  if (r->kind == core::RequestKind::kRecv) r->status.source = r->peer;
  r->status.error = ErrorCode::kPeerFailed;
  complete(r);
  return true;
}

bool Pml::all_others_left(const core::Communicator& comm) const {
  if (gone_count_ == 0 || (comm.size() < 2 && !comm.inter())) return false;
  // An intercommunicator's group is the remote one: all of it are others.
  for (int r = 0; r < comm.size(); ++r)
    if ((comm.inter() || r != comm.rank()) && !left(comm.group().job_rank(r))) return false;
  return true;
}

bool Pml::fail_unmatchable(core::Request* r) {
  if (!unmatchable(*r) || !queues(context_of(*r->comm, static_cast<Channel>(r->channel))).unpost(r))
    return false;
  r->status.error = ErrorCode::kPeerFailed;
  complete(r);
  return true;
}

// The orphans' communicators may be gone (freed by the program): both walk the matching queues
// for the posted ones instead of looking a request's queue up through its communicator.
bool Pml::orphans_in_flight(bool offers_too) {
  std::vector<const core::Request*> posted;
  for (auto& q : contexts_)
    if (q) q->for_each_posted([&](const core::Request* r) { posted.push_back(r); });
  bool any = false;
  requests_.for_each([&](core::Request* r) {
    if (any || !r->orphan || r->complete()) return;
    if (r->kind == core::RequestKind::kSend)
      any = offers_too || r->stage != kInFlight;
    else
      any = r->kind != core::RequestKind::kRecv ||
            std::find(posted.begin(), posted.end(), r) == posted.end();
  });
  return any;
}

int Pml::cancel_unmatched_orphans() {
  int cancelled = 0;
  for (auto& q : contexts_) {
    if (!q) continue;
    q->take_posted_if([](const core::Request* r) { return r->orphan; },
                      [&](core::Request* r) {
                        ++cancelled;
                        warn_cancelled(*r);
                        r->status.cancelled = true;
                        complete(r);
                      });
  }
  return cancelled;
}

void Pml::warn_cancelled(const core::Request& r) {
  std::string source = r.peer == kAnySource ? "MPI_ANY_SOURCE" : std::to_string(r.peer);
  if (r.channel == static_cast<std::uint8_t>(Channel::kUser)) {
    GPURUN_LOG(warn, pml,
               "MPI_Finalize: a receive freed by MPI_Request_free (source %s, tag %d) matched no "
               "message before MPI_Finalize; it is cancelled",
               source.c_str(), r.tag);
  } else {
    GPURUN_LOG(warn, pml,
               "MPI_Finalize: a collective had not completed on this rank (a nonblocking one "
               "never waited for, or one that failed?): its receive from rank %s matched no "
               "message; it is cancelled",
               source.c_str());
  }
}

bool Pml::cancel_failed_by_leaving(core::Request* r) {
  if (r->status.error != ErrorCode::kPeerFailed || !left(*r->comm, r->peer)) return false;
  r->status.error = ErrorCode::kOk;
  r->status.cancelled = true;
  return true;
}

}  // namespace gpurun::pml
