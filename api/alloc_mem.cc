// MPI_Alloc_mem and MPI_Free_mem: memory for the program, from the heap. Every transport of
// gpurun moves any host memory alike, so the memory needs no registration; blocks are aligned
// to a cache line (and to a page from a page up), which suits the copies of shared memory.
// The blocks given out are remembered, so that MPI_Free_mem of anything else (a pointer from
// malloc or the stack, a block freed twice) is an MPI_ERR_BASE instead of a broken heap.
#include <cstdlib>
#include <unordered_set>

#include "api/call.h"
#include "api/info.h"

namespace gpurun::api {
namespace {

constexpr std::size_t kLineBytes = 64;
constexpr std::size_t kPageBytes = 4096;

// The blocks MPI_Alloc_mem gave out and MPI_Free_mem has not taken back (under the big lock).
std::unordered_set<void*>& blocks() {
  static auto* live = new std::unordered_set<void*>;
  return *live;
}

int alloc_mem(const Call& call, MPI_Aint size, MPI_Info info, void* baseptr) {
  if (size < 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_SIZE, "argument size %ld is negative", size);
  if (info != MPI_INFO_NULL && find_info(info) == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  }
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, baseptr);
  auto bytes = static_cast<std::size_t>(size);
  void* block = nullptr;
  // A block of 0 bytes is still a distinct pointer that MPI_Free_mem takes back.
  if (posix_memalign(&block, bytes >= kPageBytes ? kPageBytes : kLineBytes,
                     bytes == 0 ? 1 : bytes) != 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "%ld bytes could not be allocated", size);
  }
  int rc = guard_memory(call, MPI_COMM_NULL, "size", [&] {
    blocks().insert(block);
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS) {
    std::free(block);
    return rc;
  }
  *static_cast<void**>(baseptr) = block;
  return MPI_SUCCESS;
}

int free_mem(const Call& call, void* base) {
  if (base == nullptr) return MPI_SUCCESS;
  if (blocks().erase(base) == 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_BASE,
                 "argument base (%p) is not memory from MPI_Alloc_mem, or was freed already", base);
  }
  std::free(base);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  GPURUN_API_ENTER("MPI_Alloc_mem");
  return gpurun::api::alloc_mem(call, size, info, baseptr);
}

// Like free(), a null base is nothing to free.
extern "C" int PMPI_Free_mem(void* base) {
  GPURUN_API_ENTER("MPI_Free_mem");
  return gpurun::api::free_mem(call, base);
}

GPURUN_MPI_ALIAS(MPI_Alloc_mem)
GPURUN_MPI_ALIAS(MPI_Free_mem)
