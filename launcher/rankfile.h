// Open MPI's --rankfile FILE (-rf FILE): each rank's host and the CPUs it is bound to, one rank a
// line:
//
//   rank N=HOST slot=SLOTS
//
// HOST is a host's name or "+nK", the K-th host (from 0) of the job's hosts (-H, --hostfile, a
// Slurm allocation); a name the hosts do not list joins the job. SLOTS are logical indices of
// the host's cores ("1-2", "0,3"), or of cores within a socket ("1:0-2": cores 0 to 2 of
// socket 1), several of those ';' apart ("0:0-1;1:0-1"), or "*" for every core. '#' starts a
// comment. The file names every rank of the job once (its line count is -np when -np is not
// given). A host's SLOTS are checked against its own topology, where its ranks start.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/hosts.h"
#include "launcher/mapping.h"
#include "launcher/plan.h"
#include "runtime/topo/topology.h"

namespace gpurun::launcher {

struct RankfileEntry {
  std::string host;
  std::string slots;
  int line = 0;  // where it stands in the file, for errors
};

struct Rankfile {
  std::string path;                    // as given, for errors
  std::vector<RankfileEntry> entries;  // by rank
};

// A rankfile's text; errors (UsageError) read "<file>:<line>: <what>".
Rankfile parse_rankfile_text(std::string_view text, const std::string& file);
// Throws UsageError when the file cannot be read or has an error.
Rankfile read_rankfile(const std::string& path);

// The job's map: `np` ranks (0: every rank of the file) each on its host, `hosts` (merged)
// resolving "+nK". Throws UsageError naming the file for a rank it lacks or an unknown +nK.
JobMap map_rankfile(const Rankfile& rankfile, const std::vector<HostSpec>& hosts, int np);

// The OS indices of the PUs that `slots` names on `topology`. Throws UsageError naming the
// socket or core that is not there.
topo::CpuSet slot_cpus(const topo::Topology& topology, std::string_view slots);

// Binds the ranks of a host's plan (`ranks`: their job ranks, in the plan's order) to their
// SLOTS (`slots`: every job rank's, none without a rankfile). Throws UsageError naming the rank
// and what its host lacks.
void bind_to_slots(Plan& plan, const std::vector<int>& ranks,
                   const std::vector<std::string>& slots);

}  // namespace gpurun::launcher
