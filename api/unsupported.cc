// The calls of dynamic processes, which gpurun does not implement (api/unsupported.h).
#include "api/unsupported.h"

namespace gpurun::api {
namespace {

const char* feature_name(Feature feature) {
  switch (feature) {
    case Feature::kDynamicProcesses:
      return "dynamic process management (spawn, ports, name publishing, join)";
  }
  return "this feature";
}

}  // namespace

int unsupported(const Call& call, MPI_Comm comm, Feature feature) {
  return raise(call, comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s is not supported by gpurun",
               feature_name(feature));
}

}  // namespace gpurun::api

using gpurun::api::Feature;

GPURUN_UNSUPPORTED(MPI_Close_port, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*)
GPURUN_UNSUPPORTED(MPI_Comm_accept, Feature::kDynamicProcesses, comm, const char*, MPI_Info, int,
                   MPI_Comm comm, MPI_Comm*)
GPURUN_UNSUPPORTED(MPI_Comm_connect, Feature::kDynamicProcesses, comm, const char*, MPI_Info, int,
                   MPI_Comm comm, MPI_Comm*)
GPURUN_UNSUPPORTED(MPI_Comm_disconnect, Feature::kDynamicProcesses, MPI_COMM_NULL, MPI_Comm*)
GPURUN_UNSUPPORTED(MPI_Comm_join, Feature::kDynamicProcesses, MPI_COMM_NULL, int, MPI_Comm*)
GPURUN_UNSUPPORTED(MPI_Comm_spawn, Feature::kDynamicProcesses, comm, const char*, char**, int,
                   MPI_Info, int, MPI_Comm comm, MPI_Comm*, int*)
GPURUN_UNSUPPORTED(MPI_Comm_spawn_multiple, Feature::kDynamicProcesses, comm, int, char**, char***,
                   const int*, const MPI_Info*, int, MPI_Comm comm, MPI_Comm*, int*)
GPURUN_UNSUPPORTED(MPI_Lookup_name, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*,
                   MPI_Info, char*)
GPURUN_UNSUPPORTED(MPI_Open_port, Feature::kDynamicProcesses, MPI_COMM_NULL, MPI_Info, char*)
GPURUN_UNSUPPORTED(MPI_Publish_name, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*,
                   MPI_Info, const char*)
GPURUN_UNSUPPORTED(MPI_Unpublish_name, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*,
                   MPI_Info, const char*)

