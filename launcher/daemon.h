// gpurun's daemon on a remote host: `gpurun --daemon ENDPOINTS NODE TIMEOUT_MS`, started by
// gpurun through the launch agent, with the job's secret as the first line of its stdin.
//
// It connects to gpurun (the first of ENDPOINTS, "addr:port,...", that answers), proves that it
// knows the secret and checks gpurun's proof (auth.h), receives the job (job_spec.h), places its
// ranks on this host's topology, and serves them as their PMIx server with the job's global map
// (every host, node ids, local ranks) as gpurun does on its own host. It starts the ranks when
// gpurun says so, forwards their output, PMIx events (connected, finalized, abort) and exit
// statuses, takes part in the job's fences and direct modex through gpurun, and obeys gpurun's
// kill orders. When its ranks are gone it finalizes PMIx, removes its job directory and
// shared-memory segments, says goodbye and exits. If gpurun goes away (its connection closes or
// stops answering, or the daemon gets SIGTERM), it ends its ranks and cleans up the same way.
//
// Before it knows the job, it reports a failure as one line on stderr (the agent brings it to
// gpurun); afterwards as a wire::Type::kFailure message.
#pragma once

#include <string>
#include <vector>

namespace gpurun::launcher {

// Returns the daemon's exit code (0 after a clean goodbye).
int run_daemon(const std::vector<std::string>& args);

// `gpurun --host-cleanup JOBDIR TOKEN`: what a daemon that died left on its host (run by gpurun
// through the agent): removes JOBDIR (a gpurun job directory) and /dev/shm/gpurun-TOKEN-*.
int run_host_cleanup(const std::vector<std::string>& args);

}  // namespace gpurun::launcher
