#include "launcher/cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string_view>

#include "launcher/cli_args.h"
#include "launcher/hosts.h"
#include "launcher/program_check.h"
#include "launcher/slurm.h"
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

// The value of variable `name` here, for `option`; nullopt with a warning when it is not set
// (Open MPI's mpirun warns and goes on, MPICH's mpiexec goes on: job scripts name variables
// that only some environments set).
std::optional<std::string> exported_value(const std::string& name, std::string_view option) {
  auto value = param::external_env(name.c_str());
  if (!value)
    std::fprintf(stderr, "gpurun: warning: %.*s %s: %s is not set here; the ranks do not get it\n",
                 static_cast<int>(option.size()), option.data(), name.c_str(), name.c_str());
  return value;
}

// -x NAME=VALUE, or -x NAME with its value here (nothing when it is not set).
void add_export(std::string_view text, std::vector<std::pair<std::string, std::string>>& out) {
  auto eq = text.find('=');
  std::string name(text.substr(0, eq));
  if (name.empty()) throw UsageError("-x: '" + std::string(text) + "' names no variable");
  if (eq != std::string_view::npos) {
    out.emplace_back(name, std::string(text.substr(eq + 1)));
  } else if (auto value = exported_value(name, "-x")) {
    out.emplace_back(name, *value);
  }
}

// A -H value, checked (launcher/hosts.h).
std::string parse_hosts(std::string_view text, std::string_view option) {
  if (text.empty()) throw UsageError(std::string(option) + " needs a host list");
  parse_host_list(text);
  return std::string(text);
}

// A working directory, made absolute against gpurun's own.
std::string parse_wdir(std::string_view text, std::string_view option) {
  if (text.empty()) throw UsageError(std::string(option) + " needs a directory");
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(std::filesystem::path(text), ec);
  if (ec) throw UsageError(std::string(option) + " " + std::string(text) + ": " + ec.message());
  return dir.lexically_normal().string();
}

bool is_executable_file(const std::string& path) {
  struct stat st;
  // access() alone says yes to root for any file with one x bit; ask for one explicitly.
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0 &&
         access(path.c_str(), X_OK) == 0;
}

// `name` as an executable file: itself when it holds a '/' (under `wdir` when relative and wdir
// is given), else the first in `path` (a PATH value).
std::string resolve_program(const std::string& name, const std::string& path,
                            const std::string& wdir = {}) {
  if (name.find('/') != std::string::npos) {
    std::string file = name.starts_with("/") || wdir.empty() ? name : wdir + "/" + name;
    struct stat st;
    if (stat(file.c_str(), &st) != 0) throw UsageError(file + ": no such file");
    if (!is_executable_file(file)) throw UsageError(file + ": not an executable file");
    return file;
  }
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

std::string gpurun_path() {
  return param::external_env("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
}

bool parse_host_option(int argc, char** argv, int& i, std::string_view arg, Options& opts);

// --hostfile, and the peers' spellings of it.
bool is_hostfile_option(std::string_view arg) {
  return matches(arg, "--hostfile") || matches(arg, "--machinefile") || matches(arg, "-hostfile") ||
         matches(arg, "-machinefile") || matches(arg, "-f");
}

// The file name an option takes.
std::string take_file(int argc, char** argv, int& i, std::string_view arg) {
  std::string_view name = arg.substr(0, arg.find('='));
  std::string file(take_value(argc, argv, i, arg, name));
  if (file.empty()) throw UsageError(std::string(name) + " needs a file name");
  return file;
}

// --wdir, and the peers' spellings of it (MPICH's -wdir, Open MPI's --wd and -wd).
bool is_wdir_option(std::string_view arg) {
  return matches(arg, "--wdir") || matches(arg, "-wdir") || matches(arg, "--wd") ||
         matches(arg, "-wd");
}
bool parse_env_option(int argc, char** argv, int& i, std::string_view arg, Options& opts);
bool parse_program_option(int argc, char** argv, int& i, App& app);
bool parse_last_option(std::string_view arg, Options& opts);

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
  } else if (parse_program_option(argc, argv, i, opts.first)) {
    // the first program's -np, -x, -env or --wdir
  } else if (matches(arg, "--app") || matches(arg, "--configfile") || matches(arg, "-configfile")) {
    std::string_view name = arg.substr(0, arg.find('='));
    opts.app_file = take_value(argc, argv, i, arg, name);
    if (opts.app_file.empty()) throw UsageError(std::string(name) + " needs a file name");
  } else if (parse_output_option(argc, argv, i, arg, opts.output) ||
             parse_stdin_option(argc, argv, i, arg, opts.stdin_rank)) {
    // where the ranks' output goes, who reads gpurun's input
  } else if (arg == "--report-bindings") {
    opts.report_bindings = true;
  } else if (arg == "--display-map") {
    opts.display_map = true;
  } else if (arg == "--display-allocation") {
    opts.display_allocation = true;
  } else if (matches(arg, "--timeout")) {
    opts.timeout = parse_timeout(take_value(argc, argv, i, arg, "--timeout"));
  } else if (arg == "--get-stack-traces") {
    opts.stack_traces = true;
  } else if (parse_placement_option(argc, argv, i, arg, opts)) {
    // --bind-to, --map-by, --cpus-per-rank and their spellings
  } else if (matches(arg, "--gpus-per-rank")) {
    opts.gpus_per_rank =
        parse_positive(take_value(argc, argv, i, arg, "--gpus-per-rank"), "--gpus-per-rank");
  } else if (!parse_host_option(argc, argv, i, arg, opts) &&
             !parse_env_option(argc, argv, i, arg, opts)) {
    return parse_last_option(arg, opts);
  }
  return true;
}

