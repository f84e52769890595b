// Clocks. now_ns() reads CLOCK_MONOTONIC through the vDSO: no system call.
#pragma once

#include <time.h>

#include <cstdint>

namespace gpurun::clock {

inline std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline double now_seconds() { return static_cast<double>(now_ns()) * 1e-9; }

// Resolution of now_ns(), in seconds.
inline double tick_seconds() {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace gpurun::clock
