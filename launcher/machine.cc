#include "launcher/machine.h"

#include <fstream>
#include <map>

namespace gpurun::launcher {

std::string machine_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

std::vector<CpuShare> cpu_shares(const JobMap& map, const std::vector<std::string>& machine_of) {
  std::map<std::string, std::vector<std::size_t>> by_machine;
  for (std::size_t n = 0; n < map.nodes.size() && n < machine_of.size(); ++n)
    if (!machine_of[n].empty() && !map.nodes[n].ranks.empty())
      by_machine[machine_of[n]].push_back(n);
  std::vector<CpuShare> shares(map.nodes.size());
  for (const auto& [id, nodes] : by_machine) {
    if (nodes.size() < 2) continue;
    int total = 0;
    for (std::size_t n : nodes) total += static_cast<int>(map.nodes[n].ranks.size());
    int first = 0;
    for (std::size_t n : nodes) {
      shares[n] = CpuShare{.first = first, .ranks = total};
      first += static_cast<int>(map.nodes[n].ranks.size());
    }
  }
  return shares;
}

}  // namespace gpurun::launcher