// "-env NAME VALUE" (and -genv) as MPICH's mpiexec takes them: two words after the option.
std::pair<std::string, std::string> take_env(int argc, char** argv, int& i, std::string_view arg) {
  if (i + 2 >= argc) throw UsageError(std::string(arg) + " needs a name and a value");
  std::string name = argv[i + 1];
  if (name.empty() || name.find('=') != std::string::npos)
    throw UsageError(std::string(arg) + ": '" + name + "' is no variable name");
  i += 2;
  return {name, argv[i]};
}

// "-envlist A,B": the named variables with their values here (those set).
std::vector<std::pair<std::string, std::string>> take_env_list(int argc, char** argv, int& i,
                                                               std::string_view arg) {
  std::string_view list = take_value(argc, argv, i, arg, arg);
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t end = std::min(list.find(',', at), list.size());
    names.emplace_back(list.substr(at, end - at));
    at = end + 1;
    if (names.back().empty())
      throw UsageError(std::string(arg) + ": '" + std::string(list) + "' names an empty variable");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& name : names)
    if (auto value = exported_value(name, arg)) out.emplace_back(name, *value);
  return out;
}

// MPICH's spellings for every program's environment: -genv NAME VALUE, -genvlist A,B, and
// -genvall (the whole environment, as gpurun passes always). Returns false for anything else.
bool parse_env_option(int argc, char** argv, int& i, std::string_view arg, Options& opts) {
  if (arg == "-genv") {
    opts.job_exports.push_back(take_env(argc, argv, i, arg));
  } else if (arg == "-genvlist") {
    auto more = take_env_list(argc, argv, i, arg);
    opts.job_exports.insert(opts.job_exports.end(), more.begin(), more.end());
  } else if (arg != "-genvall") {
    return false;
  }
  return true;
}

// The options of jobs across hosts; returns false when `arg` is none of them.
bool parse_host_option(int argc, char** argv, int& i, std::string_view arg, Options& opts) {
  if (matches(arg, "-H") || matches(arg, "--host") || matches(arg, "-hosts")) {
    std::string_view name = arg.substr(0, arg.find('='));
    opts.hosts.push_back(parse_hosts(take_value(argc, argv, i, arg, name), name));
  } else if (is_hostfile_option(arg)) {
    opts.hostfile = take_file(argc, argv, i, arg);
  } else if (matches(arg, "--rankfile") || matches(arg, "-rf")) {
    opts.rankfile = take_file(argc, argv, i, arg);
  } else if (matches(arg, "--npernode") || matches(arg, "-ppn") || matches(arg, "-N")) {
    std::string_view name = arg.substr(0, arg.find('='));
    opts.npernode = parse_positive(take_value(argc, argv, i, arg, name), name);
  } else if (arg == "--oversubscribe") {
    opts.oversubscribe = true;
  } else if (arg == "--allow-run-as-root") {
    // Open MPI's: gpurun runs as any user; scripts written for Open MPI pass it.
  } else {
    return parse_agent_option(argc, argv, i, arg, opts);
  }
  return true;
}

bool parse_last_option(std::string_view arg, Options& opts) {
  if (arg == "--explain") {
    opts.action = Options::Action::kExplain;
  } else if (matches(arg, "--mca") || matches(arg, "-mca") || matches(arg, "--gmca") ||
             matches(arg, "-gmca")) {
    throw UsageError(std::string(arg) + ": gpurun has no MCA parameters (Open MPI's); its " +
                     "knobs are GPURUN_* environment variables, listed by gpurun --info params");
  } else if (arg.starts_with("-") && arg != "-") {
    throw UsageError("unknown option '" + std::string(arg) + "' (see gpurun --help)");
  } else {
    return false;
  }
  return true;
}

