// What the pml's sending side (pml.cc) and receiving side (receive.cc) share about a request's
// data on the wire.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/request.h"
#include "runtime/transport/transport.h"

namespace gpurun::pml {

// The payload of a request-to-send: the packed size, where the receiver pulls the data from,
// and the sender's token (whom the acknowledgement of a synchronous send names).
struct RtsPayload {
  std::uint64_t size;
  transport::BulkCookie cookie;
  std::uint64_t token;
};

// Where the data of a request with a contiguous datatype begins.
inline std::byte* first_byte(const core::Request* r) {
  return static_cast<std::byte*>(r->buffer) + r->datatype->true_lb();
}

inline bool on_device(const core::Request* r) { return r->memory != accel::MemoryKind::kHost; }

}  // namespace gpurun::pml
