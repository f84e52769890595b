// allreduce "device_ring": the ring allreduce of allreduce_ring.cc on device buffers, with the
// blocks moved by the pml (which moves device memory itself: cuda_ipc between ranks of one host,
// staging otherwise) and folded by the accelerator's device reductions (kernels). No host copy
// of the data is ever made.
//
// Idea: the vector is cut into p blocks. In p - 1 reduce-scatter rounds every rank passes one
// block to its right neighbour and folds the block arriving from its left into its own; after
// them rank r holds block r + 1 fully reduced, and p - 1 allgather rounds pass the finished
// blocks round the ring, straight into place. Not in place, a block arrives in recvbuf and the
// rank's input is folded into it (no copy of the input, no scratch); in place, arrivals land in
// a device scratch block first.
// Requirements: device (or managed) memory for both buffers; a commutative op and a contiguous
// type that the accelerator reduces (Accelerator::check_reduce: predefined ops on predefined
// types); every rank of the call passes device buffers (the table chooses this algorithm by
// memory kind, which each rank sees only for itself).
// Cost: 2 (p-1) alpha + 2 n (p-1)/p beta + n (p-1)/p gamma_device, each round a blocking
// kernel launch (a few microseconds) after its messages.
#include <algorithm>
#include <string>
#include <utility>

#include "coll/algo/common.h"
#include "coll/staging.h"
#include "pml/pml.h"

namespace gpurun::coll::algo {
namespace {

bool on_device(accel::Accelerator& accel, const void* ptr) {
  return ptr != nullptr && !accel::is_host(accel.query(ptr).kind);
}

bool usable(const Args& a) {
  if (accel::is_host(a.memory) || a.op == nullptr || !a.op->commutative() || a.type == nullptr ||
      !a.type->contiguous() || a.count <= 0)
    return false;
  accel::Accelerator& accel = accelerator_of(a);
  if (!accel.check_reduce(*a.op, *a.type).ok()) return false;
  return on_device(accel, a.recvbuf) && (a.in_place || on_device(accel, a.sendbuf));
}

class DeviceRing final : public Operation {
 public:
  DeviceRing(const Args& a, DeviceScratch scratch)
      : pml_(a.pml),
        comm_(a.comm),
        accel_(&accelerator_of(a)),
        op_(a.op),
        type_(a.type),
        send_(static_cast<const std::byte*>(a.sendbuf) + a.type->true_lb()),
        recv_(static_cast<std::byte*>(a.recvbuf) + a.type->true_lb()),
        user_send_(a.sendbuf),
        user_recv_(a.recvbuf),
        count_(a.count),
        in_place_(a.in_place),
        tag_(a.tag),
        p_(a.comm->size()),
        r_(a.comm->rank()),
        scratch_(std::move(scratch)) {}

  Status start() override;
  bool progress() override;
  Status status() const override { return status_; }
  bool rearm(const Args& a) override {
    if (!done_ || a.sendbuf != user_send_ || a.recvbuf != user_recv_ || a.count != count_ ||
        a.type != type_ || a.op != op_ || a.in_place != in_place_ || a.comm != comm_)
      return false;
    tag_ = a.tag;
    return true;
  }

 private:
  struct Block {
    std::int64_t first = 0, count = 0;
  };
  Block block(int i) const {
    i = ((i % p_) + p_) % p_;
    std::int64_t base = count_ / p_, extra = count_ % p_;
    return Block{i * base + std::min<std::int64_t>(i, extra), base + (i < extra ? 1 : 0)};
  }
  std::size_t bytes(const Block& b) const {
    return static_cast<std::size_t>(b.count * type_->size());
  }
  std::byte* at(std::byte* base, const Block& b) const { return base + b.first * type_->size(); }

  void post_round();
  // A message of block b at buf, which is memory of `kind` (managed memory is not device
  // memory to the pml: CUDA IPC cannot export it).
  void post(bool send, int peer, const void* buf, const Block& b, accel::MemoryKind kind);
  void fold();
  void fail(Status st) {
    if (status_.ok() && !st.ok()) status_ = std::move(st);
  }
  static void on_message(core::Request* r);