// A program's own options, wherever it is: -np, -x, -env NAME VALUE, -envlist A,B, -envall
// (the whole environment, as gpurun passes always), --wdir. Returns false for anything else.
bool parse_program_option(int argc, char** argv, int& i, App& app) {
  std::string_view arg = argv[i];
  std::string_view name = arg.substr(0, arg.find('='));
  if (matches(arg, "-np") || matches(arg, "-n") || matches(arg, "--np") || matches(arg, "-c")) {
    app.np = parse_np(take_value(argc, argv, i, arg, name));
  } else if (matches(arg, "-x")) {
    add_export(take_value(argc, argv, i, arg, "-x"), app.exports);
  } else if (arg == "-env") {
    app.exports.push_back(take_env(argc, argv, i, arg));
  } else if (arg == "-envlist") {
    auto more = take_env_list(argc, argv, i, arg);
    app.exports.insert(app.exports.end(), more.begin(), more.end());
  } else if (is_wdir_option(arg)) {
    app.wdir = parse_wdir(take_value(argc, argv, i, arg, name), name);
  } else if (arg != "-envall") {
    return false;
  }
  return true;
}

// The options of a program after a ':' or on an --app line: its own, and its hosts (which,
// before the first program, are the job's).
bool parse_app_option(int argc, char** argv, int& i, App& app) {
  if (parse_program_option(argc, argv, i, app)) return true;
  std::string_view arg = argv[i];
  std::string_view name = arg.substr(0, arg.find('='));
  if (matches(arg, "-H") || matches(arg, "--host") || matches(arg, "-hosts"))
    app.hosts.emplace_back(parse_hosts(take_value(argc, argv, i, arg, name), name));
  else if (is_hostfile_option(arg))
    app.hostfile = take_file(argc, argv, i, arg);
  else
    return false;
  return true;
}

// A program after the first, or one of --app: its own options, then the program and its
// arguments. `where` names it in errors.
App parse_app(std::vector<std::string> words, const std::string& where) {
  std::vector<char*> args;
  for (std::string& word : words) args.push_back(word.data());
  int n = static_cast<int>(args.size());
  App app;
  int i = 0;
  try {
    for (; i < n; ++i) {
      std::string_view arg = args[static_cast<std::size_t>(i)];
      if (arg == "--") {
        ++i;
        break;
      }
      if (!arg.starts_with("-") || arg == "-") break;
      if (parse_app_option(n, args.data(), i, app)) continue;
      Options whole_job;
      bool known = false;
      try {
        known = parse_option(n, args.data(), i, whole_job);
      } catch (const UsageError&) {
      }
      throw UsageError(known ? "'" + std::string(arg.substr(0, arg.find('='))) +
                                   "' applies to the whole job: give it before the first program"
                             : "unknown option '" + std::string(arg) + "'");
    }
  } catch (const UsageError& e) {
    throw UsageError(where + ": " + e.what());
  }
  if (i >= n) throw UsageError(where + ": no program to run");
  app.argv.assign(words.begin() + i, words.end());
  return app;
}

// The programs from argv[i] on: the first (its options were the job's), then one after each ':'.
void add_programs(int argc, char** argv, int i, Options& opts, std::vector<std::string>& names) {
  int end = i;
  while (end < argc && std::string_view(argv[end]) != ":") ++end;
  if (end == i) throw UsageError("no program before the first ':'");
  opts.first.argv.assign(argv + i, argv + end);
  opts.apps.push_back(std::exchange(opts.first, App{}));
  names.emplace_back("program 1");
  while (end < argc) {
    int start = end + 1;
    for (end = start; end < argc && std::string_view(argv[end]) != ":";) ++end;
    names.push_back("program " + std::to_string(opts.apps.size() + 1) + " (after ':')");
    opts.apps.push_back(parse_app({argv + start, argv + end}, names.back()));
  }
}

void add_app_file(Options& opts, std::vector<std::string>& names) {
  if (opts.first.np != 0 || !opts.first.exports.empty() || !opts.first.wdir.empty())
    throw UsageError("with --app, -np, -x and --wdir go on each line of the file");
  for (auto& [where, words] : read_app_file(opts.app_file)) {
    opts.apps.push_back(parse_app(std::move(words), where));
    names.push_back(where);
  }
}

std::string path_for(const App& app) {
  for (const auto& [name, value] : app.exports)
    if (name == "PATH") return value;
  return gpurun_path();
}

