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
// kAuto: by GPU when the host has GPUs (visible ones), else by core.
enum class MapBy { kAuto, kGpu, kCore };

struct Options {
  enum class Action { kRun, kVersion, kHelp, kInfo, kExplain };
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
};

// Parses argv (throws UsageError). Resolves the program through PATH and checks that it is
// an executable file, so that nothing is started for a command line that cannot run.
// --explain needs no program (one given is checked, never run).
Options parse_command_line(int argc, char** argv);

std::string usage_text();

}  // namespace gpurun::launcher
