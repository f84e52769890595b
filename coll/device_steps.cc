// Schedules on device memory (see device_steps.h).
#include "coll/device_steps.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "coll/staging.h"

namespace gpurun::coll {
namespace {

// The buffers the call gives this rank, with what staging_regions() says it touches.
template <class Fn>
bool all_buffers(const Args& args, Fn fn) {
  StagingRegions regions = staging_regions(args);
  if (regions.send && !fn(args.sendbuf)) return false;
  return !regions.recv || fn(args.recvbuf);
}

constexpr std::size_t kPoolBlocks = 8;

struct PooledBlock {
  accel::Accelerator* accel;
  std::byte* data;
  int device;
  std::size_t capacity;
};

std::vector<PooledBlock>& pool() {
  static auto* blocks = new std::vector<PooledBlock>;
  return *blocks;
}

}  // namespace

DeviceScratch::~DeviceScratch() {
  if (data_ == nullptr) return;
  if (pool().size() < kPoolBlocks) {
    pool().push_back(PooledBlock{accel_, data_, device_, capacity_});
  } else {
    accel_->free_device(data_);
  }
}

Result<DeviceScratch> take_device_scratch(accel::Accelerator& accel, int device,
                                          std::size_t bytes) {
  DeviceScratch out;
  out.accel_ = &accel;
  out.device_ = device;
  out.capacity_ = std::bit_ceil(std::max<std::size_t>(bytes, 64));
  auto& blocks = pool();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const PooledBlock& b = blocks[i];
    if (b.accel == &accel && b.device == device && b.capacity == out.capacity_) {
      out.data_ = b.data;
      blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
      return out;
    }
  }
  GPURUN_ASSIGN_OR_RETURN(void* mem, accel.allocate_device(device, out.capacity_));
  out.data_ = static_cast<std::byte*>(mem);
  return out;
}

std::size_t device_scratch_held() { return pool().size(); }

void release_device_scratch() {
  for (const PooledBlock& b : pool()) b.accel->free_device(b.data);
  pool().clear();
}

int schedule_device(const Args& args) {
  if (accel::is_host(args.memory) || args.sendtypes != nullptr || args.recvtypes != nullptr)
    return -1;
  for (const core::Datatype* t : {args.type, args.recvtype})
    if (t != nullptr && !t->contiguous()) return -1;
  accel::Accelerator& accel = accelerator_of(args);
  if (args.op != nullptr &&
      (args.type == nullptr || !accel.check_reduce(*args.op, *args.type).ok()))
    return -1;
  // Managed memory names no device: a call on managed memory alone is staged, so that no
  // scratch lands on a GPU the rank does not use.
  int device = -1;
  bool one_device = all_buffers(args, [&](const void* p) {
    accel::MemoryInfo m = accel.query(p);
    if (accel::is_host(m.kind) || (m.device >= 0 && device >= 0 && m.device != device))
      return false;
    if (m.device >= 0) device = m.device;
    return true;
  });
  return one_device ? device : -1;
}

Status device_copy(accel::Accelerator& accel, const Buf& from, const Buf& to) {
  if (!from.type->contiguous() || !to.type->contiguous())
    return Status(ErrorCode::kInternal, "a device copy step of a non-contiguous datatype");
  std::int64_t n = std::min(from.bytes(), to.bytes());
  std::byte* src = from.first_byte();
  std::byte* dst = to.first_byte();
  if (n <= 0 || src == dst) return ok_status();
  auto bytes = static_cast<std::size_t>(n);
  if (src < dst + n && dst < src + n) {  // overlapping: through a device block
    GPURUN_ASSIGN_OR_RETURN(DeviceScratch tmp,
                            take_device_scratch(accel, accel.query(src).device, bytes));
    GPURUN_TRY(accel.copy(tmp.data(), src, bytes));
    return accel.copy(dst, tmp.data(), bytes);
  }
  return accel.copy(dst, src, bytes);
}

Status device_reduce(accel::Accelerator& accel, const core::Op& op, const Buf& in,
                     const Buf& inout) {
  return accel.reduce(accel::DeviceReduce{
      .op = &op, .type = inout.type, .in = in.base, .inout = inout.base, .count = inout.count});
}

}  // namespace gpurun::coll
