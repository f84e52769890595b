// Partitioned communication (api/partitioned.cc): what MPI_Start and MPI_Request_free do with a
// request of MPI_Psend_init or MPI_Precv_init (kind kPartitioned).
#pragma once

#include "api/call.h"
#include "runtime/core/request.h"

namespace gpurun::api {

// Starts an epoch of `r`, which MPI_Start's checks accepted. MPI_SUCCESS or the error.
int start_partitioned(const Call& call, core::Request* r);
// Frees `r`; an epoch in flight finishes on its own.
int free_partitioned(core::Request* r);

}  // namespace gpurun::api
