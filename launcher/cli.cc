#include "launcher/cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

#include "runtime/base/param.h"

namespace gpurun::launcher {
namespace {

int parse_np(std::string_view text) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw UsageError("-np: '" + std::string(text) + "' is not a number of ranks");
  if (n <= 0) throw UsageError("-np: needs at least 1 rank, got " + std::string(text));
  return n;
}

std::chrono::nanoseconds parse_timeout(std::string_view text) {
  param::Duration d{};
  if (!param::Traits<param::Duration>::parse(text, d).ok() || d.count() <= 0)
    throw UsageError("--timeout: '" + std::string(text) +
                     "' is not a positive time (seconds, or e.g. 500ms, 2m)");
  return d;
}

std::pair<std::string, std::string> parse_export(std::string_view text) {
  auto eq = text.find('=');
  std::string name(text.substr(0, eq));
  if (name.empty()) throw UsageError("-x: '" + std::string(text) + "' names no variable");
  if (eq != std::string_view::npos) return {name, std::string(text.substr(eq + 1))};
  auto value = param::external_env(name.c_str());
  if (!value) throw UsageError("-x " + name + ": " + name + " is not set in the environment");
  return {name, *value};
}

MapBy parse_map_by(std::string_view text) {
  if (text == "gpu") return MapBy::kGpu;
  if (text == "core") return MapBy::kCore;
  throw UsageError("--map-by: '" + std::string(text) + "' is not gpu or core");
}

int parse_gpus_per_rank(std::string_view text) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || n <= 0)
    throw UsageError("--gpus-per-rank: '" + std::string(text) + "' is not a positive number");
  return n;
}

BindTo parse_bind(std::string_view text) {
  if (text == "core") return BindTo::kCore;
  if (text == "none") return BindTo::kNone;
  throw UsageError("--bind-to: '" + std::string(text) + "' is not core or none");
}

bool is_executable_file(const std::string& path) {
  struct stat st;
  // access() alone says yes to root for any file with one x bit; ask for one explicitly.
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0 &&
         access(path.c_str(), X_OK) == 0;
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    struct stat st;
    if (stat(name.c_str(), &st) != 0) throw UsageError(name + ": no such file");
    if (!is_executable_file(name)) throw UsageError(name + ": not an executable file");
    return name;
  }
  std::string path = param::external_env("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::string_view rest = path;
  while (true) {
    auto colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  throw UsageError(name + ": program not found in PATH");
}

// Takes the value of an option: "--opt value" or "--opt=value".
std::string_view take_value(int argc, char** argv, int& i, std::string_view arg,
                            std::string_view name) {
  if (arg.size() > name.size() && arg[name.size()] == '=') return arg.substr(name.size() + 1);
  if (i + 1 >= argc) throw UsageError(std::string(name) + " needs a value");
  return argv[++i];
}

bool matches(std::string_view arg, std::string_view name) {
  return arg == name ||
         (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=');
}

// Handles one option; returns false when `arg` is not an option (the program starts here).
bool parse_option(int argc, char** argv, int& i, Options& opts) {
  std::string_view arg = argv[i];
  if (arg == "--version" || arg == "-V")
    opts.action = Options::Action::kVersion;
  else if (arg == "--help" || arg == "-h")
    opts.action = Options::Action::kHelp;
  else if (matches(arg, "--info")) {
    opts.action = Options::Action::kInfo;
    opts.info_topic = take_value(argc, argv, i, arg, "--info");
  } else if (matches(arg, "-np") || matches(arg, "-n") || matches(arg, "--np")) {
    std::string_view name = arg.substr(0, arg.find('='));
    opts.np = parse_np(take_value(argc, argv, i, arg, name));
  } else if (matches(arg, "-x")) {
    opts.exports.push_back(parse_export(take_value(argc, argv, i, arg, "-x")));
  } else if (arg == "--tag-output") {
    opts.tag_output = true;
  } else if (matches(arg, "--timeout")) {
    opts.timeout = parse_timeout(take_value(argc, argv, i, arg, "--timeout"));
  } else if (matches(arg, "--bind-to")) {
    opts.bind_to = parse_bind(take_value(argc, argv, i, arg, "--bind-to"));
  } else if (matches(arg, "--map-by")) {
    opts.map_by = parse_map_by(take_value(argc, argv, i, arg, "--map-by"));
  } else if (matches(arg, "--gpus-per-rank")) {
    opts.gpus_per_rank = parse_gpus_per_rank(take_value(argc, argv, i, arg, "--gpus-per-rank"));
  } else if (arg == "--explain") {
    opts.action = Options::Action::kExplain;
  } else if (arg.starts_with("-") && arg != "-") {
    throw UsageError("unknown option '" + std::string(arg) + "' (see gpurun --help)");
  } else {
    return false;
  }
  return true;
}

}  // namespace

Options parse_command_line(int argc, char** argv) {
  Options opts;
  int i = 1;
  for (; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      ++i;
      break;
    }
    if (!parse_option(argc, argv, i, opts)) break;
    if (opts.action != Options::Action::kRun && opts.action != Options::Action::kExplain)
      return opts;
  }
  if (opts.map_by == MapBy::kCore && opts.gpus_per_rank > 0)
    throw UsageError("--gpus-per-rank needs --map-by gpu (or no --map-by), not --map-by core");
  bool explain = opts.action == Options::Action::kExplain;
  if (i >= argc) {
    if (explain) return opts;
    throw UsageError("no program to run (usage: gpurun -np N program [args])");
  }
  if (opts.np == 0 && !explain) opts.np = 1;
  opts.program = resolve_program(argv[i]);
  opts.argv.assign(argv + i, argv + argc);
  return opts;
}

std::string usage_text() {
  return R"(usage: gpurun [options] [--] program [args...]
       gpurun --explain [-np N] [placement options] [program [args...]]

Starts N copies (ranks) of an MPI program on this host and serves them as their PMIx server.

options:
  -np N, -n N          number of ranks (default 1)
  -x VAR[=value]       set VAR in the ranks' environment (its current value without '=')
  --tag-output         prefix every output line with [rank]
  --timeout T          end the job after T (seconds, or 500ms, 2m); exit code 124
  --bind-to core|none  without GPUs, bind each rank to one core (default: core when the
                       ranks fit the cores, none when there are more ranks than cores); with
                       GPUs, ranks are bound to the CPUs of their GPU's NUMA node, or to one
                       core of it with --bind-to core
  --map-by gpu|core    gpu: give each rank a GPU, round robin over the GPUs in PCI bus order,
                       consecutive ranks sharing one when there are more ranks than GPUs (the
                       default when the host has GPUs); core: no GPU placement
  --gpus-per-rank N    give each rank N GPUs (an error when the host has too few)
  --explain            print the placement, the GPU/NIC topology matrix and the path chosen
                       between every pair of ranks for host and device buffers, then exit
                       without running the program (-np defaults to one rank per GPU)
  --info params        list every knob: value, default, source and doc
  --version            print the version
  --help               print this help
  --                   end of options

Each rank placed on a GPU is told its GPU (PCI bus id) and nearest NIC through PMIx
(gpurun.gpus, gpurun.nic); CUDA_VISIBLE_DEVICES is left as it is, so that every GPU stays
visible for CUDA IPC. GPURUN_TOPO_FILE=topology.xml places the ranks as on that machine.

Output is forwarded line by line; stdin goes to rank 0. When a rank fails (non-zero exit, a
signal, MPI_Abort) the other ranks are ended and gpurun exits with the failing rank's code
(128+signal for a signal). Knobs are environment variables; see gpurun --info params.
)";
}

}  // namespace gpurun::launcher
