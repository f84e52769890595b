#include "coll/shm/core_groups.h"

#include <sched.h>
#include <unistd.h>

#include <map>
#include <utility>

namespace gpurun::coll::shm {

Seat own_seat(bool mapped) {
  Seat seat{.mapped = mapped ? 1 : 0};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) == 0) return seat;
  seat.cpus = CPU_COUNT(&set);
  if (seat.cpus >= sysconf(_SC_NPROCESSORS_ONLN)) return seat;
  std::uint64_t key = 1469598103934665603ULL;  // FNV-1a over the CPU numbers
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) key = (key ^ static_cast<std::uint64_t>(cpu + 1)) * 1099511628211ULL;
  seat.cpu_key = static_cast<std::int64_t>(key | 1);  // never 0
  return seat;
}

std::vector<int> core_groups(const std::vector<Seat>& seats) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<int>> by_set;
  for (int r = 0; r < static_cast<int>(seats.size()); ++r) {
    const Seat& s = seats[static_cast<std::size_t>(r)];
    if (s.cpu_key != 0) by_set[{s.cpu_key, s.cpus}].push_back(r);
  }
  std::vector<int> group(seats.size());
  for (int r = 0; r < static_cast<int>(seats.size()); ++r) group[static_cast<std::size_t>(r)] = r;
  for (const auto& [set, members] : by_set) {
    if (static_cast<std::int64_t>(members.size()) <= set.second) continue;
    for (int r : members) group[static_cast<std::size_t>(r)] = members.front();
  }
  return group;
}

}  // namespace gpurun::coll::shm
