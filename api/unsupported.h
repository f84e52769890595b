// Calls of the MPI standard that gpurun does not implement, by feature: each is exported (so
// that binaries built against MPICH load, and programs that only reference a call run) and
// fails loudly when called, with MPI_ERR_UNSUPPORTED_OPERATION and a message that names the call,
// the feature and the rank.
#pragma once

#include <mpi.h>

#include "api/call.h"

namespace gpurun::api {

enum class Feature : std::uint8_t {
  kDynamicProcesses,     // name publishing (MPI_Publish_name, _Lookup_name, _Unpublish_name)
};

// The error for `call`: through the error handler of `comm` (MPI_COMM_WORLD's for
// MPI_COMM_NULL).
int unsupported(const Call& call, MPI_Comm comm, Feature feature);

}  // namespace gpurun::api

// PMPI_name and its MPI_name alias, with the parameter types of the standard's prototype (a
// parameter named `comm` carries the communicator whose error handler runs).
#define GPURUN_UNSUPPORTED(name, feature, comm, ...)        \
  extern "C" int P##name(__VA_ARGS__) {                     \
    GPURUN_API_ENTER(#name);                                \
    return ::gpurun::api::unsupported(call, comm, feature); \
  }                                                         \
  GPURUN_MPI_ALIAS(name)
