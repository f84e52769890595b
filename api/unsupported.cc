// The calls of dynamic processes that gpurun does not implement: name publishing
// (api/unsupported.h).
#include "api/unsupported.h"

namespace gpurun::api {
namespace {

const char* feature_name(Feature feature) {
  switch (feature) {
    case Feature::kDynamicProcesses:
      return "dynamic process management (name publishing)";
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

GPURUN_UNSUPPORTED(MPI_Lookup_name, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*,
                   MPI_Info, char*)
GPURUN_UNSUPPORTED(MPI_Publish_name, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*,
                   MPI_Info, const char*)
GPURUN_UNSUPPORTED(MPI_Unpublish_name, Feature::kDynamicProcesses, MPI_COMM_NULL, const char*,
                   MPI_Info, const char*)

