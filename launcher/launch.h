// Running one job: placement, job directory, PMIx server, spawn, main loop, cleanup.
#pragma once

#include "launcher/cli.h"

namespace gpurun::launcher {

// Runs the job described by `options` and returns gpurun's exit code. Throws
// std::runtime_error when the job cannot be set up (nothing is left behind). The caller must
// leave with _exit(): libpmix's thread may still run when the server was not finalized.
int launch(const Options& options);

}  // namespace gpurun::launcher
