// The gpurun command line.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpurun::launcher {

// A bad command line: gpurun prints the message on one line and exits with code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class BindTo { kAuto, kCore, kNone };
// Within a host: kAuto is by GPU when the host has GPUs (visible ones), else by core; kNuma
// spreads the ranks over the NUMA nodes. Across hosts: kSlot fills each host's slots in turn,
// kNode deals the ranks round robin over the hosts (both place by kAuto within a host).
enum class MapBy { kAuto, kGpu, kCore, kNuma, kSlot, kNode };

struct Options {
  enum class Action { kRun, kVersion, kHelp, kInfo, kExplain, kDaemon, kHostCleanup };
  Action action = Action::kRun;
  std::string info_topic;
  int np = 0;  // 0 when -np was not given (a run then has 1 rank)
  MapBy map_by = MapBy::kAuto;
  int gpus_per_rank = 0;  // 0 when --gpus-per-rank was not given
  // -x: VAR=value to set in the ranks' environment.
  std::vector<std::pair<std::string, std::string>> exports;
  bool tag_output = false;
  std::optional<std::chrono::nanoseconds> timeout;
  BindTo bind_to = BindTo::kAuto;
  std::string program;            // resolved path of the program (may be empty for --explain)
  std::vector<std::string> argv;  // argv[0] as the user wrote it, then its arguments

  // Across hosts (launcher/hosts.h): -H values as given, --hostfile, --npernode,
  // --oversubscribe and --launch-agent (unset: ssh).
  std::vector<std::string> hosts;
  std::string hostfile;
  int npernode = 0;  // 0 when --npernode was not given
  bool oversubscribe = false;
  std::optional<std::string> launch_agent;
  // kDaemon and kHostCleanup (started by gpurun itself on a remote host): their arguments.
  std::vector<std::string> internal_args;
};

// The local placement that --map-by asks for (host-level choices place by kAuto on a host).
MapBy local_map_by(MapBy map_by);

// Parses argv (throws UsageError). Resolves the program through PATH and checks that it is
// an executable file, so that nothing is started for a command line that cannot run.
// --explain needs no program (one given is checked, never run).
Options parse_command_line(int argc, char** argv);

std::string usage_text();

// The path of an executable file: `name` itself when it holds a '/', else found in PATH.
// Throws UsageError.
std::string find_program(const std::string& name);

}  // namespace gpurun::launcher
