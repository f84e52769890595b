// The pml's packet types (transport::PacketHeader::type) and their flags.
#pragma once

#include <cstdint>

namespace gpurun::pml {

inline constexpr std::uint8_t kEager = 1;      // payload: the data
inline constexpr std::uint8_t kEagerSync = 2;  // payload: sender token, then the data
inline constexpr std::uint8_t kRts = 3;        // payload: RtsPayload; flags kSyncFlag for Ssend
// Control packets, matched by nobody (types from kAck up):
inline constexpr std::uint8_t kAck = 4;  // payload: sender token (a synchronous send matched)
inline constexpr std::uint8_t kBye = 5;  // none: the sender finalized (pml/leave.cc)

inline constexpr std::uint8_t kSyncFlag = 1;
inline constexpr std::uint8_t kDeviceRouteFlag = 2;  // the data was offered on the device endpoint

}  // namespace gpurun::pml
