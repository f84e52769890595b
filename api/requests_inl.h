// Template definitions of api/requests.h.
#pragma once

#include "api/call.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {

template <class Done>
void wait_until(Done&& done, std::uint64_t yield_polls) {
  progress::Engine& engine = progress::engine();
  if (!g_thread_multiple) {
    engine.wait(done, yield_polls);
    return;
  }
  // The caller holds the library's lock: poll under it, and let other threads in whenever a
  // poll finds nothing.
  while (!done()) {
    if (engine.poll() != 0 || done()) continue;
    let_other_threads_in();
  }
}

}  // namespace gpurun::api
