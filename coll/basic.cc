// coll/basic: barrier, bcast, allgather and a small integer allreduce, as step machines over
// the pml (see basic.h).
//
// Costs, for p members, latency alpha, per-byte time beta, n bytes (per member for allgather):
// - barrier (dissemination): ceil(log2 p) alpha. Works for any p, no extra step for non-powers
//   of two; each round k sends to me + 2^k and hears from me - 2^k.
// - bcast (binomial tree): ceil(log2 p) (alpha + n beta). Small payloads only (communicator
//   creation), where a scatter-allgather would not pay.
// - allgather (Bruck): ceil(log2 p) alpha + (p - 1) n beta, any p; the blocks end up rotated
//   by the member's index and are put in place at the end (one local copy).
// - allreduce (recursive doubling): (ceil(log2 p) + 2) alpha + that many n beta + gamma terms;
//   with p not a power of two the first 2r members (r = p - 2^floor(log2 p)) pair up: the even
//   one hands its data to the odd one before, and gets the result after. Only for the small
//   integer arrays of communicator creation (context-id masks, colours): exact, commutative
//   operations, so the order of combination does not matter.
#include "coll/basic.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "coll/select_guard.h"

namespace gpurun::coll {
namespace {

const core::Datatype& byte_type() {
  static const auto* type =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kByte, 1, "MPI_BYTE"));
  return **type;
}

// Largest power of two not above n (n >= 1).
int floor_pow2(int n) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(n))); }

}  // namespace

int Team::me() const {
  int rank = comm->rank();
  if (members.empty()) return rank;
  auto it = std::find(members.begin(), members.end(), rank);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

void reduce(ReduceOp op, std::span<const std::int64_t> in, std::span<std::int64_t> inout) {
  for (std::size_t i = 0; i < inout.size(); ++i) {
    std::int64_t a = inout[i], b = in[i];
    switch (op) {
      case ReduceOp::kBand:
        inout[i] = a & b;
        break;
      case ReduceOp::kBor:
        inout[i] = a | b;
        break;
      case ReduceOp::kMax:
        inout[i] = std::max(a, b);
        break;
      case ReduceOp::kMin:
        inout[i] = std::min(a, b);
        break;
      case ReduceOp::kSum:
        inout[i] = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) +
                                             static_cast<std::uint64_t>(b));
        break;
    }
  }
}

// ---- the step machine -----------------------------------------------------------------

BasicCollective::BasicCollective(pml::Pml& pml, Team team)
    : pml_(pml), team_(std::move(team)), me_(team_.me()), size_(team_.size()) {}

BasicCollective::~BasicCollective() {
  if (watched_) unwatch_creation(*this);
}

void BasicCollective::start(BasicKind kind, std::size_t bytes) {
  started_ = true;
  starting_ = true;
  watched_ = watch_creation(*this, pml_, team_, kind, bytes);
  advance();
  starting_ = false;
}

void BasicCollective::abort(Status why) {
  if (done_) return;
  if (watched_) unwatch_creation(*this, why.code());
  watched_ = false;
  status_ = std::move(why);
  const void* self = this;
  pml_.give_up(std::span(&self, 1), /*detach=*/true);
  pending_ = 0;
  done_ = true;
  if (done_fn_ != nullptr && !starting_) done_fn_(done_context_);
}

core::Request* BasicCollective::new_request() {
  core::Request* r = pml_.requests().allocate();
  r->kind = core::RequestKind::kColl;
  r->on_complete = on_request;
  r->owner = this;
  r->orphan = true;  // the pml releases it once on_request has run
  r->active = true;
  ++pending_;
  return r;
}

void BasicCollective::send(int member, const void* buf, std::size_t bytes) {
  static const std::byte kNothing{};
  if (!status_.ok()) bytes = poison_bytes(bytes);
  pml::SendArgs args{.comm = team_.comm,
                     .buf = bytes != 0 ? buf : &kNothing,
                     .count = static_cast<std::int64_t>(bytes),
                     .type = &byte_type(),
                     .dest = team_.comm_rank(member),
                     .tag = team_.tag,
                     .mode = pml::SendMode::kStandard,
                     .channel = pml::Channel::kColl};
  core::Request* r = new_request();
  if (Status st = pml_.isend(args, r); !st.ok()) {
    if (status_.ok()) status_ = std::move(st);
    --pending_;
    pml_.requests().release(r);
  }
}

void BasicCollective::recv(int member, void* buf, std::size_t bytes) {
  static std::byte sink;
  pml::RecvArgs args{.comm = team_.comm,
                     .buf = bytes != 0 ? buf : &sink,
                     .count = static_cast<std::int64_t>(bytes),
                     .type = &byte_type(),
                     .source = team_.comm_rank(member),
                     .tag = team_.tag,
                     .channel = pml::Channel::kColl};
  core::Request* r = new_request();
  if (Status st = pml_.irecv(args, r); !st.ok()) {
    if (status_.ok()) status_ = std::move(st);
    --pending_;
    pml_.requests().release(r);
  }
}

