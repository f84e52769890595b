#include "launcher/placement.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

#include "runtime/base/log.h"

namespace gpurun::launcher {
namespace {

topo::CpuSet pus_of(const std::vector<topo::Core>& cores) {
  std::vector<int> pus;
  for (const topo::Core& core : cores)
    pus.insert(pus.end(), core.pus.cpus().begin(), core.pus.cpus().end());
  return topo::CpuSet(std::move(pus));
}

// `count` consecutive cores from cores[first], wrapping around.
topo::CpuSet block_of(const std::vector<topo::Core>& cores, std::size_t first, std::size_t count) {
  std::vector<topo::Core> block;
  for (std::size_t k = 0; k < count; ++k) block.push_back(cores[(first + k) % cores.size()]);
  return pus_of(block);
}

// The cores each rank takes where ranks are bound to cores: request.cpus_per_rank when the
// ranks fit on `cores` that way; else a UsageError for --cpus-per-rank, or as many as fit (at
// least one) with a warning for OMP_NUM_THREADS.
int cores_per_rank(const PlacementRequest& request, std::size_t cores) {
  int want = std::max(1, request.cpus_per_rank);
  auto np = static_cast<std::size_t>(request.np);
  if (want == 1 || request.bind == BindTo::kNone || np * static_cast<std::size_t>(want) <= cores)
    return want;
  std::string need = std::to_string(np * static_cast<std::size_t>(want));
  if (request.cpus_strict)
    throw UsageError("--cpus-per-rank " + std::to_string(want) + " with -np " +
                     std::to_string(np) + " needs " + need + " cores; gpurun may use " +
                     std::to_string(cores) + " here (give fewer ranks, or --bind-to none)");
  int fit = static_cast<int>(std::max<std::size_t>(1, cores / np));
  std::fprintf(stderr,
               "gpurun: warning: OMP_NUM_THREADS=%d asks %s cores for %zu ranks, %zu here: each "
               "rank is bound to %d (--cpus-per-rank N chooses, --bind-to none binds none)\n",
               want, need.c_str(), np, cores, fit);
  return fit;
}

std::vector<topo::Core> cores_in(const std::vector<topo::Core>& cores, const topo::CpuSet& set) {
  std::vector<topo::Core> out;
  for (const topo::Core& core : cores)
    if (!core.pus.intersect(set).empty()) out.push_back(core);
  return out;
}

// The GPUs of each rank: `per` consecutive visible GPUs each, or with one GPU per rank and
// more ranks than GPUs, consecutive ranks packed onto each GPU, the first GPUs taking one rank
// more when the ranks do not divide evenly.
std::vector<std::vector<int>> assign_gpus(const std::vector<int>& visible, int np, int per) {
  auto ranks = static_cast<std::size_t>(np);
  auto each = static_cast<std::size_t>(per);
  std::vector<std::vector<int>> out(ranks);
  if (each > 1 || ranks <= visible.size()) {
    for (std::size_t r = 0; r < ranks; ++r)
      for (std::size_t k = 0; k < each; ++k) out[r].push_back(visible[r * each + k]);
    return out;
  }
  std::size_t base = ranks / visible.size();
  std::size_t extra = ranks % visible.size();
  std::size_t rank = 0;
  for (std::size_t g = 0; g < visible.size(); ++g)
    for (std::size_t k = 0; k < base + (g < extra ? 1 : 0); ++k) out[rank++].push_back(visible[g]);
  return out;
}

// The NIC nearest `gpu`: smallest path class, ties by PCI order; -1 without NICs.
int nearest_nic(const topo::Topology& topology, int gpu) {
  int best = -1;
  topo::PathClass best_path = topo::PathClass::NET;
  for (const topo::Nic& nic : topology.nics()) {
    topo::PathClass path = topology.gpu_nic_path(gpu, nic.index);
    if (best < 0 || path < best_path) {
      best = nic.index;
      best_path = path;
    }
  }
  return best;
}

std::vector<int> visible_gpus(const topo::Topology& topology, const PlacementRequest& request) {
  std::vector<int> visible;
  for (const topo::Gpu& gpu : topology.gpus())
    if (std::find(request.hidden_gpus.begin(), request.hidden_gpus.end(), gpu.index) ==
        request.hidden_gpus.end())
      visible.push_back(gpu.index);
  return visible;
}

void check_gpu_request(const topo::Topology& topology, const PlacementRequest& request,
                       std::size_t visible) {
  std::string option = request.gpus_per_rank > 0
                           ? "--gpus-per-rank " + std::to_string(request.gpus_per_rank)
                           : "--map-by gpu";
  std::string have = std::to_string(visible) + " GPU" + (visible == 1 ? "" : "s");
  if (visible < topology.gpus().size())
    have += " visible (CUDA_VISIBLE_DEVICES hides " +
            std::to_string(topology.gpus().size() - visible) + ")";
  if (visible == 0)
    throw UsageError(option + ": this host has no GPU" +
                     (topology.gpus().empty() ? "" : " visible (CUDA_VISIBLE_DEVICES hides all)") +
                     "; use --map-by core");
  int per = std::max(1, request.gpus_per_rank);
  if (request.gpus_per_rank > 0 && static_cast<std::size_t>(request.np) * per > visible)
    throw UsageError(option + " with -np " + std::to_string(request.np) + " needs " +
                     std::to_string(request.np * per) + " GPUs; this host has " + have);
}

// Binds each rank near its GPUs and counts the ranks sharing each set of CPUs.
void bind_near_gpus(const topo::Topology& topology, const std::vector<topo::Core>& cores,
                    BindTo bind, int per_rank, Placement& placement) {
  topo::CpuSet allowed = pus_of(cores);
  std::map<std::vector<int>, int> ranks_on;  // local CPU set -> ranks placed there so far
  for (RankPlace& rank : placement.ranks) {
    std::vector<int> near;
    for (int gpu : rank.gpus) {
      const auto& cpus = topology.gpus()[static_cast<std::size_t>(gpu)].cpus.cpus();
      near.insert(near.end(), cpus.begin(), cpus.end());
    }
    topo::CpuSet local = topo::CpuSet(std::move(near)).intersect(allowed);
    if (local.empty()) local = allowed;  // gpurun may not use the GPU's CPUs: use its own
    std::vector<topo::Core> local_cores = cores_in(cores, local);
    int index = ranks_on[local.cpus()]++;
    if (index >= static_cast<int>(local_cores.size())) placement.oversubscribed = true;
    if (bind == BindTo::kAuto) rank.cpus = local;
    if (bind == BindTo::kCore && !local_cores.empty())
      rank.cpus = block_of(local_cores, static_cast<std::size_t>(index * per_rank),
                           static_cast<std::size_t>(per_rank))
                      .intersect(allowed);
  }
}

}  // namespace

std::vector<topo::Core> threads_as_cores(const std::vector<topo::Core>& cores) {
  std::vector<topo::Core> threads;
  for (const topo::Core& core : cores)
    for (int pu : core.pus.cpus())
      threads.push_back(topo::Core{.index = static_cast<int>(threads.size()),
                                   .package = core.package,
                                   .l3 = core.l3,
                                   .pus = topo::CpuSet({pu})});
  return threads;
}

bool Placement::has_gpus() const {
  return std::any_of(ranks.begin(), ranks.end(),
                     [](const RankPlace& r) { return !r.gpus.empty(); });
}

std::optional<topo::CpuSet> Placement::binding(int rank) const {
  if (!apply_binding || ranks.empty()) return std::nullopt;
  return ranks[static_cast<std::size_t>(rank) % ranks.size()].cpus;
}

Placement place_on(const std::vector<topo::Core>& cores, int np, BindTo bind, int per_rank) {
  Placement placement;
  placement.cores = static_cast<int>(cores.size());
  placement.oversubscribed = np > placement.cores;
  placement.ranks.resize(static_cast<std::size_t>(np));
  if (bind != BindTo::kNone && !cores.empty()) {
    // With more ranks than cores, consecutive ranks share a core, the ranks spread evenly: rank
    // r on core r * cores / np. Left unbound, such ranks were spread by the scheduler, which at
    // times ran three of four ranks on one of two cores while the fourth had the other to
    // itself; every collective then waited for the crowded core (osu_allreduce -np 4 on 2
    // cores, 8 B: 1.5 to 3.3 us from run to run unbound, 1.4 to 2.0 bound). Consecutive rather
    // than wrapped around the cores (rank r on core r mod cores), so that a rank's partner half
    // a job away (osu_multi_lat's pairs, the two halves of a job) runs on another core at the
    // same time: a small message's round trip then needs no context switch (osu_multi_lat -np 4
    // on 2 cores, 8 B: 0.90 us wrapped, 0.26-0.33 consecutive; collectives alike).
    // A rank running threads takes `per_rank` consecutive cores, where the ranks fit so.
    std::size_t count = cores.size();
    auto each = static_cast<std::size_t>(std::max(1, per_rank));
    if (static_cast<std::size_t>(np) * each > count) each = 1;
    for (int rank = 0; rank < np; ++rank) {
      std::size_t core = np > static_cast<int>(count)
                             ? static_cast<std::size_t>(rank) * count / static_cast<std::size_t>(np)
                             : static_cast<std::size_t>(rank) * each;
      placement.ranks[static_cast<std::size_t>(rank)].cpus = block_of(cores, core, each);
    }
  }
  return placement;
}

namespace {

// The CPUs of each domain --bind-to `bind` names: NUMA nodes, packages or L3 caches (cores
// under no L3 cache belong to none).
std::vector<topo::CpuSet> domains_of(const topo::Topology& topology, BindTo bind) {
  std::vector<topo::CpuSet> domains;
  if (bind == BindTo::kNuma) {
    for (const topo::NumaNode& node : topology.numa_nodes()) domains.push_back(node.cpus);
    return domains;
  }
  std::map<int, std::vector<int>> groups;
  for (const topo::Core& core : topology.cores()) {
    int key = bind == BindTo::kL3 ? core.l3 : core.package;
    if (key >= 0)
      groups[key].insert(groups[key].end(), core.pus.cpus().begin(), core.pus.cpus().end());
  }
  for (auto& [key, pus] : groups) domains.emplace_back(std::move(pus));
  return domains;
}

// The --bind-to kind of the domains that --map-by `map_by` spreads the ranks over.
BindTo domain_bind(MapBy map_by) {
  if (map_by == MapBy::kPackage) return BindTo::kPackage;
  return map_by == MapBy::kL3 ? BindTo::kL3 : BindTo::kNuma;
}

// --bind-to numa, socket or l3cache: each rank's CPUs widened to the domains that hold them,
// within the cores gpurun may use (kept where the topology has no such domains).
void widen_to_domains(const topo::Topology& topology, const std::vector<topo::Core>& cores,
                      BindTo bind, Placement& placement) {
  std::vector<topo::CpuSet> domains = domains_of(topology, bind);
  topo::CpuSet allowed = pus_of(cores);
  for (RankPlace& rank : placement.ranks) {
    if (!rank.cpus) continue;
    std::vector<int> pus;
    for (const topo::CpuSet& domain : domains)
      if (!domain.intersect(*rank.cpus).empty())
        pus.insert(pus.end(), domain.cpus().begin(), domain.cpus().end());
    if (!pus.empty()) rank.cpus = topo::CpuSet(std::move(pus)).intersect(allowed);
  }
}

// --bind-to hwthread: each rank's cores narrowed to one hardware thread (PU) of each, the ranks
// that share cores taking their threads in turn. The ranks are oversubscribed only where more
// of them share a core than it has threads.
void narrow_to_hwthreads(const std::vector<topo::Core>& cores, Placement& placement) {
  std::map<std::vector<int>, std::size_t> turns;  // a set of CPUs -> ranks placed on it so far
  bool crowded = false;
  bool all_bound = true;
  for (RankPlace& rank : placement.ranks) {
    if (!rank.cpus) {
      all_bound = false;
      continue;
    }
    std::size_t turn = turns[rank.cpus->cpus()]++;
    std::vector<int> pus;
    for (const topo::Core& core : cores_in(cores, *rank.cpus)) {
      std::vector<int> threads = core.pus.intersect(*rank.cpus).cpus();
      crowded = crowded || turn >= threads.size();
      pus.push_back(threads[turn % threads.size()]);
    }
    rank.cpus = topo::CpuSet(std::move(pus));
  }
  if (all_bound) placement.oversubscribed = crowded;
}

// The domains of the kind --map-by `map_by` names, cut to the `allowed` CPUs (those with none
// left out); the whole of `allowed` when the topology knows no such domains.
std::vector<topo::CpuSet> usable_domains(const topo::Topology& topology,
                                         const topo::CpuSet& allowed, MapBy map_by) {
  std::vector<topo::CpuSet> domains;
  for (const topo::CpuSet& domain : domains_of(topology, domain_bind(map_by))) {
    topo::CpuSet cpus = domain.intersect(allowed);
    if (!cpus.empty()) domains.push_back(cpus);
  }
  if (domains.empty()) domains.push_back(allowed);
  return domains;
}

// The cores gpurun may use on `topology`: within its own CPU affinity on this machine, all of
// the topology's otherwise.
std::vector<topo::Core> usable_cores(const topo::Topology& topology) {
  if (!topology.is_this_system()) return topology.cores_within(topology.all_pus());
  auto allowed = topo::CpuSet::of_calling_thread();
  if (!allowed.ok()) throw std::runtime_error(allowed.status().to_string());
  return topology.cores_within(*allowed);
}

// Gives `place` the visible GPU near `domain` (its CPUs meet the domain's) that has the fewest
// ranks so far (`ranks_on_gpu`, by GPU index), ties to the lowest index, and that GPU's NIC;
// none where no visible GPU is near the domain.
void give_domain_gpu(const topo::Topology& topology, const std::vector<int>& visible,
                     const topo::CpuSet& domain, std::vector<int>& ranks_on_gpu, RankPlace& place) {
  int best = -1;
  for (int gpu : visible) {
    const topo::CpuSet& near = topology.gpus()[static_cast<std::size_t>(gpu)].cpus;
    if (near.intersect(domain).empty()) continue;
    if (best < 0 ||
        ranks_on_gpu[static_cast<std::size_t>(gpu)] < ranks_on_gpu[static_cast<std::size_t>(best)])
      best = gpu;
  }
  if (best < 0) return;
  ++ranks_on_gpu[static_cast<std::size_t>(best)];
  place.gpus = {best};
  place.nic = nearest_nic(topology, best);
}

// --map-by numa, socket (package) or l3cache: ranks dealt round robin over the domains of that
// kind that hold cores gpurun may use, or with ppr:N:OBJECT (request.ranks_per_domain N) N to a
// domain in turn, each bound to its domain's CPUs (one core of it with --bind-to core, none with
// --bind-to none) and given a GPU near its domain where there is one (give_domain_gpu).
Placement place_by_domain(const topo::Topology& topology, const std::vector<topo::Core>& cores,
                          const PlacementRequest& request, int per_rank) {
  Placement placement;
  placement.cores = static_cast<int>(cores.size());
  placement.ranks.resize(static_cast<std::size_t>(request.np));
  topo::CpuSet allowed = pus_of(cores);
  std::vector<topo::CpuSet> domains = usable_domains(topology, allowed, request.map_by);
  std::vector<int> ranks_on(domains.size(), 0);
  std::vector<int> visible = visible_gpus(topology, request);
  std::vector<int> ranks_on_gpu(topology.gpus().size(), 0);
  for (int rank = 0; rank < request.np; ++rank) {
    int turn = request.ranks_per_domain > 0 ? rank / request.ranks_per_domain : rank;
    std::size_t d = static_cast<std::size_t>(turn) % domains.size();
    std::vector<topo::Core> local = cores_in(cores, domains[d]);
    int index = ranks_on[d]++;
    if (index >= static_cast<int>(local.size())) placement.oversubscribed = true;
    RankPlace& place = placement.ranks[static_cast<std::size_t>(rank)];
    if (request.bind == BindTo::kAuto) place.cpus = domains[d];
    if (request.bind == BindTo::kCore && !local.empty())
      place.cpus = block_of(local, static_cast<std::size_t>(index * per_rank),
                            static_cast<std::size_t>(per_rank))
                       .intersect(allowed);
    give_domain_gpu(topology, visible, domains[d], ranks_on_gpu, place);
  }
  return placement;
}

// place_on for the binds to cores, GPUs' NUMA nodes or none.
Placement place_by_request(const topo::Topology& topology, const std::vector<topo::Core>& cores,
                           const PlacementRequest& request) {
  std::vector<int> visible = visible_gpus(topology, request);
  bool asked = request.map_by == MapBy::kGpu || request.gpus_per_rank > 0;
  if (asked) check_gpu_request(topology, request, visible.size());
  bool on_cores = request.map_by == MapBy::kCore || visible.empty();
  int per_rank = on_cores || request.bind == BindTo::kCore
                     ? cores_per_rank(request, cores.size())
                     : 1;  // bound to the CPUs of a NUMA node, which hold the threads
  if (maps_by_domain(request.map_by)) return place_by_domain(topology, cores, request, per_rank);
  if (on_cores) return place_on(cores, request.np, request.bind, per_rank);
  Placement placement;
  placement.by_gpu = true;
  placement.cores = static_cast<int>(cores.size());
  placement.oversubscribed = request.np > placement.cores;
  placement.ranks.resize(static_cast<std::size_t>(request.np));
  auto gpus = assign_gpus(visible, request.np, std::max(1, request.gpus_per_rank));
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    placement.ranks[r].gpus = std::move(gpus[r]);
    placement.ranks[r].nic = nearest_nic(topology, placement.ranks[r].gpus.front());
  }
  bind_near_gpus(topology, cores, request.bind, per_rank, placement);
  return placement;
}

}  // namespace

