// What gpurun tells the daemon of a remote host about the job (wire::Type::kJob).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/apps.h"
#include "launcher/cli.h"
#include "launcher/machine.h"
#include "launcher/mapping.h"

namespace gpurun::launcher {

struct JobSpec {
  std::string nspace;  // the job's PMIx namespace, the same on every host
  int node = 0;        // the daemon's node id in `map`
  JobMap map;          // every node (names as gpurun knows them) and its ranks
  std::vector<App> apps;  // the programs, their ranks in rank order
  // Set in the daemon's environment before it reads its knobs, and in its ranks': gpurun's
  // variables for gpurun and the network libraries (forwarded_env()). Each program's -x
  // exports go to its ranks only (App::exports).
  std::vector<std::string> env;
  std::string cwd;  // the ranks' working directory (gpurun's), when the host has it
  BindTo bind = BindTo::kAuto;
  MapBy map_by = MapBy::kAuto;  // within the host
  int ranks_per_domain = 0;     // Options::ranks_per_domain
  int gpus_per_rank = 0;
  int cpus_per_rank = 0;  // Options::cpus_per_rank and cpus_from_threads
  bool cpus_from_threads = false;
  bool hwthread_cpus = false;  // Options::hwthread_cpus
  // The host's share of the ranks of the hosts that share its machine (machine.h).
  CpuShare share;
  bool report_bindings = false;  // --report-bindings: the daemon prints its ranks' bindings
  int stdin_rank = 0;            // --stdin: the rank that reads gpurun's stdin (stdin_fan.h)
  std::vector<std::string> slots;  // --rankfile: every rank's SLOTS (rankfile.h); or none
};

std::string encode(const JobSpec& spec);
// Throws wire::ProtocolError.
JobSpec decode_job_spec(std::string_view body);

// The variables of gpurun's environment a remote host's daemon and ranks get (a program's -x
// exports win over them): GPURUN_*, UCX_*, FI_*, NCCL_* and PMIX_MCA_* (knobs of gpurun, its
// network libraries and PMIx), as "NAME=value".
std::vector<std::string> forwarded_env();

}  // namespace gpurun::launcher
