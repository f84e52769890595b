// Datatype handles: predefined MPI datatypes and those users build, as core::Datatype objects.
//
// Predefined types have the handles of mpi.h (builtin 0x4c..., and the direct handles
// 0x8c00000n of the value-and-index pairs) and live for the whole process. User types get
// indirect handles; each handle holds one reference on its type, so MPI_Type_free ends the
// handle at once while operations that hold their own reference keep the type alive.
#pragma once

#include <mpi.h>

#include "runtime/core/datatype.h"

namespace gpurun::api {

// The datatype a handle names, or nullptr when it names none (null, freed, not a datatype).
const core::Datatype* find_datatype(MPI_Datatype handle);
// The same, for the calls that change a type (commit, set_name).
core::Datatype* find_mutable_datatype(MPI_Datatype handle);
// Whether `handle` names a predefined type.
bool is_predefined_datatype(MPI_Datatype handle);
// The handle of a predefined type, or MPI_DATATYPE_NULL when `type` is not one.
MPI_Datatype predefined_handle(const core::Datatype* type);

// A new user handle holding the reference `type`.
MPI_Datatype insert_datatype(core::DatatypeRef type);
// Ends a user handle (its reference is dropped). False when `handle` names no user type.
bool erase_datatype(MPI_Datatype handle);

}  // namespace gpurun::api
