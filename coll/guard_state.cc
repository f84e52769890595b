// The guard's per-communicator state (guard_state.h): notices sent, received and answered.
#include "coll/guard_state.h"

#include <cstdio>
#include <unordered_map>
#include <utility>

#include "coll/algorithm.h"
#include "coll/basic.h"
#include "coll/schedule.h"
#include "coll/select_guard.h"
#include "runtime/base/log.h"

namespace gpurun::coll::guard {
namespace {

// The tag of notices on the collective channel: collective calls take tags 0..INT_MAX, and the
// pml's wildcards are -1 and -2.
constexpr int kNoticeTag = kGuardNoticeTag;
constexpr std::size_t kKeptNotices = 128;  // per communicator, oldest dropped first

struct Guards {
  std::unordered_map<std::uint32_t, std::shared_ptr<CommGuard>> comms;  // guards share them
};

Guards& guards() {
  static auto* g = new Guards;
  return *g;
}

// The blocking call this process waits in (block()), if any.
struct Blocked {
  bool on = false;
  std::uint32_t context = 0;
  std::int32_t tag = -1;
  std::int32_t collective = -1;
};
Blocked blocked;
bool deadlocks_detected = true;

// Sends `n` to `member` (no record of it).
void post_notice(CommGuard& g, int member, const Notice& n) {
  // The pml may read the message until the send completes: the request owns a copy, which
  // its completion deletes; the request is an orphan that the pml then releases.
  auto owned = std::make_unique<Notice>(n);
  Notice* copy = owned.get();
  core::Request* r = g.pml->requests().allocate();
  r->kind = core::RequestKind::kSend;
  r->orphan = true;
  r->active = true;
  r->owner = owned.release();
  r->on_complete = [](core::Request* done) {
    std::unique_ptr<Notice>(static_cast<Notice*>(done->owner)).reset();
  };
  Status st = g.pml->isend(pml::SendArgs{.comm = g.comm,
                                         .buf = copy,
                                         .count = sizeof(Notice),
                                         .type = &byte_type(),
                                         .dest = member,
                                         .tag = kNoticeTag,
                                         .mode = pml::SendMode::kStandard,
                                         .channel = pml::Channel::kColl},
                           r);
  if (!st.ok()) {
    GPURUN_LOG(debug, coll, "notice to rank %d not sent: %s", member, st.to_string().c_str());
    std::unique_ptr<Notice>(copy).reset();
    g.pml->requests().release(r);
  }
}

// Sends this rank's notice `n` of a call to `member`, once per state of the call (a member
// that asks again about a call that has failed since learns that).
void send_notice(CommGuard& g, int member, const Notice& n) {
  for (const Told& t : g.told)
    if (t.tag == n.tag && t.member == member && t.state == n.state) return;
  if (g.told.size() >= kKeptNotices) g.told.erase(g.told.begin());
  g.told.push_back(Told{.tag = n.tag, .member = member, .state = n.state});
  post_notice(g, member, n);
}

// Answers `member`'s notice of call `tag`, which this rank has not started, with the call this
// process is blocked in. Its notice of `tag` still goes when it starts it.
void send_not_started(CommGuard& g, int member, int tag) {
  GPURUN_LOG(debug, coll,
             "rank %d asks about call %d of context %u: not started, waiting in %d of %u", member,
             tag, g.comm->context_id(), blocked.tag, blocked.context);
  post_notice(g, member,
              Notice{.tag = tag,
                     .state = kNotStarted,
                     .blocked_context = blocked.context,
                     .blocked_tag = blocked.tag,
                     .blocked_collective = blocked.collective});
}

const Notice* record_of(const CommGuard& g, int tag) {
  const Notice& n = g.history[static_cast<std::size_t>(tag) % kHistory];
  return n.state != 0 && n.tag == tag ? &n : nullptr;
}

// Answers the waiting notices of call `tag` that this rank can answer now.
void answer(CommGuard& g, int tag) {
  const Notice* mine = record_of(g, tag);
  if (mine == nullptr) return;
  for (const Received& r : g.received) {
    if (r.notice.tag != tag || r.notice.state != kWaiting) continue;
    send_notice(g, r.source, *mine);
  }
}

void on_notice(core::Request* r);

// Posts the receive for the next notice. A notice already here completes it at once (on_notice
// runs inside, and posts the one after).
Status post_control(CommGuard& g) {
  core::Request* r = g.pml->requests().allocate();
  r->kind = core::RequestKind::kRecv;
  r->active = true;
  r->on_complete = on_notice;
  r->owner = &g;
  g.control = r;
  Status st = g.pml->irecv(pml::RecvArgs{.comm = g.comm,
                                         .buf = g.inbox.get(),
                                         .count = sizeof(Notice),
                                         .type = &byte_type(),
                                         .source = pml::kAnySource,
                                         .tag = kNoticeTag,
                                         .channel = pml::Channel::kColl},
                           r);
  if (!st.ok()) {
    g.control = nullptr;
    g.pml->requests().release(r);
    return st;
  }
  return ok_status();
}

// A notice arrived (from the pml's progress, so that no poller runs in every wait loop): kept,
// answered if this rank can, and the next receive posted.
void on_notice(core::Request* r) {
  CommGuard& g = *static_cast<CommGuard*>(r->owner);
  r->orphan = true;  // the pml releases it once this returns
  if (g.control == r) g.control = nullptr;
  if (r->status.error == ErrorCode::kOk && r->status.bytes == sizeof(Notice)) {
    Received got{r->status.source, *g.inbox};
    std::erase_if(g.received, [&got](const Received& old) {  // the member has started it
      return old.source == got.source && old.notice.tag == got.notice.tag &&
             old.notice.state == kNotStarted;
    });
    if (g.received.size() >= kKeptNotices) g.received.erase(g.received.begin());
    g.received.push_back(got);
    if (got.notice.state == kWaiting) {
      if (record_of(g, got.notice.tag) != nullptr) {
        answer(g, got.notice.tag);
      } else {
        ++g.unanswered;
        if (blocked.on && got.notice.tag > g.latest)
          send_not_started(g, got.source, got.notice.tag);
      }
    }
  }
  if (Status st = post_control(g); !st.ok())
    GPURUN_LOG(warn, coll, "no receive for count notices: %s", st.to_string().c_str());
}

}  // namespace

std::shared_ptr<CommGuard> of(pml::Pml& pml, const core::Communicator& comm) {
  Guards& all = guards();
  auto [it, fresh] = all.comms.try_emplace(comm.context_id());
  if (!fresh) {  // null: another communicator's state (forget_guard was not called)
    return it->second->comm == &comm ? it->second : nullptr;
  }
  it->second = std::make_shared<CommGuard>();
  CommGuard& g = *it->second;
  g.pml = &pml;
  g.comm = &comm;
  if (Status st = post_control(g); !st.ok()) {
    all.comms.erase(it);
    return nullptr;
  }
  return it->second;
}

void answer_late(CommGuard& g, const Notice& mine) {
  answer(g, mine.tag);
  // Notices of this rank's later calls stay unanswered (a member may be calls ahead: the root
  // of a bcast waits for nobody); those of earlier ones are answered now, or never.
  g.unanswered = 0;
  for (const Received& r : g.received)
    if (r.notice.state == kWaiting && r.notice.tag > mine.tag) ++g.unanswered;
}

void tell_others(CommGuard& g, const Notice& mine) {
  for (int member = 0; member < g.comm->size(); ++member)
    if (member != g.comm->rank()) send_notice(g, member, mine);
}

void block(const CommGuard& g, const Notice& mine) {
  if (!deadlocks_detected) return;
  blocked = Blocked{
      .on = true, .context = g.comm->context_id(), .tag = mine.tag, .collective = mine.collective};
  for (auto& [context, other] : guards().comms)
    for (const Received& r : other->received)
      if (r.notice.state == kWaiting && r.notice.tag > other->latest)
        send_not_started(*other, r.source, r.notice.tag);
}

void unblock() { blocked.on = false; }

std::optional<Status> deadlock(const CommGuard& g, const Received& r, const Notice& mine) {
  const Notice& n = r.notice;
  if (!deadlocks_detected || n.state != kNotStarted) return std::nullopt;
  auto it = guards().comms.find(n.blocked_context);
  if (it == guards().comms.end()) return std::nullopt;
  const CommGuard& there = *it->second;
  // The member's communicator of that context id is this one only if the member belongs to it
  // (communicators of disjoint groups may share an id).
  if (!there.comm->group().contains(g.comm->group().job_rank(r.source))) return std::nullopt;
  if (there.latest >= n.blocked_tag) return std::nullopt;  // this rank has started that call
  Notice theirs{.tag = n.blocked_tag, .collective = n.blocked_collective};
  char handle[16];
  std::snprintf(handle, sizeof handle, "0x%x", static_cast<unsigned>(there.comm->handle()));
  std::string where =
      &there == &g ? "on this communicator" : "on communicator " + std::string(handle);
  return Status(ErrorCode::kInvalidArgument,
                "rank " + std::to_string(r.source) + " has not started this call (" +
                    call_name(mine) + ", tag " + std::to_string(mine.tag) + ") and waits in its " +
                    call_name(theirs) + " " + where + " (tag " + std::to_string(n.blocked_tag) +
                    "), which this rank has not reached: the two ranks call the collectives of "
                    "communicators they share in different orders and would wait for each other "
                    "for ever (every rank must call them in the same order)");
}

Status member_failed(const Received& r, const Notice& mine) {
  auto code = static_cast<ErrorCode>(r.notice.error);
  if (r.notice.error <= 0 || r.notice.error > static_cast<int>(ErrorCode::kConversion))
    code = ErrorCode::kInternal;
  return Status(code, "rank " + std::to_string(r.source) + " ended this call (" + call_name(mine) +
                          ", tag " + std::to_string(mine.tag) + ") with an error (" +
                          std::string(error_code_name(code)) +
                          "), and this rank's cannot complete without it");
}

std::string call_name(const Notice& n) {
  if (n.collective == kCreation) return "communicator creation";
  if (n.collective < 0 || n.collective >= static_cast<int>(Collective::kCount)) return "?";
  return std::string(collective_name(static_cast<Collective>(n.collective)));
}

std::string algorithm_name(const Notice& n) {
  if (n.collective < 0 || n.collective >= static_cast<int>(Collective::kCount)) return "?";
  std::span<const Algorithm* const> all = Registry::of(static_cast<Collective>(n.collective));
  if (n.algorithm < 0 || n.algorithm >= static_cast<int>(all.size())) return "?";
  return std::string(all[n.algorithm]->name);
}

bool is_shm(const Notice& n) {
  std::string name = algorithm_name(n);
  return name == "shm" || name == "cma";
}

const char* memory_name(std::int32_t kind) {
  switch (static_cast<accel::MemoryKind>(kind)) {
    case accel::MemoryKind::kHost:
      return "host memory";
    case accel::MemoryKind::kCudaDevice:
      return "device memory";
    default:
      return "managed memory";
  }
}

Status other_call(const Received& r, const Notice& mine) {
  return Status(ErrorCode::kInvalidArgument,
                "rank " + std::to_string(r.source) + " runs this call (tag " +
                    std::to_string(mine.tag) + ") as " + call_name(r.notice) + ", this rank as " +
                    call_name(mine) +
                    ": every rank must call the collectives of a communicator (communicator "
                    "creation included) in the same order");
}

}  // namespace gpurun::coll::guard

namespace gpurun::coll {

void detect_deadlocks(bool on) { guard::deadlocks_detected = on; }

void watch_comm(pml::Pml& pml, const core::Communicator& comm) {
  if (comm.size() > 1) (void)guard::of(pml, comm);
}

void forget_guard(std::uint32_t context_id) {
  auto& comms = guard::guards().comms;
  auto it = comms.find(context_id);
  if (it == comms.end()) return;
  guard::CommGuard& g = *it->second;
  if (core::Request* control = std::exchange(g.control, nullptr); control != nullptr) {
    control->on_complete = nullptr;
    control->owner = nullptr;
    if (!control->complete()) g.pml->cancel(control);
    if (control->complete()) {
      g.pml->requests().release(control);
    } else {
      // Still posted (the pml could not unpost it): it may yet write into its buffer, which
      // is left behind, and the pml releases the request when it completes.
      control->orphan = true;
      (void)g.inbox.release();
      GPURUN_LOG(debug, coll, "count-notice receive of context %u could not be cancelled",
                 context_id);
    }
  }
  comms.erase(it);
}

}  // namespace gpurun::coll
