// The pml's packet types (transport::PacketHeader::type) and their flags, and the stages of a
// send.
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

// Send stages (core::Request::stage).
inline constexpr std::uint32_t kNew = 0;
inline constexpr std::uint32_t kOffered = 1;   // data offered, request-to-send not yet gone
inline constexpr std::uint32_t kInFlight = 2;  // waiting for the ack or the pull

}  // namespace gpurun::pml
