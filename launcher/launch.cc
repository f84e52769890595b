#include "launcher/launch.h"

#include <sched.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "launcher/environment.h"
#include "launcher/hosts.h"
#include "launcher/job.h"
#include "launcher/job_dir.h"
#include "launcher/params.h"
#include "launcher/plan.h"
#include "launcher/pmix_server.h"
#include "launcher/rankfile.h"
#include "launcher/remote.h"
#include "launcher/signals.h"
#include "launcher/slurm.h"
#include "runtime/base/clock.h"

namespace gpurun::launcher {
namespace {

// Startup and shutdown phase times, printed when GPURUN_LAUNCHER_PROFILE is set.
class Profile {
 public:
  Profile() : enabled_(params::profile().get()), last_(clock::now_ns()) {}
  void mark(const char* phase) {
    if (!enabled_) return;
    std::int64_t now = clock::now_ns();
    text_ += std::string(text_.empty() ? "" : ", ") + phase + " " +
             std::to_string((now - last_) / 1000) + "us";
    last_ = now;
  }
  ~Profile() {
    if (enabled_) std::fprintf(stderr, "gpurun: profile: %s\n", text_.c_str());
  }

 private:
  bool enabled_;
  std::int64_t last_;
  std::string text_;
};

JobConfig job_config(const Options& options, JobMap map, const OutputFiles& files) {
  return JobConfig{.output = options.output,
                   .files = &files,
                   .timeout = options.timeout,
                   .stack_traces = options.stack_traces,
                   .stdin_rank = options.stdin_rank,
                   .kill_grace = params::kill_grace().get(),
                   .line_max = static_cast<std::size_t>(params::line_max().get().bytes),
                   .map = std::move(map)};
}

JobLayout job_layout(JobMap map, int node, const Plan& plan, const JobDir& dir,
                     const std::vector<App>& apps) {
  std::vector<int> sizes = app_sizes(apps, map.size());
  JobLayout layout{.map = std::move(map),
                   .node = node,
                   .jobdir = dir.path(),
                   .token = dir.token(),
                   .oversubscribed = plan.placement.oversubscribed,
                   .cores = plan.placement.cores,
                   .copy = copy_key(plan),
                   .shm_eager = plan.copy.shm_eager,
                   .app_sizes = std::move(sizes)};
  if (plan.placement.has_gpus()) {
    for (const RankPlace& rank : plan.placement.ranks) {
      layout.rank_gpus.push_back(gpu_bus_ids(plan.topology, rank));
      layout.rank_nics.push_back(nic_name(plan.topology, rank));
    }
  }
  return layout;
}

// The commands of this host's `ranks`, in a job of `size`.
std::vector<RankCommand> rank_commands(const Options& options, const std::vector<int>& ranks,
                                       int size, const Placement& placement, PmixServer& server) {
  std::vector<std::vector<std::string>> envs;  // per program
  for (const App& app : options.apps) envs.push_back(environment_with(app.exports));
  std::vector<RankCommand> commands;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    auto k = static_cast<std::size_t>(app_of_rank(options.apps, ranks[i]));
    const App& app = options.apps[k];
    std::vector<std::string> env = envs[k];
    add_rank_variables(env, RankPosition{.rank = ranks[i],
                                         .size = size,
                                         .local_rank = static_cast<int>(i),
                                         .local_size = static_cast<int>(ranks.size())});
    commands.push_back(RankCommand{.program = app.program,
                                   .argv = app.argv,
                                   .env = server.rank_environment(ranks[i], env),
                                   .cwd = app.wdir,
                                   .binding = placement.binding(static_cast<int>(i))});
  }
  return commands;
}

void start_ranks(Job& job, const std::vector<int>& ranks,
                 const std::vector<RankCommand>& commands) {
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    job.take_signals();  // a Ctrl-C while many ranks start ends the job at once
    if (job.ended()) return;
    RankPipes pipes;
    try {
      job.add_rank(ranks[i], spawn_rank(commands[i], job.takes_stdin(ranks[i]), pipes), pipes);
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "gpurun: cannot start rank %d: %s\n", ranks[i], e.what());
      job.abandon(1);
      return;
    }
  }
}

