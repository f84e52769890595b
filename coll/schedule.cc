// The schedule runner: rounds of messages and local steps (see schedule.h).
//
// Messages complete through the pml's on_complete hook, which only counts down; progress()
// does the rest, so nothing runs re-entrantly from inside the pml. Requests are orphans: the
// pml gives them back to its pool once the hook has run.
#include "coll/schedule.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "coll/basic.h"
#include "coll/device_steps.h"
#include "coll/scratch.h"
#include "coll/signature.h"
#include "coll/staging.h"
#include "pml/pml.h"

namespace gpurun::coll {
namespace {

enum class StepKind : std::uint8_t { kSend, kRecv, kReduce, kCopy };

struct Step {
  StepKind kind = StepKind::kSend;
  int peer = -1;
  Buf a;  // send: the data; recv: where it goes; reduce: in; copy: from
  Buf b;  // reduce: inout; copy: to
  const core::Op* op = nullptr;
  accel::MemoryKind memory = accel::MemoryKind::kHost;  // messages: where `a` is, for the pml
  bool read_soon = false;  // recv: a reduce step of its round reads what it receives
};

struct Round {
  std::uint32_t msg_begin = 0, msg_end = 0;
  std::uint32_t local_begin = 0, local_end = 0;
  bool local_waits_for_sends = false;  // a local step writes what a send of the round reads
};

struct Range {
  std::uintptr_t lo = 0, hi = 0;
  bool overlaps(const Range& o) const { return lo < o.hi && o.lo < hi; }
};

Range range_of(const Buf& b) {
  if (b.count == 0 || b.type->size() == 0) return Range{};
  Span s = span_of(b.count, *b.type);
  auto base = reinterpret_cast<std::uintptr_t>(b.base) + static_cast<std::uintptr_t>(s.lo);
  return Range{base, base + static_cast<std::uintptr_t>(s.size)};
}

Status count_mismatch(const char* what, std::int64_t have, std::int64_t want) {
  return Status(have > want ? ErrorCode::kTruncated : ErrorCode::kInvalidArgument,
                std::string(what) + " of " + std::to_string(have) + " bytes where " +
                    std::to_string(want) +
                    " were expected: the ranks' counts or datatypes do "
                    "not match");
}

// A message from `peer` of `have` bytes where `want` were expected: the counts differ, or the
// peer's part failed and it sent the poison (coll/basic.h).
Status message_mismatch(int peer, std::int64_t have, std::int64_t want) {
  Status st = count_mismatch(("a message from rank " + std::to_string(peer)).c_str(), have, want);
  return Status(st.code(), std::string(st.message()) + ", or that rank's part of the call failed");
}

// Moves min(from, to) bytes of packed data; types may differ (a packed stream is the
// meeting point of two layouts). On the device (`device` given) both types are contiguous.
Status copy_data(const Buf& from, const Buf& to, accel::Accelerator* device) {
  if (device != nullptr) {
    GPURUN_TRY(device_copy(*device, from, to));
    if (from.bytes() != to.bytes()) return count_mismatch("a copy", from.bytes(), to.bytes());
    return ok_status();
  }
  std::int64_t n = std::min(from.bytes(), to.bytes());
  bool from_flat = from.type->contiguous(), to_flat = to.type->contiguous();
  if (n > 0) {
    if (from_flat && to_flat) {
      if (from.first_byte() != to.first_byte())
        std::memmove(to.first_byte(), from.first_byte(), static_cast<std::size_t>(n));
    } else if (from_flat) {
      to.type->unpack(to.base, to.count, 0, from.first_byte(), static_cast<std::size_t>(n));
    } else if (to_flat) {
      from.type->pack(from.base, from.count, 0, to.first_byte(), static_cast<std::size_t>(n));
    } else {
      constexpr std::size_t kChunk = std::size_t{64} << 10;
      ScratchBlock tmp = ScratchPool::take(std::min<std::size_t>(kChunk, n));
      for (std::size_t off = 0; off < static_cast<std::size_t>(n); off += kChunk) {
        std::size_t len = std::min(kChunk, static_cast<std::size_t>(n) - off);
        from.type->pack(from.base, from.count, off, tmp.data(), len);
        to.type->unpack(to.base, to.count, off, tmp.data(), len);
      }
    }
  }
  if (from.bytes() != to.bytes()) return count_mismatch("a copy", from.bytes(), to.bytes());
  return ok_status();
}

using Signature = CallSignature;

class Schedule final : public Operation {
 public:
  Schedule(const Args& args, std::vector<Step> messages, std::vector<Step> locals,
           std::vector<Round> rounds)
      : pml_(args.pml),
        comm_(args.comm),
        tag_(args.tag),
        signature_(args),
        messages_(std::move(messages)),
        locals_(std::move(locals)),
        rounds_(std::move(rounds)) {}
  ~Schedule() override = default;

