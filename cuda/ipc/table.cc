#include "cuda/ipc/table.h"

#include <unistd.h>

#include "runtime/transport/shm/params.h"

namespace gpurun::cuda::ipc {
namespace {

std::size_t lane_bytes(std::uint32_t slots) {
  return sizeof(LaneControl) + std::size_t{slots} * sizeof(Slot);
}

}  // namespace

const char* handle_kind_name(HandleKind kind) {
  switch (kind) {
    case HandleKind::kLegacy:
      return "legacy";
    case HandleKind::kVmm:
      return "vmm";
    case HandleKind::kPool:
      return "pool";
  }
  return "?";
}

std::size_t Table::bytes(std::uint32_t local_size, std::uint32_t slots) {
  return sizeof(TableHeader) + std::size_t{local_size} * lane_bytes(slots);
}

Result<std::unique_ptr<Table>> Table::create(std::uint32_t local_size, std::uint32_t slots,
                                             int owner_rank, const std::string& name) {
  bool memfd = transport::shm::params::segment().get() == transport::shm::SegmentKind::kMemfd;
  GPURUN_ASSIGN_OR_RETURN(auto segment,
                          transport::shm::Segment::create(bytes(local_size, slots), name, memfd));
  std::unique_ptr<Table> table(new Table(std::move(segment)));
  TableHeader& h = table->header();
  h.local_size = local_size;
  h.slots = slots;
  h.owner_rank = owner_rank;
  h.owner_pid = static_cast<std::int32_t>(getpid());
  h.magic = kTableMagic;
  return table;
}

Result<std::unique_ptr<Table>> Table::attach(const std::string& descriptor) {
  GPURUN_ASSIGN_OR_RETURN(auto segment, transport::shm::Segment::attach(descriptor));
  if (segment->size() < sizeof(TableHeader))
    return Status(ErrorCode::kInvalidArgument, "cuda_ipc table too small");
  std::unique_ptr<Table> table(new Table(std::move(segment)));
  const TableHeader& h = table->header();
  if (h.magic != kTableMagic || table->segment_->size() < bytes(h.local_size, h.slots))
    return Status(ErrorCode::kInvalidArgument, "not a cuda_ipc table: '" + descriptor + "'");
  table->header().attached.fetch_add(1, std::memory_order_acq_rel);
  return table;
}

LaneControl& Table::lane(std::uint32_t index) const {
  auto* base = static_cast<std::byte*>(segment_->base()) + sizeof(TableHeader);
  return *reinterpret_cast<LaneControl*>(base + index * lane_bytes(header().slots));
}

Slot& Table::slot(std::uint32_t lane_index, std::uint32_t index) const {
  auto* lane_base = reinterpret_cast<std::byte*>(&lane(lane_index));
  return *reinterpret_cast<Slot*>(lane_base + sizeof(LaneControl) + index * sizeof(Slot));
}

void Table::unlink_when_attached() {
  if (segment_->named() &&
      header().attached.load(std::memory_order_acquire) + 1 >= header().local_size)
    segment_->unlink();
}

}  // namespace gpurun::cuda::ipc
