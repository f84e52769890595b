#include "launcher/plan.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "runtime/base/log.h"
#include "runtime/base/param.h"
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
  int visible = static_cast<int>(topology.gpus().size() - hidden.size());
  MapBy map_by = local_map_by(options.map_by);
  if (map_by == MapBy::kCore || map_by == MapBy::kNuma || visible <= 0) return 1;
  return std::max(1, visible / std::max(1, options.gpus_per_rank));
}

}  // namespace

Plan make_plan(const Options& options, topo::Topology::Io io) {
  auto topology = topo::Topology::load(io);
  if (!topology.ok()) throw std::runtime_error(topology.status().to_string());
  Plan plan{.topology = std::move(topology.value())};
  std::vector<int> hidden = hidden_by_environment(plan.topology);
  int np = default_np(options, plan.topology, hidden);
  plan.request = PlacementRequest{.np = np,
                                  .bind = options.bind_to,
                                  .map_by = local_map_by(options.map_by),
                                  .gpus_per_rank = options.gpus_per_rank,
                                  .hidden_gpus = std::move(hidden)};
  plan.placement = place_ranks(plan.topology, plan.request);
  if (plan.placement.by_gpu) {
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

Plan make_host_plan(const Options& options, int np, CpuShare share) {
  Options host = options;
  host.np = share.ranks > 0 ? share.ranks : np;
  Plan plan = make_plan(host, topo::Topology::Io::kAuto);
  if (share.ranks == 0) return plan;
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
  return plan;
}

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
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