  void keep(std::vector<core::DatatypeRef> types, std::vector<ScratchBlock> scratch,
            accel::Accelerator* device, std::vector<DeviceScratch> device_scratch) {
    types_ = std::move(types);
    scratch_ = std::move(scratch);
    device_ = device;
    device_scratch_ = std::move(device_scratch);
  }

  Status start() override {
    if (!done_) return Status(ErrorCode::kInvalidArgument, "the collective is still active");
    done_ = false;
    round_ = 0;
    phase_ = Phase::kPost;
    status_ = ok_status();
    advance();
    return ok_status();
  }

  bool progress() override {
    if (!done_) advance();
    return done_;
  }

  Status status() const override { return status_; }
  bool ok() const override { return status_.ok(); }

  bool rearm(const Args& args) override { return signature_.matches(args) && repeat(args.tag); }
  bool repeat(int tag) override {
    if (!done_ || comm_ == nullptr) return false;
    tag_ = tag;
    return true;
  }

 private:
  enum class Phase : std::uint8_t { kPost, kLocal, kSends };

  void advance();
  void post(const Round& round);
  void post_message(const Step& step);
  void run_locals(const Round& round);
  void fail(Status st) {
    if (status_.ok()) status_ = std::move(st);
  }
  static void on_message(core::Request* r);

  pml::Pml* pml_;
  const core::Communicator* comm_;
  int tag_;
  Signature signature_;
  std::vector<Step> messages_;
  std::vector<Step> locals_;
  std::vector<Round> rounds_;
  std::vector<core::DatatypeRef> types_;
  std::vector<ScratchBlock> scratch_;
  accel::Accelerator* device_ = nullptr;  // local steps on the device (coll/device_steps.h)
  std::vector<DeviceScratch> device_scratch_;
  std::size_t round_ = 0;
  Phase phase_ = Phase::kPost;
  int recvs_pending_ = 0;
  int sends_pending_ = 0;
  bool done_ = true;
  Status status_;
};

void Schedule::advance() {
  while (round_ < rounds_.size()) {
    const Round& round = rounds_[round_];
    if (phase_ == Phase::kPost) {
      post(round);
      phase_ = Phase::kLocal;
    }
    if (phase_ == Phase::kLocal) {
      if (recvs_pending_ > 0 || (round.local_waits_for_sends && sends_pending_ > 0)) return;
      run_locals(round);
      phase_ = Phase::kSends;
    }
    if (sends_pending_ > 0) return;
    ++round_;
    phase_ = Phase::kPost;
  }
  done_ = true;
}

void Schedule::post(const Round& round) {
  // Receives first: a message that arrives meanwhile then finds its receive posted.
  for (std::uint32_t i = round.msg_begin; i < round.msg_end; ++i)
    if (messages_[i].kind == StepKind::kRecv) post_message(messages_[i]);
  for (std::uint32_t i = round.msg_begin; i < round.msg_end; ++i)
    if (messages_[i].kind == StepKind::kSend) post_message(messages_[i]);
}

void Schedule::post_message(const Step& step) {
  static std::byte nothing[16];
  const bool empty = step.a.bytes() == 0;
  void* base = empty ? nothing : step.a.base;
  const accel::MemoryKind memory = empty ? accel::MemoryKind::kHost : step.memory;
  core::Request* r = pml_->requests().allocate();
  r->on_complete = on_message;
  r->owner = this;
  r->orphan = true;
  r->active = true;
  Status st;
  if (step.kind == StepKind::kSend) {
    // After a failure the rounds go on, sending the poison (coll/basic.h) instead of data.
    bool poison = !status_.ok();
    ++sends_pending_;
    st = pml_->isend(pml::SendArgs{.comm = comm_,
                                   .buf = poison ? nothing : base,
                                   .count = poison ? static_cast<std::int64_t>(poison_bytes(
                                                         static_cast<std::size_t>(step.a.bytes())))
                                                   : step.a.count,
                                   .type = poison ? &byte_type() : step.a.type,
                                   .dest = step.peer,
                                   .tag = tag_,
                                   .mode = pml::SendMode::kStandard,
                                   .channel = pml::Channel::kColl,
                                   .memory = poison ? accel::MemoryKind::kHost : memory},
                     r);
    if (!st.ok()) --sends_pending_;
  } else {
    ++recvs_pending_;
    st = pml_->irecv(pml::RecvArgs{.comm = comm_,
                                   .buf = base,
                                   .count = step.a.count,
                                   .type = step.a.type,
                                   .source = step.peer,
                                   .tag = tag_,
                                   .channel = pml::Channel::kColl,
                                   .memory = memory,
                                   .read_soon = step.read_soon},
                     r);
    if (!st.ok()) --recvs_pending_;
  }
  if (!st.ok()) {
    fail(std::move(st));
    pml_->requests().release(r);
  }
}

void Schedule::on_message(core::Request* r) {
  auto* self = static_cast<Schedule*>(r->owner);
  bool recv = r->kind == core::RequestKind::kRecv;
  --(recv ? self->recvs_pending_ : self->sends_pending_);
  if (r->status.error != ErrorCode::kOk) {
    if (r->status.error == ErrorCode::kTruncated) {
      self->fail(message_mismatch(r->peer, static_cast<std::int64_t>(r->size),
                                  r->count * r->datatype->size()));
    } else {
      self->fail(message_failed(
          *self->pml_, *self->comm_, r->peer, r->status.error,
          std::string("a message ") + (recv ? "from" : "to") + " rank " + std::to_string(r->peer)));
    }
  } else if (recv && static_cast<std::int64_t>(r->status.bytes) != r->count * r->datatype->size()) {
    self->fail(message_mismatch(r->peer, static_cast<std::int64_t>(r->status.bytes),
                                r->count * r->datatype->size()));
  }
}

void Schedule::run_locals(const Round& round) {
  for (std::uint32_t i = round.local_begin; i < round.local_end && status_.ok(); ++i) {
    const Step& s = locals_[i];
    if (s.kind == StepKind::kCopy) {
      fail(copy_data(s.a, s.b, device_));
    } else if (device_ != nullptr) {
      fail(device_reduce(*device_, *s.op, s.a, s.b));
    } else {
      fail(s.op->apply(s.a.base, s.b.base, s.b.count, *s.b.type));
    }
  }
}

}  // namespace

const core::Datatype& byte_type() {
  static const auto* type =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kByte, 1, "MPI_BYTE"));
  return **type;
}

