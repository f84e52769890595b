// `gpurun --explain`: what a job would be, without running it. Prints the placement (rank,
// host, GPU and bus id, NUMA node, CPUs, NIC), how large messages move faster between the
// cores of this machine (measure_copy, as a run measures it), the topology matrix of the GPUs
// and NICs (as `nvidia-smi topo -m` does), and for every pair of ranks the path the policy
// chooses (runtime/topo/path_policy.h) for host and for device buffers, with every better path
// that was refused and why. The transports assumed are those of this build (libmpi's
// gpurun_info("transports")).
#pragma once

#include <string>

#include "launcher/cli.h"
#include "launcher/plan.h"
#include "runtime/topo/path_policy.h"

namespace gpurun::launcher {

struct ExplainInput {
  const Plan* plan = nullptr;
  std::string hostname;
  std::vector<topo::TransportInfo> transports;
  std::string transports_source;  // where the list came from
  topo::PolicyKnobs knobs;
};

// The whole text --explain prints.
std::string explain_text(const ExplainInput& input);
// The topology matrix with its legend (part of explain_text).
std::string matrix_text(const topo::Topology& topology);

// Runs `gpurun --explain`: loads the topology with its I/O devices, places the ranks, prints
// explain_text to stdout and returns the exit code. Throws as make_plan does.
int explain(const Options& options);

}  // namespace gpurun::launcher