Placement place_on(const topo::Topology& topology, const std::vector<topo::Core>& cores,
                   const PlacementRequest& request) {
  bool widened = request.bind == BindTo::kNuma || request.bind == BindTo::kPackage ||
                 request.bind == BindTo::kL3;
  if (!widened && request.bind != BindTo::kHwthread)
    return place_by_request(topology, cores, request);
  PlacementRequest by_core = request;  // the cores first, then their domains or threads
  by_core.bind = BindTo::kCore;
  Placement placement = place_by_request(topology, cores, by_core);
  if (widened)
    widen_to_domains(topology, cores, request.bind, placement);
  else
    narrow_to_hwthreads(cores, placement);
  return placement;
}

int domains_for(const topo::Topology& topology, MapBy map_by) {
  return static_cast<int>(usable_domains(topology, pus_of(usable_cores(topology)), map_by).size());
}

Placement place_ranks(const topo::Topology& topology, const PlacementRequest& request) {
  std::vector<topo::Core> cores = usable_cores(topology);
  if (request.hwthread_cpus) cores = threads_as_cores(cores);
  Placement placement = place_on(topology, cores, request);
  placement.apply_binding = topology.is_this_system();
  if (placement.oversubscribed && request.bind == BindTo::kCore)
    std::fprintf(stderr, "gpurun: warning: %d ranks on %d cores: --bind-to core shares cores\n",
                 request.np, placement.cores);
  if (placement.oversubscribed && request.bind == BindTo::kHwthread)
    std::fprintf(stderr,
                 "gpurun: warning: %d ranks on %zu hardware threads: --bind-to hwthread shares "
                 "threads\n",
                 request.np, pus_of(cores).size());
  GPURUN_LOG(info, launcher, "ranks %d cores %d oversubscribed %d bound %d by gpu %d", request.np,
             placement.cores, placement.oversubscribed ? 1 : 0,
             placement.binding(0).has_value() ? 1 : 0, placement.by_gpu ? 1 : 0);
  return placement;
}

}  // namespace gpurun::launcher
