#include "launcher/mapping.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "launcher/cli.h"

namespace gpurun::launcher {
namespace {

std::string describe(const std::vector<HostSpec>& hosts, const MapRequest& request) {
  std::string text;
  for (const HostSpec& host : hosts)
    text += (text.empty() ? "" : ",") + host.name + ":" + std::to_string(host.slots);
  if (request.npernode > 0)
    text += " with " + (request.npernode_option.empty()
                            ? "--npernode " + std::to_string(request.npernode)
                            : request.npernode_option);
  return text;
}

// How many ranks each host gets: its slots first, then (oversubscribed) one per host in turn, a
// host never beyond its cap (max_slots). The caller has checked that the caps hold np.
std::vector<int> counts_per_host(const std::vector<int>& capacity, const std::vector<int>& cap,
                                 int np, bool by_node) {
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
      if ((room && count[h] >= capacity[h]) || count[h] >= cap[h]) continue;
      ++count[h];
      ++placed;
      placed_any = true;
    }
    if (!placed_any && !room) break;  // every host at its cap
    if (!placed_any) room = false;    // every host is full: oversubscribe evenly
  }
  return count;
}

// The index of `host` in `hosts`, which it joins when no entry names it (or both are this host).
std::size_t add_host(std::vector<HostSpec>& hosts, const HostSpec& host) {
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (hosts[i].name == host.name || (hosts[i].local && host.local)) return i;
  hosts.push_back(host);
  return hosts.size() - 1;
}

// The hosts (indices into `hosts`) of one program's ranks, from the slots `left` on its hosts
// `on` and the ranks their max_slots still allow (`allowed`), which it then takes. `name` starts
// its errors.
std::vector<int> place_program(const std::vector<HostSpec>& hosts,
                               const std::vector<std::size_t>& on, std::vector<int>& left,
                               std::vector<int>& allowed, int np, const MapRequest& request,
                               const std::string& name) {
  std::vector<int> capacity, cap;
  std::vector<HostSpec> its;
  for (std::size_t h : on) {
    cap.push_back(std::max(allowed[h], 0));
    capacity.push_back(std::min(std::max(left[h], 0), cap.back()));
    its.push_back(hosts[h]);
  }
  int slots = std::accumulate(capacity.begin(), capacity.end(), 0);
  if (np == 0) np = slots;
  if (np > slots && !request.oversubscribe)
    throw UsageError(name + std::to_string(np) + " ranks do not fit the " + std::to_string(slots) +
                     (name.empty() ? " slots of " : " slots left on ") + describe(its, request) +
                     " (give more slots, fewer ranks, or --oversubscribe)");
  if (long most = std::accumulate(cap.begin(), cap.end(), 0L); np > most)
    throw UsageError(name + std::to_string(np) + " ranks exceed the " + std::to_string(most) +
                     " that the hosts' max_slots allow on " + describe(its, request));
  std::vector<int> count = counts_per_host(capacity, cap, np, request.by_node);
  for (std::size_t h = 0; h < on.size(); ++h) {
    left[on[h]] -= count[h];
    allowed[on[h]] -= count[h];
  }
  // Ranks are numbered host by host by slot, and dealt in turn by node.
  std::vector<int> host_of;
  bool deal = request.rank_by == RankBy::kAuto ? request.by_node : request.rank_by == RankBy::kNode;
  if (deal) {
    std::size_t h = 0;
    for (int r = 0; r < np; ++r) {
      while (count[h] == 0) h = (h + 1) % on.size();
      host_of.push_back(static_cast<int>(on[h]));
      --count[h];
      h = (h + 1) % on.size();
    }
  } else {
    for (std::size_t h = 0; h < on.size(); ++h)
      host_of.insert(host_of.end(), static_cast<std::size_t>(count[h]), static_cast<int>(on[h]));
  }
  return host_of;
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
  return map_programs(hosts, {ProgramHosts{.np = request.np}}, request);
}

JobMap map_programs(std::vector<HostSpec> hosts, const std::vector<ProgramHosts>& programs,
                    const MapRequest& request) {
  std::vector<std::size_t> job_hosts(hosts.size());
  std::iota(job_hosts.begin(), job_hosts.end(), std::size_t{0});
  std::vector<std::vector<std::size_t>> on;  // each program's hosts, as indices into `hosts`
  for (const ProgramHosts& program : programs) {
    if (program.hosts.empty()) {
      on.push_back(job_hosts);
      continue;
    }
    on.emplace_back();
    for (const HostSpec& host : merge_hosts(program.hosts))
      on.back().push_back(add_host(hosts, host));
  }
  std::vector<int> left, allowed;
  for (const HostSpec& host : hosts) {
    left.push_back(request.npernode > 0 ? request.npernode : host.slots);
    allowed.push_back(host.max_slots > 0 ? host.max_slots : std::numeric_limits<int>::max() / 2);
  }
  std::vector<int> host_of;  // of each rank, an index into `hosts`
  for (std::size_t k = 0; k < programs.size(); ++k) {
    std::string name = programs.size() > 1 ? programs[k].name + ": " : "";
    std::vector<int> more =
        place_program(hosts, on[k], left, allowed, programs[k].np, request, name);
    host_of.insert(host_of.end(), more.begin(), more.end());
  }
  return map_onto(hosts, host_of);
}

JobMap map_onto(const std::vector<HostSpec>& hosts, const std::vector<int>& host_of) {
  std::vector<int> node_of_host(hosts.size(), -1);
  std::vector<bool> used(hosts.size(), false);
  for (int h : host_of) used[static_cast<std::size_t>(h)] = true;
  JobMap map;
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (!used[h]) continue;
    node_of_host[h] = static_cast<int>(map.nodes.size());
    map.nodes.push_back(NodeRanks{.name = hosts[h].name, .local = hosts[h].local});
  }
  for (std::size_t r = 0; r < host_of.size(); ++r) {
    int node = node_of_host[static_cast<std::size_t>(host_of[r])];
    map.node_of.push_back(node);
    map.nodes[static_cast<std::size_t>(node)].ranks.push_back(static_cast<int>(r));
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
