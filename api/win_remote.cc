// One-sided communication across hosts: the member's service and the origin's requests
// (api/win_remote.h).
//
// Wire: a request is a Header and its payload, sent to the target with kRequestTag on the
// window's communicator (private to the window, so no program message can match); an answer
// goes back with kAnswerTag. A target answers one origin's requests in their order, and the pml
// keeps one sender's messages of one tag in order, so the origin's receives for the answers,
// posted before the requests in the same order, each get their own. A block of the target
// datatype travels in pieces of at most kPiece bytes. A write or accumulate is answered once,
// empty, when its last piece is applied (kAnswered); reads, fetches and locks by their data.
//
// Locks on another member are quiet: MPI_Win_lock sends its kLock and returns, MPI_Win_unlock
// sends its kUnlock and returns, and the target holds an origin's later requests back while
// that origin's lock waits (RmaService::held_), so the first operation's answer also says that
// the lock is granted. A lock/get/unlock epoch takes one round trip instead of three. A lock on
// the caller itself is answered, so that its loads and stores in its own part are covered when
// MPI_Win_lock returns.
#include "api/win_remote.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "api/datatypes.h"
#include "api/ops.h"
#include "api/progress_helper.h"
#include "api/requests.h"
#include "runtime/core/datatype_layout.h"

namespace gpurun::api {

enum class RmaKind : std::uint8_t { kWrite, kRead, kAcc, kFetchAcc, kCas, kLock, kUnlock };

struct RmaHeader {
  RmaKind kind;
  std::uint8_t flags;     // kLock: kExclusive, kQuiet; kAcc, kFetchAcc: kSpaced
  core::BasicType basic;  // kAcc, kFetchAcc: the element type
  std::int32_t op;        // kAcc, kFetchAcc: a predefined MPI_Op
  std::uint64_t addr;     // in the target's memory
  std::uint64_t len;      // bytes at addr (kCas: of one element)
};

// Beside the tags of post/start/complete/wait (api/win_sync.cc: 1 and 2).
constexpr int kRequestTag = 101;
constexpr int kAnswerTag = 102;
constexpr std::size_t kPiece = 64 << 10;
// The data of a request that carries some (a write, an accumulate), so that header and data fit
// one packet of kPiece bytes: UCX's packets end at 64 KiB, and one byte more costs a rendezvous
// (osu_put_latency 1 MiB between two test hosts over ucx: 637 us in pieces of 64 KiB and a
// header, against 288 us for osu_get_latency, whose answers carry no header).
constexpr std::size_t kCarried = kPiece - sizeof(RmaHeader);
constexpr std::uint8_t kExclusive = 1;
constexpr std::uint8_t kQuiet = 2;   // no answer: the origin does not wait
constexpr std::uint8_t kSpaced = 4;  // kAcc, kFetchAcc: elements `extent` bytes apart
constexpr std::uint8_t kAnswered = 8;  // kWrite, kAcc: answer (empty) once applied

// The target's side of one window.
class RmaService {
 public:
  explicit RmaService(const core::Communicator* comm) : comm_(comm) {
    buffer_.resize(sizeof(RmaHeader) + 2 * kPiece);
  }
  Status post();
  void help();
  void stop();

 private:
  struct Arrival {
    int source;
    std::size_t bytes;
  };
  struct Waiter {
    int origin;
    bool exclusive;
    bool quiet;
  };
  static void arrived(core::Request* r);
  void handle(int source, const std::byte* request, std::size_t bytes);
  void answer(int origin, const void* data, std::size_t n);
  void accumulate(int source, const RmaHeader& h, const std::byte* payload, std::byte* at);
  void lock(const Waiter& w);
  void grant(const Waiter& w);
  void unlock();
  void release_held(int origin);

