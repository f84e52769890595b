// A job's plan, made before anything starts, for a run and for --explain alike: the topology
// (this host, or GPURUN_TOPO_FILE), the GPUs the ranks can see, and the placement.
#pragma once

#include <string>

#include "launcher/cli.h"
#include "launcher/machine.h"
#include "launcher/placement.h"
#include "runtime/topo/copy_probe.h"
#include "runtime/topo/topology.h"

namespace gpurun::launcher {

struct Plan {
  topo::Topology topology;
  PlacementRequest request;
  Placement placement;
  topo::CopyProbe copy;  // measure_copy(); not measured until then
};

// Loads the topology (`io` as Topology::load takes it), reads CUDA_VISIBLE_DEVICES (warning
// when it cannot be mapped to GPUs; then every GPU counts as visible) and places options.np
// ranks, or for --explain without -np, one rank per visible GPU (per --gpus-per-rank GPUs),
// one without GPUs. Throws UsageError for an impossible placement, std::runtime_error when
// the topology cannot be loaded.
Plan make_plan(const Options& options, topo::Topology::Io io);
// --map-by ppr:N:OBJECT: sets options.npernode to N times this host's domains of that kind
// (every host is taken to have as many). Throws as make_plan does.
void resolve_ranks_per_domain(Options& options);
// The plan of one host's `np` ranks of a job across hosts: when the host shares its machine
// with other hosts of the job (share.ranks > 0), the plan of all share.ranks ranks of the
// machine, cut to this host's slice (bindings, GPUs and oversubscription as one host's).
Plan make_host_plan(const Options& options, int np, CpuShare share);

// How large messages move faster between the cores of this machine (topo::probe_host_copy),
// for the ranks' collectives: GPURUN_TOPO_COPY when set, else measured between the CPUs of the
// plan's first two ranks (two cores of this machine when they are not bound to two), else not
// known (fewer than two ranks or cores). Forks a short-lived partner.
topo::CopyProbe measure_copy(const Plan& plan);
// The keys::kCopy value of the plan's copy probe: its answer's name, "" when not known.
std::string copy_key(const Plan& plan);

// This host's name (gethostname).
std::string host_name();

// The keys::kGpus value of a rank: its GPUs' bus ids, comma-separated; "" without GPU.
std::string gpu_bus_ids(const topo::Topology& topology, const RankPlace& rank);
// The keys::kNic value of a rank: its NIC's name; "" without NIC.
std::string nic_name(const topo::Topology& topology, const RankPlace& rank);

// --report-bindings: a line on stderr for each of this host's ranks (`ranks`, in the order of
// plan.placement.ranks): "gpurun: rank R on HOST: CPUs 0-3, GPU <bus id>, NIC <name>", or
// "not bound".
void report_bindings(const Plan& plan, const std::vector<int>& ranks, const std::string& host);

}  // namespace gpurun::launcher
