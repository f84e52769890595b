// The daemon's part of a job once it is authenticated and has the job (daemon.h).
#pragma once

#include "launcher/job_spec.h"
#include "launcher/wire.h"

namespace gpurun::launcher {

// Sets up this host's part of the job (placement, job directory, PMIx server), says it is
// ready, starts the ranks when gpurun says so and serves them until they are gone, then cleans
// up and says goodbye. `signal_fd` reads SIGCHLD, SIGINT and SIGTERM. Returns the daemon's exit
// code: 0 when it ended with gpurun still there.
int serve_job(JobSpec spec, wire::Link& link, int signal_fd);

}  // namespace gpurun::launcher
