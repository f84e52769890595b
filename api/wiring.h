// The composition root: the one place that names concrete transports. At MPI_Init it creates
// the pml and the transports, exchanges addresses through the bootstrap (one fence), connects
// a route to every rank, and sets the progress engine's wait policy.
#pragma once

#include "api/state.h"
#include "runtime/base/status.h"

namespace gpurun::api {

Status wire_up(ProcessState& state);
// Sends what is still queued (acknowledgements, queued sends) before the process leaves.
void drain(ProcessState& state);
// Shuts every transport down once MPI has ended: no thread of theirs outlives MPI_Finalize.
void shut_down(ProcessState& state);

}  // namespace gpurun::api
