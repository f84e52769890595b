// What gpurun does with device memory, per family of MPI calls, for MPIX_Query_cuda_path and
// for users who ask: moved natively (CUDA IPC, device kernels, device-direct network),
// staged through host memory, or refused (an error).
//
// The layer that implements a family declares its path when it is wired up (api/wiring.cc, the
// composition root); a family nobody declared is refused, and so is every family when CUDA is
// unusable. So the answer is what this process will do, not what the design intends.
//
// Thread-safety: declare() and path() may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpurun::cuda::support {

enum class Path : std::uint8_t {
  kRefused,  // device buffers give an error (MPI_ERR_BUFFER)
  kStaged,   // accepted; copied through host memory
  kNative,   // accepted; moved or reduced on the device
};
std::string_view path_name(Path path);  // "refused", "staged", "native"

enum class Family : std::uint8_t {
  kPointToPoint,  // send, receive, probe-and-receive, persistent and buffered forms
  kCollective,    // collectives that move data (bcast, gather, alltoall, ...)
  kReduction,     // collectives that reduce (reduce, allreduce, scan, ...)
  kReduceLocal,   // MPI_Reduce_local
  kPack,          // MPI_Pack, MPI_Unpack and their external forms
  kCount,
};
std::string_view family_name(Family family);

// Declares how `family` treats device buffers; `detail` says how, for logs and tools ("cuda_ipc
// between ranks of one host, staged through pinned host buffers otherwise").
void declare(Family family, Path path, std::string detail);

struct Answer {
  Path path = Path::kRefused;
  std::string detail;
};
// The path of `family` in this process. Loads the CUDA driver on first use (no context).
Answer path(Family family);

// Forgets every declaration (tests).
void reset();

}  // namespace gpurun::cuda::support