Span span_of(std::int64_t count, const core::Datatype& type) {
  if (count <= 0) return Span{};
  std::int64_t stretch = (count - 1) * type.extent();
  std::int64_t lo = type.true_lb() + std::min<std::int64_t>(0, stretch);
  std::int64_t hi = type.true_lb() + type.true_extent() + std::max<std::int64_t>(0, stretch);
  return Span{lo, hi - lo};
}

// ---- the builder ---------------------------------------------------------------------------

struct ScheduleBuilder::Impl {
  std::vector<Step> messages;
  std::vector<Step> locals;
  std::vector<Round> rounds{Round{}};
  std::vector<core::DatatypeRef> types;
  std::vector<ScratchBlock> scratch;
  accel::Accelerator* device = nullptr;  // device memory: local steps and scratch there
  int device_id = 0;
  std::vector<DeviceScratch> device_scratch;
  Status error;

  void hold(const core::Datatype* type) {
    if (type->predefined()) return;
    for (const auto& t : types)
      if (t.get() == type) return;
    types.emplace_back(type);
  }
  Round& current() { return rounds.back(); }
  // A message step of `data`, with the kind of its memory on the device path.
  void message(StepKind kind, int peer, const Buf& data) {
    hold(data.type);
    Step step{.kind = kind, .peer = peer, .a = data};
    if (device != nullptr && data.bytes() != 0) step.memory = device->query(data.first_byte()).kind;
    messages.push_back(step);
    current().msg_end = static_cast<std::uint32_t>(messages.size());
  }
};

ScheduleBuilder::ScheduleBuilder(const Args& args)
    : args_(args),
      rank_(args.comm->rank()),
      size_(args.comm->size()),
      impl_(std::make_unique<Impl>()) {
  if (accel::is_host(args.memory)) return;
  impl_->device = &accelerator_of(args);
  impl_->device_id = std::max(0, schedule_device(args));  // usable() found it where it runs
}

ScheduleBuilder::~ScheduleBuilder() = default;

