#include "coll/shm/core_groups.h"

#include <unistd.h>

#include <map>
#include <utility>

#include "runtime/topo/cpu_set.h"

namespace gpurun::coll::shm {

Seat own_seat(bool mapped) {
  Seat seat{.mapped = mapped ? 1 : 0};
  auto set = topo::CpuSet::of_calling_thread();
  if (!set.ok() || set->empty()) return seat;
  seat.cpus = static_cast<std::int64_t>(set->size());
  if (seat.cpus >= sysconf(_SC_NPROCESSORS_ONLN)) return seat;
  seat.cpu_key = static_cast<std::int64_t>(set->key());  // never 0
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