// The job's rank count, each program's working directory and resolved path.
void finish_apps(Options& opts, bool explain, const std::vector<std::string>& names) {
  bool hosts = maps_by_hosts(opts);
  if (opts.apps.size() > 1) {
    std::int64_t total = 0;
    for (std::size_t k = 0; k < opts.apps.size(); ++k) {
      if (opts.apps[k].np == 0)
        throw UsageError(names[k] +
                         ": no -np (in a job of several programs, each gives its number of ranks)");
      total += opts.apps[k].np;
    }
    if (total > std::numeric_limits<int>::max() / 2)
      throw UsageError("-np: " + std::to_string(total) + " ranks in all are too many");
    opts.np = static_cast<int>(total);
  } else if (opts.apps[0].np > 0) {
    opts.np = opts.apps[0].np;  // from its --app line
  } else if (!explain && !hosts) {
    // With hosts, the default is one rank per slot (launcher/hosts.h), decided at launch.
    opts.np = opts.apps[0].np = 1;
  }
  for (std::size_t k = 0; k < opts.apps.size(); ++k) {
    App& app = opts.apps[k];
    if (!app.hosts.empty() && !app.hostfile.empty())
      throw UsageError(names[k] + ": give its hosts with -H or with --hostfile, not both");
    std::vector<std::pair<std::string, std::string>> exports;  // -genv, under its own
    for (const auto& entry : opts.job_exports) {
      bool own = false;
      for (const auto& mine : app.exports) own |= mine.first == entry.first;
      if (!own) exports.push_back(entry);
    }
    exports.insert(exports.end(), app.exports.begin(), app.exports.end());
    app.exports = std::move(exports);
    // Across hosts the directory may be on the other hosts only; their daemons report it.
    if (!app.wdir.empty() && !hosts && !std::filesystem::is_directory(app.wdir))
      throw UsageError("--wdir " + app.wdir + ": no such directory");
    app.program = resolve_program(app.argv.front(), path_for(app), app.wdir);
    check_program_mpi(app.program);
  }
}

}  // namespace

std::string find_program(const std::string& name) { return resolve_program(name, gpurun_path()); }

bool maps_by_hosts(const Options& opts) {
  return !opts.hosts.empty() || !opts.hostfile.empty() || any_program_hosts(opts.apps) ||
         !opts.allocation.empty() || opts.npernode > 0 || opts.ranks_per_domain > 0 ||
         !opts.rankfile.empty();
}

MapBy local_map_by(MapBy map_by) {
  return map_by == MapBy::kSlot || map_by == MapBy::kNode ? MapBy::kAuto : map_by;
}

Options parse_command_line(int argc, char** argv) {
  Options opts;
  // gpurun's own modes on a remote host, started by gpurun through the launch agent.
  if (argc > 1 &&
      (std::string_view(argv[1]) == "--daemon" || std::string_view(argv[1]) == "--host-cleanup")) {
    opts.action = std::string_view(argv[1]) == "--daemon" ? Options::Action::kDaemon
                                                          : Options::Action::kHostCleanup;
    opts.internal_args.assign(argv + 2, argv + argc);
    return opts;
  }
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
  rank_by_domain(opts);
  if ((opts.map_by == MapBy::kCore || maps_by_domain(opts.map_by)) && opts.gpus_per_rank > 0)
    throw UsageError("--gpus-per-rank needs --map-by gpu (or no --map-by), not --map-by " +
                     std::string(opts.map_by == MapBy::kCore ? "core" : "numa, socket or l3cache"));
  if (opts.ranks_per_domain > 0 && opts.npernode > 0)
    throw UsageError("--map-by ppr:N:OBJECT sets the ranks of each host: not with --npernode");
  if (!opts.hosts.empty() && !opts.hostfile.empty())
    throw UsageError("give the hosts with -H or with --hostfile, not both");
  if (!opts.output.dir.empty() &&
      (!opts.output.out_pattern.empty() || !opts.output.err_pattern.empty()))
    throw UsageError(
        "give the output files with --output-filename or with -outfile-pattern and "
        "-errfile-pattern, not both");
  bool explain = opts.action == Options::Action::kExplain;
  std::vector<std::string> names;  // each program's name in errors
  if (!opts.app_file.empty()) {
    if (i < argc)
      throw UsageError("--app names the programs: '" + std::string(argv[i]) +
                       "' on the command line is one too many");
    add_app_file(opts, names);
  } else if (i < argc) {
    add_programs(argc, argv, i, opts, names);
  } else if (explain) {
    opts.np = opts.first.np;  // the placement to explain
    threads_per_rank(opts);
    return opts;
  } else {
    throw UsageError("no program to run (usage: gpurun -np N program [args])");
  }
  if (!explain && opts.hosts.empty() && opts.hostfile.empty() && !any_program_hosts(opts.apps))
    take_allocation(opts);
  finish_apps(opts, explain, names);
  threads_per_rank(opts);
  // MPICH's mpiexec reads its time limit from the environment.
  if (auto limit = param::external_env("MPIEXEC_TIMEOUT"); limit && !opts.timeout) {
    try {
      opts.timeout = parse_timeout(*limit);
    } catch (const UsageError& e) {
      throw UsageError(std::string("MPIEXEC_TIMEOUT: ") + e.what());
    }
  }
  return opts;
}

}  // namespace gpurun::launcher
