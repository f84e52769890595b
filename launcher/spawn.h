// Starting one rank: everything is prepared in the parent, so the child, forked from a
// process that has threads (libpmix's), only makes async-signal-safe calls before execve.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "runtime/topo/cpu_set.h"

namespace gpurun::launcher {

struct RankCommand {
  std::string program;            // path to execute
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // "NAME=value"
  std::string cwd;                // its working directory; empty: the launcher's
  std::optional<topo::CpuSet> binding;
  // Sent to the process when gpurun dies. A launch agent gets SIGTERM, so that the daemon it
  // runs can clean its host up.
  int death_signal = SIGKILL;
};

// The parent's ends of a started rank's pipes (-1 when absent).
struct RankPipes {
  int stdout_read = -1;
  int stderr_read = -1;
  int stdin_write = -1;  // rank 0 only
};

// Forks and execs `command` as its own process group, with stdout/stderr to new pipes, stdin
// from a new pipe (`with_stdin`) or /dev/null, signals unblocked and SIGPIPE at default, bound
// to its CPUs, and set to receive command.death_signal if gpurun dies. Throws std::runtime_error
// when the fork or the pipes fail; a failing exec makes the rank exit with 127.
pid_t spawn_rank(const RankCommand& command, bool with_stdin, RankPipes& pipes);

}  // namespace gpurun::launcher
