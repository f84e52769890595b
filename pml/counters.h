// Counts of the point-to-point layer, which MPI_T shows as performance variables
// (api/tool_pvars.cc). The thread that holds the library writes them; a tool reads them from any
// thread. Each is a relaxed atomic that its writer updates by a load and a store, so counting
// costs no locked instruction on the message path.
#pragma once

#include <atomic>
#include <cstdint>

namespace gpurun::pml {

struct Counters {
  std::atomic<std::uint64_t> posted{0};            // receives posted, waiting for their message
  std::atomic<std::uint64_t> unexpected{0};        // messages arrived before their receive, held
  std::atomic<std::uint64_t> unexpected_peak{0};   // the most held at once
  std::atomic<std::uint64_t> eager_sends{0};       // messages sent in one packet
  std::atomic<std::uint64_t> rendezvous_sends{0};  // messages offered by rendezvous
  std::atomic<std::uint64_t> bytes_sent{0};        // their bytes, both kinds
};

// This process's counts.
inline Counters g_counters;

inline void count_up(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
inline void count_down(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
}
inline void count_held() {
  count_up(g_counters.unexpected);
  std::uint64_t now = g_counters.unexpected.load(std::memory_order_relaxed);
  if (now > g_counters.unexpected_peak.load(std::memory_order_relaxed))
    g_counters.unexpected_peak.store(now, std::memory_order_relaxed);
}
inline void count_sent(bool eager, std::uint64_t bytes) {
  count_up(eager ? g_counters.eager_sends : g_counters.rendezvous_sends);
  count_up(g_counters.bytes_sent, bytes);
}

}  // namespace gpurun::pml
