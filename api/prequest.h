// Prequests (api/prequest.cc): the handles of MPIX_Prequest_create through which kernels, and
// threads that do not call MPI, mark partitions of a partitioned request ready and see them
// arrive (include/gpurun/device.cuh). These are the partitioned request's side of it: it
// tells its prequest of each epoch and arrival.
#pragma once

namespace gpurun::api {

struct DeviceTrigger;

// An epoch of the request began (MPI_Start): the prequest's epoch number advances. With
// `nothing_moves` (an MPI_PROC_NULL peer) every partition counts as arrived at once.
void trigger_started(DeviceTrigger* t, bool nothing_moves);
// Receive partition `partition` of this epoch is in the buffer.
void trigger_arrived(DeviceTrigger* t, int partition);
// The epoch completed.
void trigger_ended(DeviceTrigger* t);
// The request was freed (its epoch, if active, finishes on its own, unwatched).
void trigger_detached(DeviceTrigger* t);

// Frees every prequest left (MPI_Finalize).
void free_prequests();

}  // namespace gpurun::api
