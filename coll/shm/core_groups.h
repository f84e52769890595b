// Ranks that share a core. When ranks outnumber cores, the launcher binds several to one core
// (launcher/placement.h): data between two of them stays in that core's caches, while data
// between cores crosses between them (300-380 ns a line on this project's 2-core machine when
// the two cores share no cache). Algorithms that know the groups can move most data within a
// core and little across (coll/shm/reduction.h, the core-group way).
//
// A rank's seat is its CPU binding as setup exchanges it: a key of its affinity set (0 when
// the set is the whole machine: an unbound rank, which may run anywhere) and the number of
// CPUs in it. Ranks whose sets are the same and narrower than the machine, and who outnumber
// its CPUs (so take turns on them), form a core group; every other rank is a group of its own.
#pragma once

#include <cstdint>
#include <vector>

namespace gpurun::coll::shm {

struct Seat {
  std::int64_t mapped = 0;   // 1: the rank mapped the segment (setup's agreement)
  std::int64_t cpu_key = 0;  // 0: bound to the whole machine, or not known
  std::int64_t cpus = 0;
  // Also exchanged by the setup, for the algorithms that copy by CMA (Arena::cma_pid):
  std::int64_t pid = 0;  // the rank's process id
  std::int64_t cma = 0;  // 1: the rank may copy from every other member's memory by CMA
};

// This rank's seat.
Seat own_seat(bool mapped);

// Each rank's group, named by its lowest member's rank.
std::vector<int> core_groups(const std::vector<Seat>& seats);

}  // namespace gpurun::coll::shm
