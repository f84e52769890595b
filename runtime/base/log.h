// Logging: GPURUN_LOG(level, subsys, "fmt", ...), printf-checked, one line per call, written to
// stderr with a "[host:pid:rank]" prefix. The threshold is chosen per subsystem by
// GPURUN_LOG_LEVEL ("warn", or "warn,pml:debug,coll:trace") and the subsystems shown by
// GPURUN_LOG_SUBSYS ("all", "pml,coll", "^coll"). Trace messages compile out unless the build
// sets GPURUN_ENABLE_TRACE. Thread-safe; a disabled message costs one load and one compare.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace gpurun::log {

enum class Level : std::uint8_t { none, error, warn, info, debug, trace };
enum class Subsys : std::uint8_t { init, topo, transport, pml, coll, cuda, launcher, io, kCount };

#ifdef GPURUN_ENABLE_TRACE
inline constexpr bool kTraceCompiled = true;
#else
inline constexpr bool kTraceCompiled = false;
#endif

// Per-subsystem threshold; written by configure(), read on every GPURUN_LOG.
extern std::atomic<std::uint8_t> g_threshold[static_cast<int>(Subsys::kCount)];

inline bool enabled(Level level, Subsys subsys) {
  return static_cast<std::uint8_t>(level) <=
         g_threshold[static_cast<int>(subsys)].load(std::memory_order_relaxed);
}

// Reads the knobs and sets the thresholds. Called by MPI_Init and by gpurun at start;
// before that, warnings and errors are shown.
void configure();
// The rank shown in the prefix (-1 before the rank is known).
void set_rank(int rank);
std::string_view subsys_name(Subsys subsys);
std::string_view level_name(Level level);

void write(Level level, Subsys subsys, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace gpurun::log

#define GPURUN_LOG(level, subsys, ...)                                                     \
  do {                                                                                     \
    constexpr auto gpurun_log_level_ = ::gpurun::log::Level::level;                        \
    if constexpr (::gpurun::log::kTraceCompiled ||                                         \
                  gpurun_log_level_ != ::gpurun::log::Level::trace) {                      \
      if (::gpurun::log::enabled(gpurun_log_level_, ::gpurun::log::Subsys::subsys))        \
          [[unlikely]]                                                                     \
        ::gpurun::log::write(gpurun_log_level_, ::gpurun::log::Subsys::subsys, __VA_ARGS__); \
    }                                                                                      \
  } while (0)
