// Hosts that are one machine. Test hosts made of network namespaces, and containers started on
// one node, are separate hosts to gpurun (each has its daemon, its /dev/shm and its network)
// but share one kernel and so one set of cores. Placing each host's ranks as if it had the
// cores to itself would bind the first rank of every such host to the same core, and ranks
// that each believe they have a core would spin against each other. gpurun therefore places
// the ranks of hosts that share a kernel as the ranks of one host: each host takes its slice
// of one placement of all of them, and counts as oversubscribed when all of them outnumber
// the cores.
#pragma once

#include <string>
#include <vector>

#include "launcher/mapping.h"

namespace gpurun::launcher {

// The running kernel's boot id (/proc/sys/kernel/random/boot_id): the same on every host that
// shares this machine's kernel. Empty when it cannot be read (then the host is taken to be a
// machine of its own).
std::string machine_id();

// A host's share of the ranks placed together on its machine.
struct CpuShare {
  int first = 0;  // the host's first rank among them
  int ranks = 0;  // how many ranks the machine's hosts run in all (0: the host is alone)
};

// The share of each node of `map`, given each node's machine id (empty: unknown, alone).
// Nodes with the same id share, in node order; a node alone on its machine gets {0, 0}.
std::vector<CpuShare> cpu_shares(const JobMap& map, const std::vector<std::string>& machine_of);

}  // namespace gpurun::launcher
