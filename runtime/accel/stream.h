// Stream: an application's device work queue (a cudaStream_t) on which gpurun orders the
// operations that MPIX_*_enqueue calls append (api/enqueue.h), without the host waiting for
// the device or the device for a host callback.
//
// Two 32-bit words in host memory that the device reads and writes connect the stream and the
// host. The stream writes its start word when it reaches an operation (signal), so the host
// learns that the stream's earlier work is done and starts the operation; the stream stops at
// a wait until the host has raised the release word far enough (wait/release). Values count
// up from 1 and wrap; they compare cyclically (a - b read as a signed 32-bit number).
//
// Threading: signal() and wait() from one thread at a time (the API lock); started() and
// release() from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::accel {

// Whether `value` has reached `target` in the cyclic order of the stream words.
constexpr bool reached(std::uint32_t value, std::uint32_t target) {
  return static_cast<std::int32_t>(value - target) >= 0;
}

class Stream {
 public:
  virtual ~Stream() = default;
  // Appends to the stream: once its earlier work is done, write `value` to the start word.
  virtual Status signal(std::uint32_t value) = 0;
  // Appends to the stream: wait until the release word has reached `value`.
  virtual Status wait(std::uint32_t value) = 0;
  // The start word as the host reads it now.
  virtual std::uint32_t started() const = 0;
  // Sets the release word to `value`.
  virtual void release(std::uint32_t value) = 0;
  // For logs and messages: which stream, and how it is ordered.
  virtual std::string describe() const = 0;
};

}  // namespace gpurun::accel