void ScheduleBuilder::next_round() {
  Round& r = impl_->current();
  if (r.msg_begin == r.msg_end && r.local_begin == r.local_end) return;
  impl_->rounds.push_back(Round{.msg_begin = r.msg_end,
                                .msg_end = r.msg_end,
                                .local_begin = r.local_end,
                                .local_end = r.local_end});
}

void ScheduleBuilder::send(int peer, const Buf& data) {
  impl_->message(StepKind::kSend, peer, data);
}

void ScheduleBuilder::recv(int peer, const Buf& into) {
  impl_->message(StepKind::kRecv, peer, into);
}

void ScheduleBuilder::reduce(const Buf& in, const Buf& inout) { reduce(in, inout, *args_.op); }

void ScheduleBuilder::reduce(const Buf& in, const Buf& inout, const core::Op& op) {
  impl_->hold(in.type);
  impl_->hold(inout.type);
  if (in.bytes() != inout.bytes() && impl_->error.ok())
    impl_->error = Status(ErrorCode::kInternal, "a reduce step of operands of different sizes");
  impl_->locals.push_back(Step{.kind = StepKind::kReduce, .a = in, .b = inout, .op = &op});
  impl_->current().local_end = static_cast<std::uint32_t>(impl_->locals.size());
}

void ScheduleBuilder::copy(const Buf& from, const Buf& to) {
  impl_->hold(from.type);
  impl_->hold(to.type);
  impl_->locals.push_back(Step{.kind = StepKind::kCopy, .a = from, .b = to});
  impl_->current().local_end = static_cast<std::uint32_t>(impl_->locals.size());
}

Buf ScheduleBuilder::scratch(std::int64_t count, const core::Datatype& type) {
  Span s = span_of(count, type);
  std::byte* mem = scratch_bytes(static_cast<std::size_t>(s.size));
  return Buf{mem - s.lo, count, &type};
}

std::byte* ScheduleBuilder::scratch_bytes(std::size_t bytes) {
  Impl& m = *impl_;
  if (m.device == nullptr) {
    m.scratch.push_back(ScratchPool::take(bytes));
    return m.scratch.back().data();
  }
  Result<DeviceScratch> block = take_device_scratch(*m.device, m.device_id, bytes);
  if (!block.ok()) {
    if (m.error.ok()) m.error = block.status();
    return nullptr;
  }
  m.device_scratch.push_back(std::move(block).value());
  return m.device_scratch.back().data();
}

namespace {

// Marks the receives whose data a reduce step of the same round reads (Step::read_soon).
void mark_read_soon(std::vector<Step>& messages, const std::vector<Step>& locals, const Round& r) {
  for (std::uint32_t l = r.local_begin; l < r.local_end; ++l) {
    if (locals[l].kind != StepKind::kReduce) continue;
    Range in = range_of(locals[l].a), inout = range_of(locals[l].b);
    for (std::uint32_t i = r.msg_begin; i < r.msg_end; ++i) {
      Step& m = messages[i];
      if (m.kind == StepKind::kRecv &&
          (in.overlaps(range_of(m.a)) || inout.overlaps(range_of(m.a))))
        m.read_soon = true;
    }
  }
}

}  // namespace

Result<std::unique_ptr<Operation>> ScheduleBuilder::build() {
  if (!impl_->error.ok()) return std::move(impl_->error);
  Impl& m = *impl_;
  for (Round& r : m.rounds) {
    for (std::uint32_t l = r.local_begin; l < r.local_end && !r.local_waits_for_sends; ++l) {
      Range out = range_of(m.locals[l].b);
      for (std::uint32_t i = r.msg_begin; i < r.msg_end; ++i)
        if (m.messages[i].kind == StepKind::kSend && out.overlaps(range_of(m.messages[i].a)))
          r.local_waits_for_sends = true;
    }
    mark_read_soon(m.messages, m.locals, r);
  }
  if (m.rounds.back().msg_begin == m.rounds.back().msg_end &&
      m.rounds.back().local_begin == m.rounds.back().local_end)
    m.rounds.pop_back();
  auto s = std::make_unique<Schedule>(args_, std::move(m.messages), std::move(m.locals),
                                      std::move(m.rounds));
  s->keep(std::move(m.types), std::move(m.scratch), m.device, std::move(m.device_scratch));
  return std::unique_ptr<Operation>(std::move(s));
}

std::unique_ptr<Operation> empty_operation() {
  Args none;
  return std::make_unique<Schedule>(none, std::vector<Step>{}, std::vector<Step>{},
                                    std::vector<Round>{});
}

}  // namespace gpurun::coll
