// Host staging of collectives on device memory (see staging.h).
#include "coll/staging.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "coll/signature.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

// Host memory for staging: pinned when the accelerator gives it, else from malloc. Blocks have
// power-of-two capacities and go back to a pool of at most kPoolBlocks (the rest are freed):
// pinned allocations cost milliseconds, so a collective in a loop must not make one per call.
constexpr std::size_t kPoolBlocks = 8;

struct HostBlock {
  std::byte* data = nullptr;
  std::size_t capacity = 0;
  accel::Accelerator* pinned_by = nullptr;  // nullptr: malloc'd

  void free() {
    if (pinned_by != nullptr) {
      pinned_by->free_host(data);
    } else {
      std::free(data);
    }
    data = nullptr;
  }
};

std::vector<HostBlock>& pool() {
  static auto* blocks = new std::vector<HostBlock>;
  return *blocks;
}

Result<HostBlock> take_block(accel::Accelerator& accel, std::size_t bytes) {
  std::size_t capacity = std::bit_ceil(std::max<std::size_t>(bytes, 64));
  auto& blocks = pool();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    HostBlock& b = blocks[i];
    bool same_kind = b.pinned_by == nullptr || b.pinned_by == &accel;
    if (b.capacity == capacity && same_kind) {
      HostBlock out = b;
      blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
      return out;
    }
  }
  HostBlock b{static_cast<std::byte*>(accel.allocate_host(capacity)), capacity, &accel};
  if (b.data == nullptr) {
    b.pinned_by = nullptr;
    b.data = static_cast<std::byte*>(std::aligned_alloc(64, capacity));
    if (b.data == nullptr)
      return Status(ErrorCode::kNoMemory, "no host memory for " + std::to_string(capacity) +
                                              " bytes of collective staging");
  }
  return b;
}

void give_block(HostBlock b) {
  if (b.data == nullptr) return;
  auto& blocks = pool();
  blocks.push_back(b);
  if (blocks.size() > kPoolBlocks) {  // the smallest goes: large ones cost most to make
    auto smallest = std::min_element(blocks.begin(), blocks.end(),
                                     [](auto& x, auto& y) { return x.capacity < y.capacity; });
    smallest->free();
    blocks.erase(smallest);
  }
}

// One staged buffer: the user's (device) buffer, its region and the host copy.
struct Staged {
  std::byte* user = nullptr;
  Region region;
  HostBlock host;

  // The address the host algorithm uses in place of `user`.
  void* host_address() const { return host.data - region.lo; }
  void* user_first() const { return user + region.lo; }
};

using Signature = CallSignature;

class StagedOperation final : public Operation {
 public:
  StagedOperation(const Args& args, accel::Accelerator& accel) : accel_(accel), signature_(args) {}
  ~StagedOperation() override {
    for (Staged& s : staged_) give_block(std::exchange(s.host, HostBlock{}));
  }

  // Stages the buffer at `*buffer` (replacing it by its host copy) when it is device memory.
  Status stage(void* user, const std::optional<Region>& region, void** host_side);
  Status finish(const Args& host_args, CreateFn create_host) {
    GPURUN_ASSIGN_OR_RETURN(inner_, create_host(host_args));
    host_args_ = host_args;
    return ok_status();
  }

  Status start() override;
  bool progress() override;
  Status status() const override { return !status_.ok() ? status_ : inner_->status(); }
  bool rearm(const Args& args) override;
  bool repeat(int tag) override {
    if (!copied_out_ || !inner_->repeat(tag)) return false;
    host_args_.tag = tag;
    return true;
  }

 private:
  void fail(Status st) {
    if (status_.ok() && !st.ok()) status_ = std::move(st);
  }

  accel::Accelerator& accel_;
  Signature signature_;
  std::vector<Staged> staged_;
  Args host_args_;
  std::unique_ptr<Operation> inner_;
  bool copied_out_ = true;
  Status status_;
};

Status StagedOperation::stage(void* user, const std::optional<Region>& region, void** host_side) {
  if (user == nullptr || !region || region->size <= 0) return ok_status();
  auto* first = static_cast<std::byte*>(user) + region->lo;
  if (accel::is_host(accel_.query(first).kind)) return ok_status();
  GPURUN_ASSIGN_OR_RETURN(HostBlock block,
                          take_block(accel_, static_cast<std::size_t>(region->size)));
  staged_.push_back(Staged{static_cast<std::byte*>(user), *region, block});
  *host_side = staged_.back().host_address();
  return ok_status();
}

Status StagedOperation::start() {
  status_ = ok_status();
  for (const Staged& s : staged_)
    if (s.region.input)
      fail(accel_.copy(s.host.data, s.user_first(), static_cast<std::size_t>(s.region.size)));
  copied_out_ = false;
  // The host algorithm runs even after a failed copy: the other ranks wait for its messages.
  Status st = inner_->start();
  if (!st.ok()) copied_out_ = true;
  return st;
}

bool StagedOperation::progress() {
  if (copied_out_) return true;
  if (!inner_->progress()) return false;
  copied_out_ = true;
  if (!status_.ok() || !inner_->status().ok()) return true;
  for (const Staged& s : staged_)
    if (s.region.output)
      fail(accel_.copy(s.user_first(), s.host.data, static_cast<std::size_t>(s.region.size)));
  return true;
}

bool StagedOperation::rearm(const Args& args) {
  if (!copied_out_ || !signature_.matches(args)) return false;
  host_args_.tag = args.tag;
  // The arrays hold the kept values (matches() compared them); the first call's are gone.
  host_args_.sendcounts = args.sendcounts;
  host_args_.sdispls = args.sdispls;
  host_args_.recvcounts = args.recvcounts;
  host_args_.rdispls = args.rdispls;
  host_args_.sendtypes = args.sendtypes;
  host_args_.recvtypes = args.recvtypes;
  return inner_->rearm(host_args_);
}

}  // namespace

accel::Accelerator& accelerator_of(const Args& args) {
  return args.accelerator != nullptr ? *args.accelerator : accel::current();
}

Result<std::unique_ptr<Operation>> create_staged(const Args& args, CreateFn create_host) {
  accel::Accelerator& accel = accelerator_of(args);
  auto op = std::make_unique<StagedOperation>(args, accel);
  StagingRegions regions = staging_regions(args);
  Args host = args;
  host.memory = accel::MemoryKind::kHost;
  void* recv = args.recvbuf;
  GPURUN_TRY(op->stage(args.recvbuf, regions.recv, &recv));
  host.recvbuf = recv;
  if (args.sendbuf == args.recvbuf) {
    host.sendbuf = recv;
  } else {
    void* send = const_cast<void*>(args.sendbuf);
    GPURUN_TRY(op->stage(send, regions.send, &send));
    host.sendbuf = send;
  }
  GPURUN_TRY(op->finish(host, create_host));
  return std::unique_ptr<Operation>(std::move(op));
}

std::size_t staging_blocks_held() { return pool().size(); }

void release_staging_blocks() {
  for (HostBlock& b : pool()) b.free();
  pool().clear();
}

}  // namespace gpurun::coll
