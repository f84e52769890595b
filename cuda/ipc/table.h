// The export table: each rank's shared-memory segment through which its local peers read the
// IPC descriptors of the device data it offers, and answer. It replaces control packets: the
// descriptor of an offer (about 200 bytes: the IPC handle alone is 64) would not fit the pml's
// 16-byte cookie, and the answers (FIN, "send me the fd", "stage it instead") are single
// stores that the owner sees when it polls the offers it has outstanding, at no cost when it
// has none.
//
// Layout: a header, then one lane per local rank (the lane of rank r holds what this rank
// offers to r): a control block (refusal flag, release notices) and `slots` descriptor slots.
// A slot goes kFree -> kOffered (owner) -> [kNeedFd (peer) -> kFdSent (owner)] -> kDone or
// kFailed (peer) -> kFree (owner); or, when the peer cannot map the memory, kOffered ->
// kRefused (peer) -> kStaged (owner: data offered through the shm transport instead, under
// `fallback`) -> kFree (owner, once that transfer ends).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/base/status.h"
#include "runtime/transport/shm/segment.h"
#include "runtime/transport/transport.h"

namespace gpurun::cuda::ipc {

inline constexpr std::uint64_t kTableMagic = 0x7063692d61647563ull;  // "cuda-ipc"
inline constexpr std::uint32_t kReleaseRing = 64;

enum class HandleKind : std::uint32_t {
  kLegacy = 1,  // cuIpcGetMemHandle (cudaMalloc memory)
  kVmm = 2,     // cuMemExportToShareableHandle, a POSIX fd (cuMemCreate memory)
  kPool = 3,    // cuMemPoolExportToShareableHandle + cuMemPoolExportPointer (pools)
};
const char* handle_kind_name(HandleKind kind);  // "legacy", "vmm", "pool"

enum class SlotState : std::uint32_t {
  kFree = 0,
  kOffered = 1,
  kNeedFd = 2,
  kFdSent = 3,
  kDone = 4,
  kFailed = 5,
  kRefused = 6,
  kStaged = 7,
};

// What a peer needs to map the allocation holding offered data and read it. Plain bytes: the
// sender's addresses mean nothing to the peer except as identities and offsets.
struct Descriptor {
  HandleKind kind = HandleKind::kLegacy;
  std::int32_t device = -1;       // the owner's device ordinal (the owner's numbering)
  std::uint64_t buffer_id = 0;    // the owner's CU_POINTER_ATTRIBUTE_BUFFER_ID
  std::uint64_t range_start = 0;  // the allocation, in the owner's address space
  std::uint64_t range_size = 0;
  std::uint64_t offset = 0;   // of the data in the allocation
  std::uint64_t size = 0;     // bytes offered
  std::uint64_t pool_id = 0;  // kPool: the owner's pool, as an identity
  unsigned char device_uuid[16] = {};
  unsigned char handle[64] = {};  // kLegacy: CUipcMemHandle; kPool: CUmemPoolPtrExportData
};

struct alignas(64) Slot {
  std::atomic<std::uint32_t> state{0};
  std::uint32_t generation = 0;  // bumped by the owner at every reuse; in the cookie
  std::int32_t error = 0;        // kFailed: an ErrorCode
  Descriptor descriptor;
  transport::BulkCookie fallback;  // kStaged: the shm transport's cookie
};

struct alignas(64) LaneControl {
  // Set by the peer: it cannot map this rank's memory (it logged why); offer it staged data.
  std::atomic<std::uint32_t> refused{0};
  // Buffer ids this rank freed after offering them: the peer drops its mappings of them.
  std::atomic<std::uint64_t> released_head{0};  // written by the owner
  std::atomic<std::uint64_t> released_tail{0};  // written by the peer
  std::uint64_t released[kReleaseRing] = {};
};

struct alignas(64) TableHeader {
  std::uint64_t magic = 0;
  std::uint32_t local_size = 0;
  std::uint32_t slots = 0;  // per lane
  std::int32_t owner_rank = -1;
  std::int32_t owner_pid = 0;
  std::atomic<std::uint32_t> attached{0};  // peers that mapped the table
};

// A table, this rank's (read-write for the owner) or a peer's (mapped by the peer).
class Table {
 public:
  static Result<std::unique_ptr<Table>> create(std::uint32_t local_size, std::uint32_t slots,
                                               int owner_rank, const std::string& name);
  static Result<std::unique_ptr<Table>> attach(const std::string& descriptor);

  TableHeader& header() const { return *static_cast<TableHeader*>(segment_->base()); }
  LaneControl& lane(std::uint32_t index) const;
  Slot& slot(std::uint32_t lane, std::uint32_t index) const;
  std::uint32_t slots() const { return header().slots; }
  const std::string& descriptor() const { return segment_->descriptor(); }
  // Removes a named segment's name once every peer mapped it (nothing is left behind).
  void unlink_when_attached();

  static std::size_t bytes(std::uint32_t local_size, std::uint32_t slots);

 private:
  explicit Table(std::unique_ptr<transport::shm::Segment> segment) : segment_(std::move(segment)) {}
  std::unique_ptr<transport::shm::Segment> segment_;
};

// Cookies of IPC offers carry this bit in `address` (no user-space address has it), so a
// receiver tells them from the shm transport's cookies; `id` is the slot, and the rest of
// `address` the slot's generation.
inline constexpr std::uint64_t kIpcCookieBit = std::uint64_t{1} << 63;
inline transport::BulkCookie make_cookie(std::uint32_t slot, std::uint32_t generation) {
  return transport::BulkCookie{slot, kIpcCookieBit | generation};
}
inline bool is_ipc_cookie(const transport::BulkCookie& cookie) {
  return (cookie.address & kIpcCookieBit) != 0;
}
inline std::uint32_t cookie_slot(const transport::BulkCookie& c) {
  return static_cast<std::uint32_t>(c.id);
}
inline std::uint32_t cookie_generation(const transport::BulkCookie& c) {
  return static_cast<std::uint32_t>(c.address);
}

}  // namespace gpurun::cuda::ipc
