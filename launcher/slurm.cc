#include "launcher/slurm.h"

#include <charconv>
#include <cstddef>
#include <optional>

#include "launcher/cli.h"
#include "launcher/params.h"
#include "runtime/base/param.h"

namespace gpurun::launcher {
namespace {

[[noreturn]] void bad(std::string_view variable, std::string_view text, std::string_view why) {
  throw UsageError(std::string(variable) + "='" + std::string(text) + "': " + std::string(why) +
                   " (GPURUN_LAUNCHER_SLURM=false ignores the allocation)");
}

// The top-level pieces of `text`, split at commas outside brackets.
std::vector<std::string_view> pieces(std::string_view text, std::string_view variable) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) bad(variable, text, "a ']' without its '['");
    if (c != ',' || depth > 0) continue;
    if (i == start) bad(variable, text, "an empty entry");
    out.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  if (depth != 0) bad(variable, text, "a '[' without its ']'");
  return out;
}

int number(std::string_view text, std::string_view variable, std::string_view whole) {
  int n = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || n < 0) {
    std::string why(text);
    why.insert(0, 1, '\'').append("' is not a number");
    bad(variable, whole, why);
  }
  return n;
}

// One entry: "prefix[ranges]rest", the first bracket expanded, the rest recursively.
void expand_entry(std::string_view entry, std::string_view variable, std::string_view whole,
                  std::vector<std::string>& out) {
  std::size_t open = entry.find('[');
  if (open == std::string_view::npos) {
    out.emplace_back(entry);
    return;
  }
  std::size_t close = entry.find(']', open);
  std::string prefix(entry.substr(0, open));
  std::string_view ranges = entry.substr(open + 1, close - open - 1);
  std::string_view rest = entry.substr(close + 1);
  for (std::string_view range : pieces(ranges, variable)) {
    std::size_t dash = range.find('-');
    std::string_view first = range.substr(0, dash);
    int low = number(first, variable, whole);
    int high =
        dash == std::string_view::npos ? low : number(range.substr(dash + 1), variable, whole);
    if (high < low) bad(variable, whole, "the range " + std::string(range) + " runs backwards");
    for (int n = low; n <= high; ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < first.size()) digits.insert(0, first.size() - digits.size(), '0');
      expand_entry(prefix + digits + std::string(rest), variable, whole, out);
    }
  }
}

std::optional<std::string> env(const char* name) { return param::external_env(name); }

param::Param<bool> g_slurm(
    "GPURUN_LAUNCHER_SLURM", true,
    "Inside a Slurm allocation (salloc, sbatch; not within srun), run the ranks on its nodes "
    "when neither -H nor --hostfile is given, as many a node as it has tasks there.");
// --overlap: the daemon's step shares the allocation's CPUs with whatever else runs there;
// --mpi=none: the daemon is itself the ranks' PMIx server.
param::Param<std::string> g_slurm_agent(
    "GPURUN_LAUNCHER_SLURM_AGENT",
    "srun --overlap --mpi=none --cpu-bind=none --nodes=1 --ntasks=1 --nodelist={host}",
    "Command that starts gpurun's daemon on a node of the Slurm allocation when --launch-agent "
    "and GPURUN_LAUNCHER_AGENT are not given.",
    param::Level::kAdvanced);

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view text, std::string_view variable) {
  std::vector<std::string> out;
  for (std::string_view entry : pieces(text, variable)) expand_entry(entry, variable, text, out);
  return out;
}

std::vector<int> expand_counts(std::string_view text, std::string_view variable) {
  std::vector<int> out;
  for (std::string_view entry : pieces(text, variable)) {
    std::size_t open = entry.find("(x");
    int count = number(entry.substr(0, open), variable, text);
    int times = 1;
    if (open != std::string_view::npos) {
      if (!entry.ends_with(")")) bad(variable, text, "a '(x' without its ')'");
      times = number(entry.substr(open + 2, entry.size() - open - 3), variable, text);
    }
    out.insert(out.end(), static_cast<std::size_t>(times), count);
  }
  return out;
}

std::vector<HostSpec> slurm_allocation() {
  std::optional<std::string> nodes = env("SLURM_JOB_NODELIST");
  if (!nodes) nodes = env("SLURM_NODELIST");
  if (!nodes || env("SLURM_STEP_ID") || !g_slurm.get()) return {};
  const char* counts_name = "SLURM_TASKS_PER_NODE";
  std::optional<std::string> counts = env(counts_name);
  if (!counts) counts = env(counts_name = "SLURM_JOB_CPUS_PER_NODE");
  std::vector<std::string> names = expand_hostlist(*nodes, "SLURM_JOB_NODELIST");
  std::vector<int> slots = counts ? expand_counts(*counts, counts_name) : std::vector<int>();
  if (counts && slots.size() != names.size())
    bad(counts_name, *counts,
        std::to_string(slots.size()) + " counts for " + std::to_string(names.size()) + " nodes");
  std::optional<std::string> here = env("SLURMD_NODENAME");
  std::vector<HostSpec> hosts;
  for (std::size_t i = 0; i < names.size(); ++i)
    hosts.push_back(HostSpec{.name = names[i],
                             .slots = slots.empty() ? 1 : std::max(1, slots[i]),
                             .local = here && *here == names[i]});
  return hosts;
}

void take_allocation(Options& opts) {
  std::vector<HostSpec> allocation = slurm_allocation();
  if (allocation.size() != 1 || !(allocation[0].local || is_local_host(allocation[0].name))) {
    opts.allocation = std::move(allocation);
    return;
  }
  if (opts.apps.size() == 1 && opts.apps[0].np == 0) opts.apps[0].np = allocation[0].slots;
}

std::string slurm_agent() {
  std::string agent = params::agent().get();
  return params::agent().source() != param::Source::kDefault ? agent : g_slurm_agent.get();
}

}  // namespace gpurun::launcher
