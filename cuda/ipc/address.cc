#include "cuda/ipc/address.h"

#include <cstdint>
#include <cstring>

namespace gpurun::cuda::ipc {
namespace {

constexpr std::uint32_t kAddressMagic = 0x61697063;  // "cpia"

struct Fixed {
  std::uint32_t magic;
  std::int32_t rank;
  std::uint32_t table_length;
  std::uint32_t socket_length;
};

}  // namespace

std::vector<std::byte> encode_address(const PeerAddress& a) {
  Fixed fixed{kAddressMagic, a.rank, static_cast<std::uint32_t>(a.table.size()),
              static_cast<std::uint32_t>(a.socket.size())};
  std::vector<std::byte> out(sizeof fixed + a.table.size() + a.socket.size());
  std::memcpy(out.data(), &fixed, sizeof fixed);
  std::memcpy(out.data() + sizeof fixed, a.table.data(), a.table.size());
  std::memcpy(out.data() + sizeof fixed + a.table.size(), a.socket.data(), a.socket.size());
  return out;
}

Result<PeerAddress> decode_address(std::span<const std::byte> bytes) {
  Fixed fixed;
  if (bytes.size() < sizeof fixed)
    return Status(ErrorCode::kInvalidArgument, "cuda_ipc address too short");
  std::memcpy(&fixed, bytes.data(), sizeof fixed);
  if (fixed.magic != kAddressMagic ||
      bytes.size() != sizeof fixed + std::size_t{fixed.table_length} + fixed.socket_length)
    return Status(ErrorCode::kInvalidArgument, "not a cuda_ipc address");
  PeerAddress a;
  a.rank = fixed.rank;
  const char* text = reinterpret_cast<const char*>(bytes.data()) + sizeof fixed;
  a.table.assign(text, fixed.table_length);
  a.socket.assign(text + fixed.table_length, fixed.socket_length);
  return a;
}

}  // namespace gpurun::cuda::ipc