void BasicCollective::on_request(core::Request* r) {
  auto* self = static_cast<BasicCollective*>(r->owner);
  if (r->status.error != ErrorCode::kOk && self->status_.ok()) {
    self->status_ =
        message_failed(self->pml_, *r->comm, r->peer, r->status.error,
                       "a message of a collective (peer rank " + std::to_string(r->peer) +
                           ", tag " + std::to_string(r->tag) + ")");
  } else if (r->kind == core::RequestKind::kRecv && self->status_.ok() &&
             static_cast<std::int64_t>(r->status.bytes) != r->count) {
    self->status_ =
        Status(ErrorCode::kInvalidArgument,
               "rank " + std::to_string(r->peer) + " sent " + std::to_string(r->status.bytes) +
                   " bytes of a collective where " + std::to_string(r->count) +
                   " were expected: its part of the call failed, or the ranks' "
                   "calls do not match");
  }
  --self->pending_;
  if (!self->advancing_ && self->started_) self->advance();
  // Nothing here touches `self` after advance(): its done callback may have retired it.
}

// Posts steps while the current one is complete. Completions that arrive while a step is being
// posted only count down; the loop sees them. After a failure the steps go on, with the poison
// for data (poison_bytes), so that no member waits for this one.
void BasicCollective::advance() {
  if (done_) return;
  advancing_ = true;
  while (pending_ == 0 && !done_) {
    if (step_ >= 0 && status_.ok()) end_step(step_);
    if (!post_step(++step_)) done_ = pending_ == 0;
  }
  advancing_ = false;
  if (done_ && watched_) {
    unwatch_creation(*this, status_.code());
    watched_ = false;
  }
  if (done_ && done_fn_ != nullptr && !starting_) done_fn_(done_context_);
}

// ---- the schedules ----------------------------------------------------------------------

namespace plan {

int barrier_rounds(int size) {
  return size <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(size - 1)));
}
int barrier_to(int me, int size, int round) { return (me + (1 << round)) % size; }
int barrier_from(int me, int size, int round) { return (me - (1 << round) % size + size) % size; }

// Positions relative to the root: v's parent clears v's lowest set bit; its children set each
// bit below it (the root's: every bit below size).
int bcast_parent(int me, int size, int root) {
  int v = (me - root + size) % size;
  if (v == 0) return -1;
  return ((v & (v - 1)) + root) % size;
}

std::vector<int> bcast_children(int me, int size, int root) {
  int v = (me - root + size) % size;
  int low = v == 0 ? static_cast<int>(std::bit_ceil(static_cast<unsigned>(size))) : v & -v;
  std::vector<int> children;
  for (int m = low / 2; m >= 1; m /= 2)
    if (v + m < size) children.push_back((v + m + root) % size);
  return children;
}

int allgather_rounds(int size) { return barrier_rounds(size); }

BruckRound allgather_round(int me, int size, int round) {
  int dist = 1 << round;
  return BruckRound{.to = (me - dist + size) % size,
                    .from = (me + dist) % size,
                    .count = std::min(dist, size - dist),
                    .offset = dist};
}

// Members below 2 * rem pair up (even, odd): the odd one takes part in the doubling as
// new rank me / 2; members from 2 * rem on as me - rem.
namespace {
struct Doubling {
  int pow2, rem, rounds;
};
Doubling doubling(int size) {
  int pow2 = floor_pow2(size);
  return Doubling{pow2, size - pow2, std::countr_zero(static_cast<unsigned>(pow2))};
}
}  // namespace

int allreduce_steps(int size) { return doubling(size).rounds + 2; }

Exchange allreduce_step(int me, int size, int step) {
  Doubling d = doubling(size);
  bool folded = me < 2 * d.rem;
  bool even = me % 2 == 0;
  int new_rank = folded ? (even ? -1 : me / 2) : me - d.rem;
  Exchange x;
  if (step == 0) {
    if (folded && even) x.send_to = me + 1;
    if (folded && !even) x = Exchange{-1, me - 1, true};
  } else if (step <= d.rounds) {
    if (new_rank < 0) return x;
    int partner = new_rank ^ (1 << (step - 1));
    int real = partner < d.rem ? partner * 2 + 1 : partner + d.rem;
    x = Exchange{real, real, true};
  } else if (step == d.rounds + 1) {
    if (folded && !even) x.send_to = me - 1;
    if (folded && even) x.recv_from = me + 1;
  }
  return x;
}

}  // namespace plan

// ---- the collectives ------------------------------------------------------------------

namespace {

class Barrier final : public BasicCollective {
 public:
  Barrier(pml::Pml& pml, Team team) : BasicCollective(pml, std::move(team)) {}

 private:
  bool post_step(int step) override {
    if (step >= plan::barrier_rounds(size())) return false;
    send(plan::barrier_to(me(), size(), step), nullptr, 0);
    recv(plan::barrier_from(me(), size(), step), nullptr, 0);
    return true;
  }
};

class Bcast final : public BasicCollective {
 public:
  Bcast(pml::Pml& pml, Team team, void* buf, std::size_t bytes, int root)
      : BasicCollective(pml, std::move(team)), buf_(buf), bytes_(bytes), root_(root) {}

