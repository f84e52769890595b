// The two ways an option of gpurun's command line takes its value, shared by its parsers.
#pragma once

#include <string>
#include <string_view>

#include "launcher/cli.h"

namespace gpurun::launcher {

// Whether `arg` is option `name`, alone or as "name=value".
inline bool matches(std::string_view arg, std::string_view name) {
  return arg == name ||
         (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=');
}

// Takes the value of an option: "--opt value" or "--opt=value".
inline std::string_view take_value(int argc, char** argv, int& i, std::string_view arg,
                                   std::string_view name) {
  if (arg.size() > name.size() && arg[name.size()] == '=') return arg.substr(name.size() + 1);
  if (i + 1 >= argc) throw UsageError(std::string(name) + " needs a value");
  return argv[++i];
}

// `text` as a number above 0; else a UsageError naming `option`.
int parse_positive(std::string_view text, std::string_view option);

// The placement options (launcher/placement.h): --bind-to core|none|core:N, --map-by (with
// Open MPI's ppr:N:node and modifiers PE=N and oversubscribe), --cpus-per-rank N, and their
// spellings. Returns false when `arg` is none of them.
bool parse_placement_option(int argc, char** argv, int& i, std::string_view arg, Options& opts);

// Without --cpus-per-rank: each rank takes as many cores as the first program's OMP_NUM_THREADS
// (its -x, else gpurun's environment) asks, where they fit (Options::cpus_from_threads).
void threads_per_rank(Options& opts);
// --rank-by numa|socket|package|l3cache: becomes the host's mapping (with --bind-to core unless
// given); a UsageError beside another mapping of the ranks within the host.
void rank_by_domain(Options& opts);

// The options that decide where the ranks' output goes (launcher/output.h): --tag-output (-l,
// -prepend-rank), --timestamp-output, --merge-stderr-to-stdout, --output-filename
// DIR[:nocopy,nojobid]. Returns false when `arg` is none of them.
bool parse_output_option(int argc, char** argv, int& i, std::string_view arg, OutputSpec& out);
// --launch-agent CMD, --prefix DIR, and MPICH's -launcher/-bootstrap NAME and
// -launcher-exec/-bootstrap-exec PATH (cli_agent.cc).
bool parse_agent_option(int argc, char** argv, int& i, std::string_view arg, Options& opts);
// --stdin RANK|all|none (Open MPI's): which rank reads gpurun's stdin (launcher/stdin_fan.h).
bool parse_stdin_option(int argc, char** argv, int& i, std::string_view arg, int& stdin_rank);

}  // namespace gpurun::launcher
