// Info handles: MPI_INFO_ENV and the info objects that users create.
#pragma once

#include <mpi.h>

#include <memory>

#include "runtime/core/info.h"

namespace gpurun::api {

// The info object a handle names (MPI_INFO_ENV included), or nullptr (null, freed, not an
// info).
core::Info* find_info(MPI_Info handle);
// A new handle for `info`; MPI_INFO_NULL when the table is full.
MPI_Info new_info_handle(std::unique_ptr<core::Info> info);
void free_info_handle(MPI_Info handle);
// What MPI_INFO_ENV holds now: command, argv, arch, wdir, and once MPI is initialized
// maxprocs, host and thread_level.
std::unique_ptr<core::Info> env_info_copy();

}  // namespace gpurun::api
