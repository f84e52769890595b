// gpurun's placement options (launcher/cli_args.h).
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "launcher/cli_args.h"
#include "runtime/base/param.h"

namespace gpurun::launcher {
namespace {

// The domains of a host that --map-by OBJECT and ppr:N:OBJECT name (nullopt: none).
std::optional<MapBy> domain_object(std::string_view object) {
  if (object == "numa") return MapBy::kNuma;
  if (object == "socket" || object == "package") return MapBy::kPackage;
  if (object == "l3cache") return MapBy::kL3;
  return std::nullopt;
}

// Open MPI's "ppr:N:node" (--npernode N) and "ppr:N:numa|socket|package|l3cache" (N ranks on
// each such domain of a host).
void parse_ppr(std::string_view text, Options& opts) {
  std::string_view rest = text.substr(4);
  std::size_t colon = rest.find(':');
  std::string_view object = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  std::optional<MapBy> domain = domain_object(object);
  if (object != "node" && !domain)
    throw UsageError("--map-by: '" + std::string(text) +
                     "' is not ppr:N:node, ppr:N:numa, ppr:N:socket, ppr:N:package or "
                     "ppr:N:l3cache (N ranks on each host or each such domain of a host)");
  int n = parse_positive(rest.substr(0, colon), "--map-by ppr");
  if (domain) {
    opts.map_by = *domain;
    opts.ranks_per_domain = n;
  } else {
    opts.npernode = n;
  }
}

MapBy map_by_object(std::string_view object) {
  if (object == "gpu") return MapBy::kGpu;
  if (object == "core") return MapBy::kCore;
  if (object == "slot") return MapBy::kSlot;
  if (object == "node") return MapBy::kNode;
  if (std::optional<MapBy> domain = domain_object(object)) return *domain;
  throw UsageError("--map-by: '" + std::string(object) +
                   "' is not node, slot, numa, socket, package, l3cache, gpu, core, hwthread or "
                   "ppr:N:OBJECT");
}

// Open MPI's modifiers after the object, ':' or ',' apart: PE=N (cores a rank), oversubscribe,
// nooversubscribe.
void parse_map_modifiers(std::string_view mods, Options& opts) {
  for (std::size_t at = 0; at < mods.size();) {
    std::size_t end = std::min(mods.find_first_of(":,", at), mods.size());
    std::string_view mod = mods.substr(at, end - at);
    at = end + 1;
    if (mod.starts_with("PE=") || mod.starts_with("pe="))
      opts.cpus_per_rank = parse_positive(mod.substr(3), "--map-by ...:PE");
    else if (mod == "oversubscribe" || mod == "OVERSUBSCRIBE")
      opts.oversubscribe = true;
    else if (mod == "nooversubscribe" || mod == "NOOVERSUBSCRIBE")
      opts.oversubscribe = false;
    else
      throw UsageError("--map-by: '" + std::string(mod) +
                       "' is not a modifier gpurun takes (PE=N, oversubscribe)");
  }
}

// --map-by OBJECT[:MODIFIERS] or ppr:N:OBJECT[:MODIFIERS].
void parse_map_by(std::string_view text, Options& opts) {
  std::size_t colon = text.find(':');
  if (text.starts_with("ppr:")) {
    std::size_t second = text.find(':', 4);
    colon = second == std::string_view::npos ? second : text.find(':', second + 1);
    parse_ppr(text.substr(0, colon), opts);
  } else if (text.substr(0, colon) == "hwthread") {
    opts.map_by = MapBy::kCore;  // by hardware thread, each a core
    opts.hwthread_cpus = true;
  } else {
    opts.map_by = map_by_object(text.substr(0, colon));
  }
  if (colon != std::string_view::npos) parse_map_modifiers(text.substr(colon + 1), opts);
}

// core, none, numa, socket (package), hwthread, l3cache, or MPICH's core:N (N cores a rank).
void parse_bind(std::string_view text, Options& opts) {
  if (text == "none") {
    opts.bind_to = BindTo::kNone;
  } else if (text == "hwthread") {
    opts.bind_to = BindTo::kHwthread;
  } else if (text == "l3cache") {
    opts.bind_to = BindTo::kL3;
  } else if (text == "numa") {
    opts.bind_to = BindTo::kNuma;
  } else if (text == "socket" || text == "package") {
    opts.bind_to = BindTo::kPackage;
  } else if (text == "core" || text.starts_with("core:")) {
    opts.bind_to = BindTo::kCore;
    if (text.size() > 4) opts.cpus_per_rank = parse_positive(text.substr(5), "--bind-to core");
  } else {
    throw UsageError("--bind-to: '" + std::string(text) +
                     "' is not core, core:N, hwthread, l3cache, numa, socket or none");
  }
}

// Open MPI's --rank-by: slot, core and hwthread number a host's ranks in the order of their
// cores, as gpurun always does; node deals the numbers over the hosts; numa, socket (package)
// and l3cache deal a host's ranks over those domains, one core each (Options::rank_domain).
void parse_rank_by(std::string_view text, Options& opts) {
  if (text == "node") {
    opts.rank_by = RankBy::kNode;
  } else if (text == "slot" || text == "core" || text == "hwthread") {
    opts.rank_by = RankBy::kSlot;
  } else if (std::optional<MapBy> domain = domain_object(text)) {
    opts.rank_domain = *domain;
  } else {
    throw UsageError("--rank-by: '" + std::string(text) +
                     "' is not slot, node, core, hwthread, numa, socket, package or l3cache");
  }
}

}  // namespace

int parse_positive(std::string_view text, std::string_view option) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || n <= 0)
    throw UsageError(std::string(option) + ": '" + std::string(text) +
                     "' is not a positive number");
  return n;
}