// --display-map: each rank's host and program, on stderr.
void display_map(const JobMap& map, const std::vector<App>& apps) {
  for (int rank = 0; rank < map.size(); ++rank) {
    auto node_id = static_cast<std::size_t>(map.node_of[static_cast<std::size_t>(rank)]);
    const NodeRanks& node = map.nodes[node_id];
    auto k = static_cast<std::size_t>(app_of_rank(apps, rank));
    std::string line =
        "gpurun: rank " + std::to_string(rank) + " on " + node.name + ": " + apps[k].argv.front();
    if (apps.size() > 1) line += " (program " + std::to_string(k + 1) + ")";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

// --display-allocation (Open MPI's): the hosts the job may use and their slots, on stderr; this
// host alone when none is given (its cores as slots).
void display_allocation(std::vector<HostSpec> hosts, int cores) {
  if (hosts.empty()) hosts.push_back(HostSpec{.name = host_name(), .slots = cores, .local = true});
  for (const HostSpec& host : hosts) {
    std::string line = "gpurun: allocation: " + host.name + " slots=" + std::to_string(host.slots);
    if (host.max_slots > 0) line += " max_slots=" + std::to_string(host.max_slots);
    if (host.local) line += " (this host)";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

// Ranks per core that one host takes without --oversubscribe: enough for tests of many ranks
// on few cores, while a mistyped -np does not fill the host with processes.
constexpr int kRanksPerCoreAtMost = 32;

int own_cores() {
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
}

void check_ranks_per_core(const Options& options) {
  int cores = own_cores();
  if (options.oversubscribe || options.np <= kRanksPerCoreAtMost * cores) return;
  throw UsageError(std::to_string(options.np) + " ranks on the " + std::to_string(cores) +
                   " cores of this host are more than " + std::to_string(kRanksPerCoreAtMost) +
                   " per core (pass --oversubscribe to start them all the same)");
}

std::vector<HostSpec> host_lists(const std::vector<std::string>& lists) {
  std::vector<HostSpec> specs;
  for (const std::string& list : lists) {
    std::vector<HostSpec> more = parse_host_list(list);
    specs.insert(specs.end(), more.begin(), more.end());
  }
  return specs;
}

// The job's own hosts: --hostfile's and -H's, else the Slurm allocation's.
std::vector<HostSpec> job_hosts(const Options& options) {
  std::vector<HostSpec> specs;
  if (!options.hostfile.empty()) specs = read_hostfile(options.hostfile);
  std::vector<HostSpec> listed = host_lists(options.hosts);
  specs.insert(specs.end(), listed.begin(), listed.end());
  return specs.empty() ? options.allocation : specs;
}

// Each rank on the host --rankfile names, the job's hosts resolving +nK; each rank's SLOTS
// into options.rank_slots.
JobMap map_by_rankfile(Options& options) {
  Rankfile rankfile = read_rankfile(options.rankfile);
  if (any_program_hosts(options.apps) || options.npernode > 0 || options.rank_by != RankBy::kAuto)
    throw UsageError(
        "--rankfile places every rank: not with a program's own -H, --npernode or --rank-by");
  int np = 0;  // 0: the file's ranks
  if (options.apps.size() > 1)
    for (const App& app : options.apps) np += app.np;
  else if (!options.apps.empty())
    np = options.apps[0].np;
  std::vector<HostSpec> hosts = job_hosts(options);
  if (hosts.empty()) hosts.push_back(HostSpec{.name = "localhost"});  // +n0 is this host
  JobMap map = map_rankfile(rankfile, merge_hosts(std::move(hosts)), np);
  for (int rank = 0; rank < map.size(); ++rank)
    options.rank_slots.push_back(rankfile.entries[static_cast<std::size_t>(rank)].slots);
  if (int local = map.local_node(); local >= 0)
    map.nodes[static_cast<std::size_t>(local)].name = host_name();
  return map;
}

// What set --npernode, for errors: ppr:N:OBJECT names itself and the ranks a host it gives.
std::string npernode_option(const Options& options) {
  if (options.ranks_per_domain == 0) return "";
  const char* object = options.map_by == MapBy::kNuma      ? "numa"
                       : options.map_by == MapBy::kPackage ? "socket"
                                                           : "l3cache";
  return "--map-by ppr:" + std::to_string(options.ranks_per_domain) + ":" + object + ": " +
         std::to_string(options.npernode) + (options.npernode == 1 ? " rank" : " ranks") +
         " a host";
}

// The hosts of -H or --hostfile and of the programs' own -H, and the ranks mapped onto them;
// the node run here is named by this host's own name.
JobMap map_hosts(const Options& options) {
  std::vector<HostSpec> specs = job_hosts(options);
  // Without hosts of the job's own (only programs name some), this host is the job's host,
  // with the ranks it takes without --oversubscribe.
  if (specs.empty())
    specs.push_back(HostSpec{.name = "localhost", .slots = kRanksPerCoreAtMost * own_cores()});
  std::vector<ProgramHosts> programs;
  for (std::size_t k = 0; k < options.apps.size(); ++k)
    programs.push_back(ProgramHosts{
        .np = options.apps[k].np,
        .hosts = options.apps[k].hostfile.empty() ? host_lists(options.apps[k].hosts)
                                                  : read_hostfile(options.apps[k].hostfile),
        .name = k == 0 ? "program 1" : "program " + std::to_string(k + 1) + " (after ':')"});
  JobMap map = map_programs(merge_hosts(std::move(specs)), programs,
                            MapRequest{.by_node = options.map_by == MapBy::kNode,
                                       .rank_by = options.rank_by,
                                       .npernode = options.npernode,
                                       .oversubscribe = options.oversubscribe,
                                       .npernode_option = npernode_option(options)});
  if (int local = map.local_node(); local >= 0)
    map.nodes[static_cast<std::size_t>(local)].name = host_name();
  return map;
}

// A job on this host alone: no daemon, no network, nothing listening.
int launch_here(const Options& options, JobMap map, const OutputFiles& files) {
  Profile profile;
  SignalFd signals(true);
  Plan plan = make_host_plan(options, map.size(), {});
  bind_to_slots(plan, map.nodes[0].ranks, options.rank_slots);
  profile.mark("placement");
  JobDir dir;
  JobConfig config = job_config(options, map, files);
  JobLayout layout = job_layout(std::move(map), 0, plan, dir, options.apps);
  set_pmix_environment();
  EventQueue events;
  std::optional<PmixServer> server;
  server.emplace(dir.make_subdir("pmix"), plan.topology, events);
  profile.mark("pmix-init");
  server->register_job(layout);
  const std::vector<int>& ranks = layout.map.nodes[0].ranks;
  if (options.report_bindings) report_bindings(plan, ranks, layout.map.nodes[0].name);
  std::vector<RankCommand> commands =
      rank_commands(options, ranks, layout.map.size(), plan.placement, *server);
  profile.mark("register");
  Job job(std::move(config), events, signals.fd());
  start_ranks(job, ranks, commands);
  int code = job.run();
  profile.mark("run");
  if (job.ended()) server->abandon();
  server.reset();
  profile.mark("pmix-finalize");
  dir.remove();
  profile.mark("cleanup");
  return code;
}

std::string own_path() {
  std::string configured = params::remote_gpurun().get();
  if (!configured.empty()) return configured;
  std::error_code ec;
  std::string path = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw std::runtime_error("cannot find gpurun's own path: " + ec.message());
  return path;
}

JobSpec job_spec(const Options& options, const JobMap& map) {
  std::error_code ec;
  return JobSpec{.nspace = "gpurun." + std::to_string(getpid()),
                 .map = map,
                 .apps = options.apps,
                 .env = forwarded_env(),
                 .cwd = std::filesystem::current_path(ec).string(),
                 .bind = options.bind_to,
                 .map_by = local_map_by(options.map_by),
                 .ranks_per_domain = options.ranks_per_domain,
                 .gpus_per_rank = options.gpus_per_rank,
                 .cpus_per_rank = options.cpus_per_rank,
                 .cpus_from_threads = options.cpus_from_threads,
                 .hwthread_cpus = options.hwthread_cpus,
                 .report_bindings = options.report_bindings,
                 .stdin_rank = options.stdin_rank,
                 .slots = options.rank_slots};
}

// gpurun's own share of a job across hosts: its ranks, served by its PMIx server.
struct LocalPart {
  std::optional<Plan> plan;  // its topology outlives the server
  std::optional<JobDir> dir;
  std::optional<PmixServer> server;
  std::vector<int> ranks;
  std::vector<RankCommand> commands;
};

void set_up_local(LocalPart& part, const Options& options, const JobSpec& spec, CpuShare share,
                  EventQueue& events) {
  int node = spec.map.local_node();
  if (node < 0) return;
  part.ranks = spec.map.nodes[static_cast<std::size_t>(node)].ranks;
  part.plan.emplace(make_host_plan(options, static_cast<int>(part.ranks.size()), share));
  bind_to_slots(*part.plan, part.ranks, options.rank_slots);
  part.dir.emplace();
  JobLayout layout = job_layout(spec.map, node, *part.plan, *part.dir, options.apps);
  part.server.emplace(part.dir->make_subdir("pmix"), part.plan->topology, events, spec.nspace,
                      true);
  part.server->register_job(layout);
  if (options.report_bindings)
    report_bindings(*part.plan, part.ranks, spec.map.nodes[static_cast<std::size_t>(node)].name);
  part.commands =
      rank_commands(options, part.ranks, spec.map.size(), part.plan->placement, *part.server);
}

// --launch-agent; else MPICH's -launcher slurm (srun), -launcher-exec or -launcher ssh|rsh;
// else srun on the nodes of a Slurm allocation; else GPURUN_LAUNCHER_AGENT.
std::string agent_of(const Options& options) {
  if (options.launch_agent) return *options.launch_agent;
  if (options.launcher == "slurm") return slurm_agent();
  if (!options.launcher_exec.empty()) return options.launcher_exec;  // MPICH's: an ssh or rsh
  if (options.launcher == "ssh" || options.launcher == "rsh") return options.launcher;
  return options.allocation.empty() ? params::agent().get() : slurm_agent();
}

int launch_across(const Options& options, JobMap map, const OutputFiles& files) {
  Profile profile;
  SignalFd signals(true);
  set_pmix_environment();  // before the environment is forwarded to the hosts
  EventQueue events;
  JobSpec spec = job_spec(options, map);
  RemoteHosts remote(
      spec,
      RemoteSettings{
          .agent = agent_of(options),
          .gpurun_path = options.prefix.empty() ? own_path() : options.prefix + "/bin/gpurun",
          .start_timeout = params::start_timeout().get(),
          .host_timeout = params::host_timeout().get(),
          .kill_grace = params::kill_grace().get()},
      events);
  try {
    if (int sig = remote.start(signals.fd()); sig != 0) {
      std::fprintf(stderr, "gpurun: caught %s while starting the hosts; ending the job\n",
                   signal_name(sig).c_str());
      return 128 + sig;
    }
  } catch (const HostError& e) {
    std::fprintf(stderr, "gpurun: %s\n", e.what());
    return 1;
  }
  profile.mark("hosts");
  LocalPart local;
  set_up_local(local, options, spec, remote.local_share(), events);
  profile.mark("local");
  Job job(job_config(options, std::move(map), files), events, signals.fd(), &remote);
  remote.set_local_server(local.server ? &*local.server : nullptr);
  start_ranks(job, local.ranks, local.commands);
  remote.start_ranks();
  int code = job.run();
  profile.mark("run");
  if (job.ended() && local.server) local.server->abandon();
  local.server.reset();
  if (local.dir) local.dir->remove();
  return code;
}

// Each rank's host, for the output file patterns.
std::vector<RankHost> rank_hosts(const JobMap& map) {
  std::vector<RankHost> hosts;
  for (int r = 0; r < map.size(); ++r) {
    int node = map.node_of[static_cast<std::size_t>(r)];
    hosts.push_back(RankHost{.name = map.nodes[static_cast<std::size_t>(node)].name, .node = node});
  }
  return hosts;
}

}  // namespace

int launch(const Options& given) {
  Options options = given;  // with the rankfile's slots and ppr:N:OBJECT's --npernode
  resolve_ranks_per_domain(options);
  bool hosts = maps_by_hosts(options);
  if (options.display_allocation) display_allocation(merge_hosts(job_hosts(options)), own_cores());
  if (!hosts) check_ranks_per_core(options);
  JobMap map = !options.rankfile.empty() ? map_by_rankfile(options)
               : hosts                   ? map_hosts(options)
                                         : single_host_map(options.np, host_name());
  if (!map.spans_hosts()) map = single_host_map(map.size(), host_name());
  if (options.launcher == "fork" && map.spans_hosts())
    for (const NodeRanks& node : map.nodes)
      if (!node.local)
        throw UsageError("-launcher fork starts every rank on this host, and the job has " +
                         std::string("ranks on ") + node.name);
  if (options.stdin_rank >= map.size())
    throw UsageError("--stdin " + std::to_string(options.stdin_rank) + ": the job has " +
                     std::to_string(map.size()) + " rank" + (map.size() == 1 ? "" : "s") +
                     " (give a rank below it, all or none)");
  if (options.display_map) display_map(map, options.apps);
  OutputFiles files(options.output, map.size(), rank_hosts(map));
  if (!map.spans_hosts()) return launch_here(options, std::move(map), files);
  return launch_across(options, std::move(map), files);
}

}  // namespace gpurun::launcher
