#include "launcher/plan.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "runtime/base/log.h"
#include "runtime/base/param.h"
#include "runtime/topo/params.h"
#include "runtime/topo/visibility.h"

namespace gpurun::launcher {
namespace {

std::vector<int> hidden_by_environment(const topo::Topology& topology) {
  std::optional<std::string> value = param::external_env("CUDA_VISIBLE_DEVICES");
  if (!value || topology.gpus().empty()) return {};
  auto hidden = topo::hidden_gpus(topology, *value);
  if (hidden.ok()) return *hidden;
  std::fprintf(stderr, "gpurun: warning: %s; placing ranks as if every GPU were visible\n",
               std::string(hidden.status().message()).c_str());
  return {};
}

int default_np(const Options& options, const topo::Topology& topology,
               const std::vector<int>& hidden) {
  if (options.np > 0) return options.np;
  if (options.npernode > 0) return options.npernode;  // --explain -N 4: this host's 4 ranks
  if (options.ranks_per_domain > 0)                   // --explain --map-by ppr:N:socket
    return options.ranks_per_domain * domains_for(topology, local_map_by(options.map_by));
  int visible = static_cast<int>(topology.gpus().size() - hidden.size());
  MapBy map_by = local_map_by(options.map_by);
  if (map_by == MapBy::kCore || maps_by_domain(map_by) || visible <= 0) return 1;
  return std::max(1, visible / std::max(1, options.gpus_per_rank));
}

int core_of(const topo::Topology& topology, int cpu) {
  for (const topo::Core& core : topology.cores())
    if (core.pus.contains(cpu)) return core.index;
  return -1;
}

// Two CPUs on different cores for the copy probe: the first of rank 0's and one of the first
// rank bound elsewhere when bindings are applied, else two of gpurun's own. Cores are told
// apart by the topology when it is this machine's (SMT siblings share a core's caches), else
// by CPU number.
std::optional<std::pair<int, int>> probe_cpus(const Plan& plan) {
  const std::vector<RankPlace>& ranks = plan.placement.ranks;
  topo::CpuSet first, second;
  if (plan.placement.apply_binding && ranks[0].cpus && ranks[1].cpus) {
    // Rank 0 and the first rank bound elsewhere (consecutive ranks may share a core).
    first = *ranks[0].cpus;
    second = *ranks[1].cpus;
    for (const RankPlace& rank : ranks)
      if (rank.cpus && *rank.cpus != first) {
        second = *rank.cpus;
        break;
      }
  } else {
    auto own = topo::CpuSet::of_calling_thread();
    if (!own.ok()) return std::nullopt;
    first = second = *own;
  }
  if (first.empty() || second.empty()) return std::nullopt;
  const topo::Topology* machine = plan.topology.is_this_system() ? &plan.topology : nullptr;
  int a = first.cpus().front();
  int core_a = machine != nullptr ? core_of(*machine, a) : a;
  for (int b : second.cpus()) {
    int core_b = machine != nullptr ? core_of(*machine, b) : b;
    if (b != a && (core_b != core_a || core_a < 0)) return std::make_pair(a, b);
  }
  return std::nullopt;
}

}  // namespace

topo::CopyProbe measure_copy(const Plan& plan) {
  if (std::optional<topo::HostCopy> forced = topo::params::copy().get())
    return topo::CopyProbe{
        .copy = *forced,
        .why = "set by GPURUN_TOPO_COPY=" + std::string(topo::host_copy_name(*forced))};
  if (plan.placement.ranks.size() < 2)
    return topo::CopyProbe{.why = "not measured: one rank on this host"};
  std::optional<std::pair<int, int>> cpus = probe_cpus(plan);
  if (!cpus) return topo::CopyProbe{.why = "not measured: the ranks have one core"};
  return topo::probe_host_copy(cpus->first, cpus->second);
}

std::string copy_key(const Plan& plan) {
  return plan.copy.copy ? std::string(topo::host_copy_name(*plan.copy.copy)) : std::string();
}

Plan make_plan(const Options& options, topo::Topology::Io io) {
  auto topology = topo::Topology::load(io);
  if (!topology.ok()) throw std::runtime_error(topology.status().to_string());
  Plan plan{.topology = std::move(topology.value())};
  std::vector<int> hidden = hidden_by_environment(plan.topology);
  int np = default_np(options, plan.topology, hidden);
  plan.request = PlacementRequest{.np = np,
                                  .bind = options.bind_to,
                                  .map_by = local_map_by(options.map_by),
                                  .ranks_per_domain = options.ranks_per_domain,
                                  .gpus_per_rank = options.gpus_per_rank,
                                  .cpus_per_rank = options.cpus_per_rank,
                                  .cpus_strict = !options.cpus_from_threads,
                                  .hidden_gpus = std::move(hidden),
                                  .hwthread_cpus = options.hwthread_cpus};
  plan.placement = place_ranks(plan.topology, plan.request);
  if (plan.placement.has_gpus()) {
    for (std::size_t r = 0; r < plan.placement.ranks.size(); ++r) {
      const RankPlace& rank = plan.placement.ranks[r];
      GPURUN_LOG(info, launcher, "rank %zu gpus %s nic %s cpus %s", r,
                 gpu_bus_ids(plan.topology, rank).c_str(),
                 rank.nic < 0 ? "none" : nic_name(plan.topology, rank).c_str(),
                 rank.cpus ? rank.cpus->to_string().c_str() : "unbound");
    }
  }
  return plan;
}

namespace {

// The plan with its copy probe, logged.
Plan with_copy(Plan plan) {
  plan.copy = measure_copy(plan);
  GPURUN_LOG(info, launcher, "copy between cores %s: %s",
             topo::host_copy_name(plan.copy.copy).data(), plan.copy.why.c_str());
  if (plan.copy.shm_eager > 0)
    GPURUN_LOG(info, launcher, "shm eager limit %zu bytes", plan.copy.shm_eager);
  return plan;
}

}  // namespace

void resolve_ranks_per_domain(Options& options) {
  if (options.ranks_per_domain == 0 || options.npernode > 0) return;
  auto topology = topo::Topology::load(topo::Topology::Io::kAuto);
  if (!topology.ok()) throw std::runtime_error(topology.status().to_string());
  options.npernode = options.ranks_per_domain * domains_for(*topology, options.map_by);
}

Plan make_host_plan(const Options& options, int np, CpuShare share) {
  Options host = options;
  host.np = share.ranks > 0 ? share.ranks : np;
  Plan plan = make_plan(host, topo::Topology::Io::kAuto);
  if (share.ranks == 0) return with_copy(std::move(plan));
  auto& ranks = plan.placement.ranks;
  auto first = ranks.begin() + std::min<std::ptrdiff_t>(share.first, std::ssize(ranks));
  ranks.erase(ranks.begin(), first);
  if (std::ssize(ranks) > np) ranks.resize(static_cast<std::size_t>(np));
  plan.request.np = np;
  GPURUN_LOG(info, launcher,
             "this host shares its machine (kernel) with other hosts of the job: its %d ranks are "
             "%d..%d of the machine's %d, placed together%s",
             np, share.first, share.first + np - 1, share.ranks,
             plan.placement.oversubscribed ? " (they outnumber the cores)" : "");
  return with_copy(std::move(plan));
}

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

void report_bindings(const Plan& plan, const std::vector<int>& ranks, const std::string& host) {
  const Placement& placement = plan.placement;
  for (std::size_t i = 0; i < ranks.size() && i < placement.ranks.size(); ++i) {
    const RankPlace& place = placement.ranks[i];
    std::string line = "gpurun: rank " + std::to_string(ranks[i]) + " on " + host + ": ";
    if (!place.cpus)
      line += "not bound";
    else if (placement.apply_binding)
      line += "CPUs " + place.cpus->to_string();
    else  // GPURUN_TOPO_FILE: another machine's CPUs
      line += "CPUs " + place.cpus->to_string() + " of the topology file (not applied here)";
    if (!place.gpus.empty()) line += ", GPU " + gpu_bus_ids(plan.topology, place);
    if (place.nic >= 0) line += ", NIC " + nic_name(plan.topology, place);
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

std::string gpu_bus_ids(const topo::Topology& topology, const RankPlace& rank) {
  std::string out;
  for (int gpu : rank.gpus)
    out += (out.empty() ? "" : ",") + topology.gpus()[static_cast<std::size_t>(gpu)].bus_id;
  return out;
}

std::string nic_name(const topo::Topology& topology, const RankPlace& rank) {
  return rank.nic < 0 ? "" : topology.nics()[static_cast<std::size_t>(rank.nic)].name;
}

}  // namespace gpurun::launcher
