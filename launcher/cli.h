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

struct Options {
  enum class Action { kRun, kVersion, kHelp, kInfo };
  Action action = Action::kRun;
  std::string info_topic;
  int np = 0;
  // -x: VAR=value to set in the ranks' environment.
  std::vector<std::pair<std::string, std::string>> exports;
  bool tag_output = false;
  std::optional<std::chrono::nanoseconds> timeout;
  BindTo bind_to = BindTo::kAuto;
  std::string program;            // resolved path of the program
  std::vector<std::string> argv;  // argv[0] as the user wrote it, then its arguments
};

// Parses argv (throws UsageError). Resolves the program through PATH and checks that it is
// an executable file, so that nothing is started for a command line that cannot run.
Options parse_command_line(int argc, char** argv);

std::string usage_text();

}  // namespace gpurun::launcher
