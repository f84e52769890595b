// How gpurun starts its daemons on other hosts: --launch-agent, Open MPI's --prefix, and
// MPICH's spellings (launcher/cli_args.h).
#include <string>

#include "launcher/cli_args.h"

namespace gpurun::launcher {

bool parse_agent_option(int argc, char** argv, int& i, std::string_view arg, Options& opts) {
  std::string_view name = arg.substr(0, arg.find('='));
  if (matches(arg, "--launch-agent")) {
    std::string agent(take_value(argc, argv, i, arg, name));
    if (agent.find_first_not_of(" \t") == std::string::npos)
      throw UsageError("--launch-agent needs a command (e.g. 'ssh' or 'ip netns exec {host}')");
    opts.launch_agent = agent;
  } else if (matches(arg, "-launcher") || matches(arg, "-bootstrap")) {
    std::string launcher(take_value(argc, argv, i, arg, name));
    if (launcher != "ssh" && launcher != "rsh" && launcher != "slurm" && launcher != "fork")
      throw UsageError(std::string(name) + " " + launcher +
                       ": gpurun starts other hosts with ssh or rsh (any command: "
                       "--launch-agent CMD) or srun (slurm); fork runs every rank here");
    opts.launcher = launcher;
  } else if (matches(arg, "--prefix") || matches(arg, "-prefix")) {
    opts.prefix = std::string(take_value(argc, argv, i, arg, name));
    if (opts.prefix.empty() || opts.prefix[0] != '/')
      throw UsageError(std::string(name) +
                       " needs an absolute directory (where gpurun is "
                       "installed on the other hosts: DIR/bin/gpurun)");
  } else if (matches(arg, "-launcher-exec") || matches(arg, "-bootstrap-exec")) {
    opts.launcher_exec = std::string(take_value(argc, argv, i, arg, name));
    if (opts.launcher_exec.empty()) throw UsageError(std::string(name) + " needs a program");
  } else {
    return false;
  }
  return true;
}

}  // namespace gpurun::launcher