  const core::Communicator* comm_;
  std::vector<std::byte> buffer_;  // the posted receive's
  core::Request* posted_ = nullptr;
  bool helped_ = false;           // the progress helper answers while the member computes
  std::deque<Arrival> arrivals_;  // received, not yet handled (at most one)
  bool handling_ = false;
  int holders_ = 0;             // of this member's lock: -1 exclusive, n shared
  std::deque<Waiter> waiting_;  // lock requests not granted yet, in order
  // Per origin whose lock waits: its requests that came after the lock, in order.
  std::map<int, std::deque<std::vector<std::byte>>> held_;
};

namespace {

const core::Datatype& bytes_type() { return *find_datatype(MPI_BYTE); }

void free_buffer(core::Request* r) { delete static_cast<std::vector<std::byte>*>(r->owner); }

// Sends `bytes` (taken) to `dest` with `tag`; the request goes by itself when done.
Status send_bytes(const core::Communicator* comm, int dest, int tag,
                  std::vector<std::byte>&& bytes) {
  auto* held = new std::vector<std::byte>(std::move(bytes));
  core::Request* r = the_pml().requests().allocate();
  r->owner = held;
  r->on_complete = free_buffer;
  r->orphan = true;
  pml::SendArgs a{comm,          held->data(), static_cast<std::int64_t>(held->size()),
                  &bytes_type(), dest,         tag};
  Status st = the_pml().isend(a, r);
  if (!st.ok()) {
    the_pml().requests().release(r);
    delete held;
  }
  return st;
}

const core::Communicator* comm_of(const Win& w) { return find_comm(w.comm)->comm.get(); }

}  // namespace

Status RmaService::post() {
  core::Request* r = the_pml().requests().allocate();
  r->owner = this;
  r->on_complete = arrived;
  r->orphan = true;
  posted_ = r;
  pml::RecvArgs a{comm_,         buffer_.data(),  static_cast<std::int64_t>(buffer_.size()),
                  &bytes_type(), pml::kAnySource, kRequestTag};
  Status st = the_pml().irecv(a, r);
  if (!st.ok()) {
    posted_ = nullptr;
    the_pml().requests().release(r);
  }
  return st;
}

void RmaService::help() {
  if (!helper::available()) return;
  helper::helped_begin();
  helped_ = true;
}

void RmaService::stop() {
  if (posted_ != nullptr) (void)the_pml().cancel(posted_);
  if (helped_) helper::helped_end();
  helped_ = false;
}

// Handles each arrival and posts the next receive; one that completes at once is handled by
// the loop, not by recursion.
void RmaService::arrived(core::Request* r) {
  auto* s = static_cast<RmaService*>(r->owner);
  s->posted_ = nullptr;
  if (r->status.cancelled || r->status.error != ErrorCode::kOk) return;
  s->arrivals_.push_back({r->status.source, static_cast<std::size_t>(r->status.bytes)});
  if (s->handling_) return;
  s->handling_ = true;
  while (!s->arrivals_.empty()) {
    Arrival a = s->arrivals_.front();
    s->arrivals_.pop_front();
    s->handle(a.source, s->buffer_.data(), a.bytes);
    (void)s->post();
  }
  s->handling_ = false;
}

void RmaService::answer(int origin, const void* data, std::size_t n) {
  const auto* p = static_cast<const std::byte*>(data);
  (void)send_bytes(comm_, origin, kAnswerTag, std::vector<std::byte>(p, p + n));
}

void RmaService::handle(int source, const std::byte* request, std::size_t bytes) {
  if (auto held = held_.find(source); held != held_.end()) {
    held->second.emplace_back(request, request + bytes);
    return;
  }
  RmaHeader h;
  std::memcpy(&h, request, sizeof h);
  const std::byte* payload = request + sizeof h;
  auto* at = reinterpret_cast<std::byte*>(h.addr);
  switch (h.kind) {
    case RmaKind::kWrite:
      std::memcpy(at, payload, h.len);
      if ((h.flags & kAnswered) != 0) answer(source, nullptr, 0);
      return;
    case RmaKind::kRead:
      answer(source, at, h.len);
      return;
    case RmaKind::kAcc:
    case RmaKind::kFetchAcc:
      accumulate(source, h, payload, at);
      if (h.kind == RmaKind::kAcc && (h.flags & kAnswered) != 0) answer(source, nullptr, 0);
      return;
    case RmaKind::kCas:
      answer(source, at, h.len);
      if (std::memcmp(at, payload + h.len, h.len) == 0) std::memcpy(at, payload, h.len);
      return;
    case RmaKind::kLock:
      lock({source, (h.flags & kExclusive) != 0, (h.flags & kQuiet) != 0});
      return;
    case RmaKind::kUnlock:
      unlock();
      return;
  }
}

// `h.len` packed bytes of elements of h.basic at `at`: one after the other, or with kSpaced
// (a type whose size is not its extent: the pairs with padding) `extent` bytes apart, whose
// padding is never written.
void RmaService::accumulate(int source, const RmaHeader& h, const std::byte* payload,
                            std::byte* at) {
  const core::Op* op = find_op(h.op);
  const core::Datatype* type = basic_datatype(h.basic);
  if (type == nullptr || type->size() == 0) return;
  std::int64_t n = static_cast<std::int64_t>(h.len) / type->size();
  if ((h.flags & kSpaced) == 0) {
    if (h.kind == RmaKind::kFetchAcc) answer(source, at, h.len);
    if (op != nullptr && op->kind() != core::OpKind::kNoOp) (void)op->apply(payload, at, n, *type);
    return;
  }
  if (h.kind == RmaKind::kFetchAcc) {
    std::vector<std::byte> packed(h.len);
    type->pack(at, n, 0, packed.data(), h.len);
    answer(source, packed.data(), h.len);
  }
  if (op == nullptr || op->kind() == core::OpKind::kNoOp) return;
  // The operand in the elements' memory layout, aligned as the target's.
  std::vector<std::max_align_t> operand(
      (static_cast<std::size_t>(n * type->extent()) + sizeof(std::max_align_t) - 1) /
      sizeof(std::max_align_t));
  type->unpack(operand.data(), n, 0, payload, h.len);
  (void)op->apply(operand.data(), at, n, *type);
}

void RmaService::lock(const Waiter& w) {
  bool free = w.exclusive ? holders_ == 0 : holders_ >= 0 && waiting_.empty();
  if (!free) {
    waiting_.push_back(w);
    held_.try_emplace(w.origin);
    return;
  }
  grant(w);
}

void RmaService::grant(const Waiter& w) {
  holders_ = w.exclusive ? -1 : holders_ + 1;
  if (!w.quiet) answer(w.origin, nullptr, 0);
}

// Unlocks are never answered: the origin's operations completed at their calls, and its later
// requests reach this member after its unlock.
void RmaService::unlock() {
  holders_ = holders_ < 0 ? 0 : holders_ - 1;
  std::vector<int> granted;
  while (!waiting_.empty()) {
    Waiter next = waiting_.front();
    if (next.exclusive ? holders_ != 0 : holders_ < 0) break;
    waiting_.pop_front();
    grant(next);
    granted.push_back(next.origin);
    if (next.exclusive) break;
  }
  for (int o : granted) release_held(o);
}

// The requests an origin sent behind its lock, now granted, in their order; one of them may be
// a new lock that waits again, which holds the rest back anew.
void RmaService::release_held(int origin) {
  auto it = held_.find(origin);
  if (it == held_.end()) return;
  std::deque<std::vector<std::byte>> requests = std::move(it->second);
  held_.erase(it);
  while (!requests.empty()) {
    std::vector<std::byte> r = std::move(requests.front());
    requests.pop_front();
    handle(origin, r.data(), r.size());
    if (auto again = held_.find(origin); again != held_.end()) {
      for (auto& rest : requests) again->second.push_back(std::move(rest));
      return;
    }
  }
}

Status serve_window(Win& w) {
  auto service = std::make_shared<RmaService>(comm_of(w));
  GPURUN_TRY(service->post());
  service->help();
  w.service = std::move(service);
  return ok_status();
}

void stop_serving(Win& w) {
  if (w.service) w.service->stop();
  w.service.reset();
}

namespace {

// The origin's requests of one operation to one target, and the receives for their answers.
class Exchange {
 public:
  Exchange(const Win& w, int rank) : comm_(comm_of(w)), rank_(rank) {}
  ~Exchange() {
    for (core::Request* r : answers_) the_pml().requests().release(r);
  }
  // Sends a request; `answer` (may be null) receives `answer_bytes` of its answer.
  Status request(const RmaHeader& h, const void* payload, std::size_t n, void* answer,
                 std::size_t answer_bytes, bool answered) {
    if (answered) {
      core::Request* r = the_pml().requests().allocate();
      answers_.push_back(r);
      pml::RecvArgs a{comm_,         answer, static_cast<std::int64_t>(answer_bytes),
                      &bytes_type(), rank_,  kAnswerTag};
      GPURUN_TRY(the_pml().irecv(a, r));
    }
    std::vector<std::byte> bytes(sizeof h + n);
    std::memcpy(bytes.data(), &h, sizeof h);
    if (n > 0) std::memcpy(bytes.data() + sizeof h, payload, n);
    return send_bytes(comm_, rank_, kRequestTag, std::move(bytes));
  }
  // Waits for every answer.
  Status finish() {
    wait_until([this] {
      for (core::Request* r : answers_)
        if (!r->complete()) return false;
      return true;
    });
    for (core::Request* r : answers_)
      if (r->status.error != ErrorCode::kOk)
        return Status(r->status.error, "one-sided communication: an answer of the target failed");
    return ok_status();
  }

