// What a rank publishes so that local peers can reach its cuda_ipc transport: its export
// table's segment and the Unix socket that takes fds (empty when it takes none).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::cuda::ipc {

struct PeerAddress {
  int rank = -1;
  std::string table;   // shm::Segment descriptor
  std::string socket;  // path of the fd socket; empty: none
};

std::vector<std::byte> encode_address(const PeerAddress& address);
// kInvalidArgument for bytes that encode_address did not write.
Result<PeerAddress> decode_address(std::span<const std::byte> bytes);

}  // namespace gpurun::cuda::ipc
