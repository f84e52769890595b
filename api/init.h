// The runtime's start and end (api/init.cc), shared by the world model (MPI_Init,
// MPI_Finalize) and sessions (api/session.cc).
#pragma once

#include "api/call.h"

namespace gpurun::api {

// Where the world model is: before MPI_Init, between MPI_Init and MPI_Finalize, or after.
Phase world_phase();
// Starts the runtime unless it runs (then raises its thread level to `required` if lower).
// MPI_SUCCESS, or the error (after MPI's end: it cannot restart).
int start_runtime(const Call& call, int required);
// A session began (after start_runtime) or ended; the runtime ends with the last user.
void session_started();
int session_finished(const Call& call);

}  // namespace gpurun::api
