// Objects and helpers that the MPICH ABI puts in the library rather than in mpi.h: programs
// compiled against MPICH's header refer to them by symbol name, so libmpi must export each
// one under exactly that name. This file depends on mpi.h only, so that tests/abi can compile
// it on its own and check the symbols a constant names.
//
// Exports (all extern "C", default visibility):
//   MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY      int *const, distinct markers for graph weights
//   MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE        MPI_Fint *, markers for Fortran statuses
//   MPI_F08_STATUS_IGNORE, MPI_F08_STATUSES_IGNORE    MPI_F08_status *, the same for mpi_f08
//   MPI_T_PVAR_ALL_HANDLES  MPI_T_pvar_handle const, the marker of every handle of a session
//   MPIR_Dup_fn   the function that MPI_DUP_FN, MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN and
//                 MPI_WIN_DUP_FN expand to
#include "mpi.h"

namespace gpurun::api {
namespace {

// The markers are compared by address only; nothing reads or writes through them. Each one
// gets storage of its own so that no two markers compare equal, and none equals NULL (which
// some calls accept as a real argument, e.g. MPI_BOTTOM).
int unweighted_storage;
int weights_empty_storage;
MPI_Fint f_status_ignore_storage[MPI_F_STATUS_SIZE];
MPI_Fint f_statuses_ignore_storage[MPI_F_STATUS_SIZE];
MPI_F08_status f08_status_ignore_storage;
MPI_F08_status f08_statuses_ignore_storage;
char all_pvar_handles_storage;

}  // namespace
}  // namespace gpurun::api

extern "C" {

int *const MPI_UNWEIGHTED = &gpurun::api::unweighted_storage;
int *const MPI_WEIGHTS_EMPTY = &gpurun::api::weights_empty_storage;

// Not const, because MPICH's header declares them without const and tests/abi requires the
// two headers to agree on every declared type.
MPI_Fint *MPI_F_STATUS_IGNORE = gpurun::api::f_status_ignore_storage;
MPI_Fint *MPI_F_STATUSES_IGNORE = gpurun::api::f_statuses_ignore_storage;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &gpurun::api::f08_status_ignore_storage;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = &gpurun::api::f08_statuses_ignore_storage;

// MPI_T has no performance variable, so no handle is ever this address.
MPI_T_pvar_handle const MPI_T_PVAR_ALL_HANDLES =
    reinterpret_cast<MPI_T_pvar_handle>(&gpurun::api::all_pvar_handles_storage);

// The predefined "duplicate" attribute copy callback: the new object gets the same attribute
// value (a copy of the pointer, not of what it points to).
int MPIR_Dup_fn(MPI_Comm /*comm*/, int /*keyval*/, void * /*extra_state*/, void *attribute_val_in,
                void *attribute_val_out, int *flag) {
  *static_cast<void **>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

}  // extern "C"
