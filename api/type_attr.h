// Attributes on datatypes (api/type_attr.cc): what MPI_Type_dup and MPI_Type_free do with them.
#pragma once

#include <mpi.h>

#include "api/call.h"
#include "api/state.h"

namespace gpurun::api {

// Copies the attributes of `from` to its duplicate `to` through their copy callbacks. Returns
// MPI_SUCCESS or the error of the callback that failed (nothing is copied then).
int copy_type_attributes(const Call& call, MPI_Datatype from, MPI_Datatype to);
// Deletes the attributes of `type`, last set first, through their delete callbacks. Returns
// MPI_SUCCESS or the error of the callback that failed (that attribute and the earlier stay).
int delete_type_attributes(const Call& call, MPI_Datatype type);
// MPI_Type_set_attr with an attribute of any kind; MPI_Type_get_attr for a caller of kind `as`.
int set_type_attr(const Call& call, MPI_Datatype datatype, Attribute attribute);
int get_type_attr(const Call& call, MPI_Datatype datatype, int keyval, void* value, int* flag,
                  AttrKind as);

}  // namespace gpurun::api