 private:
  const core::Communicator* comm_;
  int rank_;
  std::vector<core::Request*> answers_;
};

// Calls fn(addr, offset, n) for the pieces of the target's blocks, of at most `room` bytes
// (`unit`: a piece holds whole elements of that size).
template <class Fn>
void for_each_piece(std::uintptr_t remote, std::int64_t count, const core::Datatype& type,
                    std::size_t unit, std::size_t room, Fn&& fn) {
  std::int64_t bytes = count * type.size();
  if (bytes == 0) return;
  std::size_t piece = room / unit * unit;
  std::size_t done = 0;
  core::layout::for_each_block(*type.layout(), count, type.extent(), remote, 0, bytes,
                               [&](std::uintptr_t at, std::int64_t n) {
                                 for (std::size_t o = 0; o < static_cast<std::size_t>(n);) {
                                   std::size_t len =
                                       std::min(piece, static_cast<std::size_t>(n) - o);
                                   fn(at + o, done, len);
                                   o += len;
                                   done += len;
                                 }
                               });
}

// Calls fn(addr, offset, n) for runs of the target's elements of `basic`, a type whose size
// is not its extent (the pairs with padding): each run's elements lie `extent` bytes apart from
// `addr` on, hold the `n` packed bytes from `offset` and fit in a piece. An element starts where
// its packed bytes start; its fields follow the basic type's own layout from there (the blocks
// of the target's layout may end inside an element, or join two).
template <class Fn>
void for_each_run(std::uintptr_t remote, std::int64_t count, const core::Datatype& type,
                  const core::Datatype& basic, Fn&& fn) {
  const std::int64_t size = basic.size(), extent = basic.extent();
  const std::int64_t most = std::max<std::int64_t>(1, static_cast<std::int64_t>(kCarried) / size);
  std::int64_t pos = 0, next = 0;  // packed offsets: of the block, of the next element
  std::uintptr_t run_at = 0;
  std::int64_t run_from = 0, run = 0;  // elements in the run
  auto flush = [&] {
    if (run > 0)
      fn(run_at, static_cast<std::size_t>(run_from), static_cast<std::size_t>(run * size));
  };
  core::layout::for_each_block(
      *type.layout(), count, type.extent(), remote, 0, count * type.size(),
      [&](std::uintptr_t at, std::int64_t n) {
        for (; next < pos + n; next += size) {
          std::uintptr_t e = at + static_cast<std::uintptr_t>(next - pos);
          if (run > 0 && run < most && e == run_at + static_cast<std::uintptr_t>(run * extent)) {
            ++run;
            continue;
          }
          flush();
          run_at = e;
          run_from = next;
          run = 1;
        }
        pos += n;
      });
  flush();
}

}  // namespace

Status remote_put(const Win& w, int rank, const std::byte* packed, std::uintptr_t remote,
                  std::int64_t count, const core::Datatype& type) {
  Exchange x(w, rank);
  Status st;
  auto total = static_cast<std::size_t>(count * type.size());
  for_each_piece(
      remote, count, type, 1, kCarried, [&](std::uintptr_t at, std::size_t off, std::size_t n) {
        bool last = off + n == total;  // answered once applied, after every piece before it
        if (st.ok()) {
          st = x.request({RmaKind::kWrite, last ? kAnswered : std::uint8_t{0}, {}, 0, at, n},
                         packed + off, n, nullptr, 0, last);
        }
      });
  GPURUN_TRY(st);
  return x.finish();
}

Status remote_get(const Win& w, int rank, std::byte* packed, std::uintptr_t remote,
                  std::int64_t count, const core::Datatype& type) {
  Exchange x(w, rank);
  Status st;
  for_each_piece(
      remote, count, type, 1, kPiece, [&](std::uintptr_t at, std::size_t off, std::size_t n) {
        if (st.ok())
          st = x.request({RmaKind::kRead, 0, {}, 0, at, n}, nullptr, 0, packed + off, n, true);
      });
  GPURUN_TRY(st);
  return x.finish();
}

Status remote_accumulate(const Win& w, int rank, MPI_Op op, const std::byte* packed,
                         std::uintptr_t remote, std::int64_t count, const core::Datatype& type,
                         std::byte* fetched) {
  const core::Datatype* basic = basic_datatype(type.basic());
  if (basic == nullptr || basic->size() == 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "accumulates take a datatype made of one predefined type");
  }
  Exchange x(w, rank);
  Status st;
  RmaKind kind = fetched != nullptr ? RmaKind::kFetchAcc : RmaKind::kAcc;
  bool spaced = basic->size() != basic->extent();
  std::uint8_t flags = spaced ? kSpaced : 0;
  auto total = static_cast<std::size_t>(count * type.size());
  auto request = [&](std::uintptr_t at, std::size_t off, std::size_t n) {
    if (!st.ok()) return;
    // A fetch is answered by its data; the last piece of a plain accumulate once applied.
    bool ack = fetched == nullptr && off + n == total;
    RmaHeader h{kind,         static_cast<std::uint8_t>(flags | (ack ? kAnswered : 0)),
                type.basic(), static_cast<std::int32_t>(op),
                at,           n};
    // MPI_NO_OP reads only: its operand (the origin's buffer) may be anything.
    std::size_t sent = find_op(op)->kind() == core::OpKind::kNoOp ? 0 : n;
    st = x.request(h, packed + off, sent, fetched ? fetched + off : nullptr, fetched ? n : 0,
                   fetched != nullptr || ack);
  };
  if (spaced) {
    for_each_run(remote, count, type, *basic, request);
  } else {
    for_each_piece(remote, count, type, static_cast<std::size_t>(basic->size()), kCarried, request);
  }
  GPURUN_TRY(st);
  return x.finish();
}

Status remote_compare_and_swap(const Win& w, int rank, const void* origin, const void* compare,
                               void* result, std::uintptr_t remote, std::size_t n) {
  Exchange x(w, rank);
  std::vector<std::byte> payload(2 * n);
  std::memcpy(payload.data(), origin, n);
  std::memcpy(payload.data() + n, compare, n);
  GPURUN_TRY(x.request({RmaKind::kCas, 0, {}, 0, remote, n}, payload.data(), payload.size(), result,
                       n, true));
  return x.finish();
}

Status remote_lock(const Win& w, int rank, bool exclusive) {
  Exchange x(w, rank);
  bool self = rank == w.rank;
  auto flags = static_cast<std::uint8_t>((exclusive ? kExclusive : 0) | (self ? 0 : kQuiet));
  GPURUN_TRY(x.request({RmaKind::kLock, flags, {}, 0, 0, 0}, nullptr, 0, nullptr, 0, self));
  return x.finish();
}

Status remote_unlock(const Win& w, int rank) {
  Exchange x(w, rank);
  GPURUN_TRY(x.request({RmaKind::kUnlock, 0, {}, 0, 0, 0}, nullptr, 0, nullptr, 0, false));
  return x.finish();
}

}  // namespace gpurun::api
