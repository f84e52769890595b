// Name publishing (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name; api/names.cc): names
// live in a directory of this host that the user's jobs share (GPURUN_NAME_DIR).
#pragma once

namespace gpurun::api {

// MPI_Finalize: the names this process published and did not unpublish go.
void unpublish_names();

}  // namespace gpurun::api
