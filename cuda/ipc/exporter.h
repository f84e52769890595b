// The sending side of cuda_ipc: what a peer needs to map the allocation holding a device
// buffer (Descriptor), for each kind of allocator, and the registry of the buffers this rank
// exported, which finds those the application freed so that peers can drop their mappings.
//
// Allocators and their handles:
// - cudaMalloc / cuMemAlloc: legacy IPC (cuIpcGetMemHandle), 64 bytes in the descriptor;
// - cuMemCreate (VMM) with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: an fd exported on demand
//   and passed over the Unix socket;
// - stream-ordered pools created with that handle type (cudaMallocFromPoolAsync): the pool's fd
//   (once per peer and pool) and the pointer's export data (64 bytes in the descriptor).
//   cudaMallocAsync's default pool cannot be shared: such buffers are staged.
//
// Not thread-safe: the transport that owns it serialises calls.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "cuda/ipc/gpu.h"
#include "cuda/ipc/table.h"

namespace gpurun::cuda::ipc {

struct HandleFilter {
  bool legacy = true;
  bool vmm = true;
  bool pool = true;
};

class Exporter {
 public:
  Exporter(Gpu& gpu, HandleFilter filter) : gpu_(gpu), filter_(filter) {}

  // The descriptor of [ptr, ptr + size) (device memory). kUnsupported, with the reason, when
  // its allocation cannot be shared: the data is then staged.
  Result<Descriptor> describe(const void* ptr, std::size_t size);
  // Notes that the peer of local index `peer` may map buffer `buffer_id` from now on.
  void shared_with(std::uint64_t buffer_id, std::uint32_t peer);
  // A new POSIX fd for the allocation (kVmm) or pool (kPool) of a descriptor describe() gave;
  // the caller closes it.
  Result<int> export_fd(const Descriptor& descriptor);

  // A buffer the application freed (or replaced) after exporting it, and the peers that may
  // still map it.
  struct Gone {
    std::uint64_t buffer_id;
    std::vector<std::uint32_t> peers;
  };
  // Checks up to `budget` exported buffers (round robin) and returns those gone, with any that
  // describe() found replaced meanwhile.
  std::vector<Gone> sweep(int budget);
  std::size_t registered() const { return entries_.size(); }

 private:
  struct Entry {
    Descriptor descriptor;  // offset and size unset; its range is the mapped allocation
    std::uint64_t reservation_start = 0;  // the pointer attributes' range (for VMM memory, the
    std::uint64_t reservation_size = 0;   // reservation around the mapping)
    CUmemoryPool pool = nullptr;
    std::vector<std::uint32_t> peers;
  };
  Result<Descriptor> export_new(const PointerAttributes& attrs, std::uint64_t reservation_start,
                                std::uint64_t reservation_size);
  void forget_overlapping(std::uint64_t start, std::uint64_t size);
  void forget(std::uint64_t buffer_id);
  Status fill_uuid(int ordinal, Descriptor& d);

  Gpu& gpu_;
  HandleFilter filter_;
  std::unordered_map<std::uint64_t, Entry> entries_;  // by buffer id
  std::map<std::uint64_t, std::uint64_t> by_start_;   // range start -> buffer id
  std::uint64_t sweep_cursor_ = 0;                    // next range start to check
  std::vector<Gone> gone_;                            // found by describe()
  std::unordered_map<int, CUuuid> uuids_;             // by device ordinal
};

}  // namespace gpurun::cuda::ipc
