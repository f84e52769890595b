// The gpurun command line.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "launcher/apps.h"
#include "launcher/hosts.h"
#include "launcher/mapping.h"
#include "launcher/output.h"

namespace gpurun::launcher {

// A bad command line: gpurun prints the message on one line and exits with code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// kNuma and kPackage (Open MPI's --bind-to numa and socket/package): each rank is bound to the
// NUMA nodes or packages that hold the cores it would be bound to.
enum class BindTo { kAuto, kCore, kNone, kNuma, kPackage, kHwthread, kL3 };
// Within a host: kAuto is by GPU when the host has GPUs (visible ones), else by core; kNuma,
// kPackage and kL3 spread the ranks over the NUMA nodes, packages or L3 caches (with
// Options::ranks_per_domain, they fill each with that many in turn). Across hosts: kSlot fills
// each host's slots in turn, kNode deals the ranks round robin over the hosts (both place by
// kAuto within a host).
enum class MapBy { kAuto, kGpu, kCore, kNuma, kSlot, kNode, kPackage, kL3 };
// Whether ranks are mapped over a kind of domain of the host (NUMA nodes, packages, L3 caches).
inline bool maps_by_domain(MapBy map_by) {
  return map_by == MapBy::kNuma || map_by == MapBy::kPackage || map_by == MapBy::kL3;
}

struct Options {
  enum class Action { kRun, kVersion, kHelp, kInfo, kExplain, kDaemon, kHostCleanup };
  Action action = Action::kRun;
  std::string info_topic;
  int np = 0;  // every program's ranks; 0 when -np was not given (a run then has 1 rank)
  MapBy map_by = MapBy::kAuto;
  RankBy rank_by = RankBy::kAuto;  // --rank-by: how ranks across hosts are numbered
  int gpus_per_rank = 0;  // 0 when --gpus-per-rank was not given
  // Cores a rank is bound to (launcher/placement.h): --cpus-per-rank N and its spellings, or
  // the ranks' OMP_NUM_THREADS (cpus_from_threads: shrunk where they do not fit, not refused).
  int cpus_per_rank = 0;  // 0: one core
  // --use-hwthread-cpus or --map-by hwthread (Open MPI's): each hardware thread counts as a core.
  bool hwthread_cpus = false;
  bool cpus_from_threads = false;
  // While parsing: the options before the first program that are that program's own (-np, -x,
  // -env, --wdir); parse_command_line moves them into apps[0].
  App first;
  // -genv NAME VALUE: set in every program's ranks (a program's own -x or -env wins).
  std::vector<std::pair<std::string, std::string>> job_exports;
  std::string app_file;  // --app FILE
  OutputSpec output;     // --tag-output, --output-filename, ...
  bool report_bindings = false;  // --report-bindings
  bool display_map = false;      // --display-map
  bool display_allocation = false;  // --display-allocation
  std::optional<std::chrono::nanoseconds> timeout;
  bool stack_traces = false;  // --get-stack-traces: at --timeout, the ranks' stacks first
  int stdin_rank = 0;  // --stdin: the rank that reads gpurun's stdin, kStdinAll or kStdinNone
  BindTo bind_to = BindTo::kAuto;
  // The programs, ':' apart on the command line or one a line of the --app file; none only
  // for --explain without a program.
  std::vector<App> apps;

  // Across hosts (launcher/hosts.h): -H values as given, --hostfile, --npernode,
  // --oversubscribe and --launch-agent (unset: ssh).
  std::vector<std::string> hosts;
  std::string hostfile;
  // --rankfile FILE (launcher/rankfile.h), and each rank's SLOTS from it once the job is mapped
  // (empty: gpurun places the ranks).
  std::string rankfile;
  std::vector<std::string> rank_slots;
  // The Slurm allocation's nodes (launcher/slurm.h), used when no host is given: read while
  // parsing, before gpurun scrubs the environment.
  std::vector<HostSpec> allocation;
  int npernode = 0;  // 0 when --npernode was not given
  // --map-by ppr:N:numa|socket|package|l3cache: N ranks on each such domain of a host (map_by
  // names the kind), so npernode becomes N times the domains of this host (launch.cc).
  int ranks_per_domain = 0;
  // --rank-by numa|socket|package|l3cache: the host's ranks dealt over those domains, bound to
  // one core each unless --bind-to says otherwise (rank_by_domain() makes it map_by).
  MapBy rank_domain = MapBy::kAuto;
  bool oversubscribe = false;
  std::optional<std::string> launch_agent;
  // MPICH's -launcher (-bootstrap): ssh, rsh, slurm or fork ("": gpurun's choice), and
  // -launcher-exec (-bootstrap-exec): the ssh or rsh to run.
  std::string launcher;
  std::string launcher_exec;
  // Open MPI's --prefix DIR: gpurun is DIR/bin/gpurun on the other hosts ("": where it is here).
  std::string prefix;
  // kDaemon and kHostCleanup (started by gpurun itself on a remote host): their arguments.
  std::vector<std::string> internal_args;
};

// Whether the ranks are mapped onto hosts and their slots (launcher/hosts.h): -H, --hostfile, a
// program's own hosts, a Slurm allocation, or --npernode or --map-by ppr:N:OBJECT (alone: N
// ranks on this host, as on each host of a list).
bool maps_by_hosts(const Options& opts);

// The local placement that --map-by asks for (host-level choices place by kAuto on a host).
MapBy local_map_by(MapBy map_by);

// Parses argv (throws UsageError). Resolves each program through PATH (its own -x PATH when
// given) or its --wdir and checks that it is an executable file, so that nothing is started for
// a command line that cannot run. --explain needs no program (one given is checked, never run).
Options parse_command_line(int argc, char** argv);

std::string usage_text();

// The path of an executable file: `name` itself when it holds a '/', else found in PATH.
// Throws UsageError.
std::string find_program(const std::string& name);

}  // namespace gpurun::launcher
