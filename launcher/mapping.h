// Which host each rank of a job runs on (the placement within a host is placement.h's).
//
// Each host offers its slots (or --npernode N of them). By slot (the default), ranks fill the
// first host's slots, then the next host's; by node, they are dealt one per host in turn,
// skipping full hosts. Ranks are then numbered as they were dealt, unless --rank-by says
// otherwise: by slot, host by host (a host's ranks consecutive); by node, one per host in turn,
// skipping hosts whose ranks are all numbered (Open MPI's --map-by node --rank-by slot, and
// --map-by slot --rank-by node). More ranks than slots is an error unless oversubscription is
// allowed; the extra ranks are then dealt round robin over all hosts. Hosts that get no rank are
// not part of the job. Node ids number the hosts that have ranks, in the order they were given. In
// a job of several programs (apps.h), each program's ranks go, in program order, to the slots its
// hosts have left (its own -H hosts, else the job's).
#pragma once

#include <string>
#include <vector>

#include "launcher/hosts.h"

namespace gpurun::launcher {

struct NodeRanks {
  std::string name;
  bool local = false;
  std::vector<int> ranks;  // job ranks on this node, ascending
};

struct JobMap {
  std::vector<NodeRanks> nodes;  // by node id
  std::vector<int> node_of;      // node id of each rank

  int size() const { return static_cast<int>(node_of.size()); }
  // The node whose ranks gpurun runs itself; -1 when every node is remote.
  int local_node() const;
  bool spans_hosts() const;  // some node is not this host
};

// --rank-by: kAuto numbers the ranks as they were mapped.
enum class RankBy { kAuto, kSlot, kNode };

struct MapRequest {
  int np = 0;  // 0: one rank per slot
  bool by_node = false;
  RankBy rank_by = RankBy::kAuto;
  int npernode = 0;  // 0: the hosts' slots
  bool oversubscribe = false;
  std::string npernode_option;  // what asked for npernode, in errors ("--npernode N" when empty)
};

// Throws UsageError when the ranks do not fit the slots (and oversubscription is not allowed).
JobMap map_ranks(const std::vector<HostSpec>& hosts, const MapRequest& request);

// One program's part of a job of several: its ranks and hosts.
struct ProgramHosts {
  int np = 0;                   // 0: one rank per slot of its hosts (a job's sole program)
  std::vector<HostSpec> hosts;  // its own -H hosts; empty: the job's
  std::string name;             // how errors name it ("program 2 (after ':')")
};

// `hosts`: the job's (-H, --hostfile; merged). A program's own hosts that the job does not name
// join the job with their slots; those it names share the job's slots. Throws UsageError when
// a program's ranks do not fit its hosts' slots left (and oversubscription is not allowed).
JobMap map_programs(std::vector<HostSpec> hosts, const std::vector<ProgramHosts>& programs,
                    const MapRequest& request);

// The map of ranks on `hosts` (host_of: each rank's index into hosts); hosts without a rank are
// left out.
JobMap map_onto(const std::vector<HostSpec>& hosts, const std::vector<int>& host_of);

// The map of a job on this host alone: `np` ranks on one local node named `hostname`.
JobMap single_host_map(int np, const std::string& hostname);

}  // namespace gpurun::launcher
