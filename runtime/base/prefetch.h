// Cache-line hints for memory that other processes write or read (shared-memory rings and
// flags).
#pragma once

namespace gpurun {

// Asks for a cache line in a state that allows writing, without waiting for it: the transfer
// from the core that had it overlaps with what this one does until it writes there.
inline void prefetch_for_write(const void* line) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(line)));
#else
  __builtin_prefetch(line, 1, 3);
#endif
}

}  // namespace gpurun