bool parse_placement_option(int argc, char** argv, int& i, std::string_view arg, Options& opts) {
  std::string_view name = arg.substr(0, arg.find('='));
  if (matches(arg, "--bind-to") || matches(arg, "-bind-to")) {
    parse_bind(take_value(argc, argv, i, arg, name), opts);
  } else if (matches(arg, "--map-by")) {
    parse_map_by(take_value(argc, argv, i, arg, name), opts);
  } else if (matches(arg, "--rank-by")) {
    parse_rank_by(take_value(argc, argv, i, arg, name), opts);
  } else if (arg == "--use-hwthread-cpus") {
    opts.hwthread_cpus = true;
  } else if (matches(arg, "--cpus-per-rank") || matches(arg, "--cpus-per-proc")) {
    opts.cpus_per_rank = parse_positive(take_value(argc, argv, i, arg, name), name);
  } else {
    return false;
  }
  return true;
}

void rank_by_domain(Options& opts) {
  if (opts.rank_domain == MapBy::kAuto) return;
  if (opts.map_by != MapBy::kAuto && opts.map_by != MapBy::kSlot && opts.map_by != MapBy::kCore)
    throw UsageError(
        "--rank-by numa, socket or l3cache deals each host's ranks over those domains, one core "
        "each: not with --map-by node, gpu, numa, socket, l3cache or ppr (give one of them)");
  opts.map_by = opts.rank_domain;
  if (opts.bind_to == BindTo::kAuto) opts.bind_to = BindTo::kCore;
}

void threads_per_rank(Options& opts) {
  if (opts.cpus_per_rank > 0) return;
  std::optional<std::string> value = param::external_env("OMP_NUM_THREADS");
  const App& first = opts.apps.empty() ? opts.first : opts.apps[0];
  for (const auto& [name, exported] : first.exports)
    if (name == "OMP_NUM_THREADS") value = exported;
  if (!value) return;
  // A list ("8,4": nested levels) starts with the outermost team's size.
  int threads = 0;
  auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), threads);
  if (ec != std::errc() || threads <= 1) return;
  opts.cpus_per_rank = threads;
  opts.cpus_from_threads = true;
}

}  // namespace gpurun::launcher
