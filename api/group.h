// Group handles: MPI_GROUP_EMPTY and the groups that users get (each handle refers to a shared,
// immutable core::Group).
#pragma once

#include <mpi.h>

#include "api/call.h"
#include "runtime/core/group.h"

namespace gpurun::api {

// The group a handle names (MPI_GROUP_EMPTY included), or null when it names none (null,
// freed, not a group).
core::GroupPtr find_group(MPI_Group handle);
// A new handle for `group` (MPI_GROUP_EMPTY when it is empty); MPI_GROUP_NULL when the table
// is full. `session`: the session it derives from (group_session).
MPI_Group new_group_handle(core::GroupPtr group, MPI_Session session = MPI_SESSION_NULL);
// The session a group derives from: MPI_Group_from_session_pset's, kept by the groups made from
// it and by MPI_Comm_group of communicators made from those; MPI_SESSION_NULL otherwise.
MPI_Session group_session(MPI_Group handle);

}  // namespace gpurun::api

// Looks up group `handle` into `var` (a core::GroupPtr), or fails with MPI_ERR_GROUP.
#define GPURUN_CHECK_GROUP(var, handle, arg)                                                       \
  ::gpurun::core::GroupPtr var = ::gpurun::api::find_group(handle);                                \
  if (!var) [[unlikely]]                                                                           \
  return ::gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_GROUP,                                  \
                              (handle) == MPI_GROUP_NULL ? "argument " arg " is MPI_GROUP_NULL"    \
                                                         : "argument " arg                         \
                                                           " (0x%x) is not a group, or was freed", \
                              static_cast<unsigned>(handle))