 private:
  bool post_step(int step) override {
    if (step == 0) {
      int parent = plan::bcast_parent(me(), size(), root_);
      if (parent >= 0) recv(parent, buf_, bytes_);
      return true;
    }
    if (step > 1) return false;
    for (int child : plan::bcast_children(me(), size(), root_)) send(child, buf_, bytes_);
    return true;
  }

  void* buf_;
  std::size_t bytes_;
  int root_;
};

class Allgather final : public BasicCollective {
 public:
  Allgather(pml::Pml& pml, Team team, const void* mine, std::size_t bytes, void* all)
      : BasicCollective(pml, std::move(team)), bytes_(bytes), all_(static_cast<std::byte*>(all)) {
    blocks_.resize(static_cast<std::size_t>(size()) * bytes_);
    if (bytes_ != 0) std::memcpy(blocks_.data(), mine, bytes_);
  }

 private:
  bool post_step(int step) override {
    if (step >= plan::allgather_rounds(size())) {
      // blocks_[i] is member (me + i)'s block: put each in its place.
      for (int i = 0; i < size() && bytes_ != 0; ++i)
        std::memcpy(all_ + ((me() + i) % size()) * bytes_, blocks_.data() + i * bytes_, bytes_);
      return false;
    }
    plan::BruckRound r = plan::allgather_round(me(), size(), step);
    send(r.to, blocks_.data(), r.count * bytes_);
    recv(r.from, blocks_.data() + r.offset * bytes_, r.count * bytes_);
    return true;
  }

  std::size_t bytes_;
  std::byte* all_;
  std::vector<std::byte> blocks_;
};

class Allreduce final : public BasicCollective {
 public:
  Allreduce(pml::Pml& pml, Team team, std::span<std::int64_t> data, ReduceOp op)
      : BasicCollective(pml, std::move(team)), data_(data), tmp_(data.size()), op_(op) {}

 private:
  std::size_t bytes() const { return data_.size() * sizeof(std::int64_t); }

  bool post_step(int step) override {
    if (step >= plan::allreduce_steps(size())) return false;
    x_ = plan::allreduce_step(me(), size(), step);
    if (x_.send_to >= 0) send(x_.send_to, data_.data(), bytes());
    if (x_.recv_from >= 0) recv(x_.recv_from, x_.combine ? tmp_.data() : data_.data(), bytes());
    return true;
  }

  void end_step(int /*step*/) override {
    if (x_.recv_from >= 0 && x_.combine) reduce(op_, tmp_, data_);
  }

  std::span<std::int64_t> data_;
  std::vector<std::int64_t> tmp_;
  ReduceOp op_;
  plan::Exchange x_;
};

template <class T, class... Args>
std::unique_ptr<BasicCollective> started(BasicKind kind, std::size_t bytes, Args&&... args) {
  std::unique_ptr<BasicCollective> c = std::make_unique<T>(std::forward<Args>(args)...);
  c->start(kind, bytes);
  return c;
}

}  // namespace

std::string_view basic_kind_name(int kind) {
  static constexpr std::string_view kNames[] = {"barrier", "bcast", "allgather", "allreduce"};
  return kind >= 0 && kind < 4 ? kNames[kind] : "?";
}

std::unique_ptr<BasicCollective> barrier(pml::Pml& pml, Team team) {
  return started<Barrier>(BasicKind::kBarrier, 0, pml, std::move(team));
}

std::unique_ptr<BasicCollective> bcast(pml::Pml& pml, Team team, void* buf, std::size_t bytes,
                                       int root) {
  return started<Bcast>(BasicKind::kBcast, bytes, pml, std::move(team), buf, bytes, root);
}

std::unique_ptr<BasicCollective> allgather(pml::Pml& pml, Team team, const void* mine,
                                           std::size_t bytes, void* all) {
  return started<Allgather>(BasicKind::kAllgather, bytes, pml, std::move(team), mine, bytes, all);
}

std::unique_ptr<BasicCollective> allreduce(pml::Pml& pml, Team team, std::span<std::int64_t> data,
                                           ReduceOp op) {
  return started<Allreduce>(BasicKind::kAllreduce, data.size_bytes(), pml, std::move(team), data,
                            op);
}

Status message_failed(const pml::Pml& pml, const core::Communicator& comm, int peer, ErrorCode code,
                      const std::string& what) {
  if (code == ErrorCode::kPeerFailed && pml.left(comm, peer)) {
    std::string lost = pml.lost_message(comm, peer);
    if (!lost.empty()) return Status(code, lost);
    return Status(code, "rank " + std::to_string(peer) +
                            " called MPI_Finalize without running this call (a call on that rank "
                            "failed, or the ranks' calls do not match)");
  }
  return Status(code, what + " failed");
}

}  // namespace gpurun::coll