  pml::Pml* pml_;
  const core::Communicator* comm_;
  accel::Accelerator* accel_;
  const core::Op* op_;
  const core::Datatype* type_;
  const std::byte* send_;
  std::byte* recv_;
  const void* user_send_;
  const void* user_recv_;
  std::int64_t count_;
  bool in_place_;
  int tag_;
  int p_, r_;
  DeviceScratch scratch_;
  accel::MemoryKind send_kind_ = accel::MemoryKind::kCudaDevice;
  accel::MemoryKind recv_kind_ = accel::MemoryKind::kCudaDevice;
  int round_ = 0;  // 0 .. 2 (p-1) - 1: reduce-scatter rounds, then allgather rounds
  int pending_ = 0;
  bool done_ = true;
  Status status_;
};

Status DeviceRing::start() {
  if (!done_) return Status(ErrorCode::kInvalidArgument, "the collective is still active");
  status_ = ok_status();
  round_ = 0;
  done_ = false;
  if (p_ == 1) {
    if (!in_place_) fail(accel_->copy(recv_, send_, bytes(Block{0, count_})));
    done_ = true;
    return ok_status();
  }
  post_round();
  return ok_status();
}

void DeviceRing::post_round() {
  const int right = (r_ + 1) % p_, left = (r_ - 1 + p_) % p_;
  const int k = round_ < p_ - 1 ? round_ : round_ - (p_ - 1);
  const auto device = accel::MemoryKind::kCudaDevice;
  if (round_ < p_ - 1) {  // reduce-scatter
    Block in = block(r_ - k - 1);
    if (in_place_) {
      post(false, left, scratch_.data(), in, device);
    } else {
      post(false, left, at(recv_, in), in, recv_kind_);
    }
    Block out = block(r_ - k);
    if (k == 0 && !in_place_) {
      post(true, right, at(const_cast<std::byte*>(send_), out), out, send_kind_);
    } else {
      post(true, right, at(recv_, out), out, recv_kind_);
    }
  } else {  // allgather
    Block in = block(r_ - k);
    post(false, left, at(recv_, in), in, recv_kind_);
    Block out = block(r_ + 1 - k);
    post(true, right, at(recv_, out), out, recv_kind_);
  }
}

void DeviceRing::post(bool send, int peer, const void* buf, const Block& b,
                      accel::MemoryKind kind) {
  static std::byte nothing[16];
  const bool empty = b.count == 0;
  core::Request* r = pml_->requests().allocate();
  r->on_complete = on_message;
  r->owner = this;
  r->orphan = true;
  r->active = true;
  ++pending_;
  const auto memory = empty ? accel::MemoryKind::kHost : kind;
  const std::int64_t n = static_cast<std::int64_t>(bytes(b));
  Status st = send ? pml_->isend(pml::SendArgs{.comm = comm_,
                                               .buf = empty ? nothing : buf,
                                               .count = n,
                                               .type = &byte_type(),
                                               .dest = peer,
                                               .tag = tag_,
                                               .channel = pml::Channel::kColl,
                                               .memory = memory},
                                 r)
                   : pml_->irecv(pml::RecvArgs{.comm = comm_,
                                               .buf = empty ? nothing : const_cast<void*>(buf),
                                               .count = n,
                                               .type = &byte_type(),
                                               .source = peer,
                                               .tag = tag_,
                                               .channel = pml::Channel::kColl,
                                               .memory = memory},
                                 r);
  if (!st.ok()) {
    --pending_;
    fail(std::move(st));
    pml_->requests().release(r);
  }
}

void DeviceRing::on_message(core::Request* r) {
  auto* self = static_cast<DeviceRing*>(r->owner);
  --self->pending_;
  if (r->status.error != ErrorCode::kOk) {
    self->fail(Status(r->status.error,
                      "a message of device_ring with rank " + std::to_string(r->peer) + " failed"));
  } else if (const auto want = static_cast<std::uint64_t>(r->count * r->datatype->size());
             r->kind == core::RequestKind::kRecv && r->status.bytes != want) {
    self->fail(Status(ErrorCode::kInvalidArgument,
                      "device_ring received " + std::to_string(r->status.bytes) + " bytes where " +
                          std::to_string(want) + " were expected: the ranks' counts differ"));
  }
}

// After a reduce-scatter round: the arrived block folds into this rank's data.
void DeviceRing::fold() {
  const int k = round_;
  Block in = block(r_ - k - 1);
  if (in.count == 0 || !status_.ok()) return;
  const std::byte* operand = in_place_ ? scratch_.data() : at(const_cast<std::byte*>(send_), in);
  // DeviceReduce takes addresses as MPI gives them (the data at address + true_lb), like
  // core::Op::apply; send_, recv_ and the scratch point at the data itself.
  const std::int64_t lb = type_->true_lb();
  fail(accel_->reduce(accel::DeviceReduce{.op = op_,
                                          .type = type_,
                                          .in = operand - lb,
                                          .inout = at(recv_, in) - lb,
                                          .count = in.count}));
}

bool DeviceRing::progress() {
  while (!done_) {
    if (pending_ > 0) return false;
    if (round_ < p_ - 1) fold();
    if (++round_ == 2 * (p_ - 1)) {
      done_ = true;
      break;
    }
    post_round();
  }
  return true;
}

Result<std::unique_ptr<Operation>> create(const Args& a) {
  const int p = a.comm->size();
  if (!a.in_place || p == 1)
    return std::unique_ptr<Operation>(std::make_unique<DeviceRing>(a, DeviceScratch{}));
  accel::Accelerator& accel = accelerator_of(a);
  std::size_t largest = static_cast<std::size_t>((a.count + p - 1) / p * a.type->size());
  GPURUN_ASSIGN_OR_RETURN(DeviceScratch scratch,
                          take_device_scratch(accel, accel.query(a.recvbuf).device, largest));
  return std::unique_ptr<Operation>(std::make_unique<DeviceRing>(a, std::move(scratch)));
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(allreduce_device_ring, .name = "device_ring",
                          .collective = ::gpurun::coll::Collective::kAllreduce,
                          .usable = ::gpurun::coll::algo::usable,
                          .create = ::gpurun::coll::algo::create,
                          .summary =
                              "ring reduce-scatter + allgather on device buffers, "
                              "reduced by device kernels: 2(p-1)a + 2n(p-1)/p b")
