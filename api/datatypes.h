// Datatype handles: predefined MPI datatypes and those users build, as core::Datatype objects.
#pragma once

#include <mpi.h>

#include "runtime/core/datatype.h"

namespace gpurun::api {

// The datatype a handle names, or nullptr when it names none (null, freed, not a datatype).
const core::Datatype* find_datatype(MPI_Datatype handle);

}  // namespace gpurun::api
