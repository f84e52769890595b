#include "launcher/mapping.h"

#include <numeric>

#include "launcher/cli.h"

namespace gpurun::launcher {
namespace {

std::string describe(const std::vector<HostSpec>& hosts, int npernode) {
  std::string text;
  for (const HostSpec& host : hosts)
    text += (text.empty() ? "" : ",") + host.name + ":" + std::to_string(host.slots);
  if (npernode > 0) text += " with --npernode " + std::to_string(npernode);
  return text;
}

// How many ranks each host gets.
std::vector<int> counts_per_host(const std::vector<int>& capacity, int np, bool by_node) {
  std::vector<int> count(capacity.size(), 0);
  int placed = 0;
  if (!by_node) {
    for (std::size_t h = 0; h < capacity.size() && placed < np; ++h) {
      count[h] = std::min(capacity[h], np - placed);
      placed += count[h];
    }
  }
  // By node, and in both cases the ranks beyond the slots: one per host in turn.
  bool room = true;
  while (placed < np) {
    bool placed_any = false;
    for (std::size_t h = 0; h < capacity.size() && placed < np; ++h) {
      if (room && count[h] >= capacity[h]) continue;
      ++count[h];
      ++placed;
      placed_any = true;
    }
    if (!placed_any) room = false;  // every host is full: oversubscribe evenly
  }
  return count;
}

}  // namespace

int JobMap::local_node() const {
  for (std::size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].local) return static_cast<int>(n);
  return -1;
}

bool JobMap::spans_hosts() const {
  for (const NodeRanks& node : nodes)
    if (!node.local) return true;
  return false;
}

JobMap map_ranks(const std::vector<HostSpec>& hosts, const MapRequest& request) {
  std::vector<int> capacity;
  for (const HostSpec& host : hosts)
    capacity.push_back(request.npernode > 0 ? request.npernode : host.slots);
  int slots = std::accumulate(capacity.begin(), capacity.end(), 0);
  int np = request.np > 0 ? request.np : slots;
  if (np > slots && !request.oversubscribe)
    throw UsageError(std::to_string(np) + " ranks do not fit the " + std::to_string(slots) +
                     " slots of " + describe(hosts, request.npernode) +
                     " (give more slots, fewer ranks, or --oversubscribe)");
  std::vector<int> count = counts_per_host(capacity, np, request.by_node);
  // Ranks are numbered host by host by slot, and dealt in turn by node.
  std::vector<int> host_of(static_cast<std::size_t>(np));
  if (request.by_node) {
    std::vector<int> left = count;
    std::size_t h = 0;
    for (int r = 0; r < np; ++r) {
      while (left[h] == 0) h = (h + 1) % hosts.size();
      host_of[static_cast<std::size_t>(r)] = static_cast<int>(h);
      --left[h];
      h = (h + 1) % hosts.size();
    }
  } else {
    int r = 0;
    for (std::size_t h = 0; h < hosts.size(); ++h)
      for (int k = 0; k < count[h]; ++k)
        host_of[static_cast<std::size_t>(r++)] = static_cast<int>(h);
  }
  JobMap map;
  std::vector<int> node_of_host(hosts.size(), -1);
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (count[h] == 0) continue;
    node_of_host[h] = static_cast<int>(map.nodes.size());
    map.nodes.push_back(NodeRanks{.name = hosts[h].name, .local = hosts[h].local});
  }
  for (int r = 0; r < np; ++r) {
    int node = node_of_host[static_cast<std::size_t>(host_of[static_cast<std::size_t>(r)])];
    map.node_of.push_back(node);
    map.nodes[static_cast<std::size_t>(node)].ranks.push_back(r);
  }
  return map;
}

JobMap single_host_map(int np, const std::string& hostname) {
  JobMap map;
  map.nodes.push_back(NodeRanks{.name = hostname, .local = true});
  for (int r = 0; r < np; ++r) {
    map.node_of.push_back(0);
    map.nodes[0].ranks.push_back(r);
  }
  return map;
}

}  // namespace gpurun::launcher
