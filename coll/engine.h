// The collective engine: from a call's arguments to a running Operation. It selects the
// algorithm (coll/selector.h: knob, tuning table, fallback), keeping per communicator what
// the selection needs (its candidates, which decisions were logged), and creates the
// algorithm's operation. The API layer starts it: progressed to the end for a blocking call,
// behind a request for a nonblocking one, kept for a persistent one.
//
// Per-communicator state is keyed by context id, created on first use and dropped by
// forget_comm() (MPI_Comm_free); a state found for a context id that another communicator
// now uses is rebuilt. The tags of calls come from the API layer's per-communicator sequence,
// which communicator creation shares (Args::tag).
//
// Threading: not thread-safe; the API layer serialises callers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "coll/algorithm.h"
#include "runtime/base/status.h"
#include "runtime/topo/copy_probe.h"

namespace gpurun::coll {

// The size that selection looks at, in bytes, the same on every rank: the whole vector for
// bcast, reduce, allreduce, scan, exscan and reduce_scatter(_block); one rank's block for
// gather, scatter, allgather, alltoall (and the average block for allgatherv); 0 for barrier
// and for the v/w forms whose counts only some ranks know (gatherv, scatterv, alltoallv,
// alltoallw).
std::int64_t selection_bytes(const Args& args);

// The algorithm that create() would use for `args`. For device memory that no registered
// algorithm runs itself (Algorithm::usable), that is "staged": host staging (coll/staging.h)
// around the host algorithm selected for the same call on host buffers.
Result<const Algorithm*> select(const Args& args);
// The algorithm that a call on host memory runs when `instead_of` cannot run it: what
// select() gives where `instead_of` is not usable (a shared-memory collective whose segment
// fails to set up falls back to it, as the members that already know run it).
Result<const Algorithm*> select_instead_of(const Args& args, const Algorithm& instead_of);
// The operation of the selected algorithm for `args`, not started.
Result<std::unique_ptr<Operation>> create(const Args& args);
// The same for a blocking call: the engine keeps the operation (one per communicator and
// collective) and offers it to the next blocking call (Operation::rearm), so that a call
// repeated with the same arguments builds nothing. Valid until the next blocking call of this
// collective on this communicator; the caller runs it to completion before that.
Result<Operation*> blocking_operation(const Args& args);

// Whether `collective` runs device buffers itself on every communicator (contiguous types,
// ops the accelerator reduces): a device algorithm is registered for it (its name starts with
// "device_", e.g. allreduce's device_ring), or each of its algorithms runs its steps on the
// device (Algorithm::device_steps: scan, exscan, the neighbourhood collectives). False where
// some calls are staged (the shared-memory algorithms of one host). For MPIX_Query_cuda_path.
// On a device-only communicator (`device_only`, Args::device_only): whether some algorithm of
// the collective runs its steps on the device, as selection keeps only those there (every
// collective but the w forms).
bool device_native(Collective collective, bool device_only = false);

// How large messages between the cores of this host move faster (runtime/topo/copy_probe.h),
// for the table's "copy" rules: set once at start-up by the composition root, before any
// collective, from what every rank of the host was told alike; nullopt (the default): not
// known, and no "copy" rule matches.
void set_host_copy(std::optional<topo::HostCopy> copy);

// Drops the state of the communicator with `context_id` (it is being freed).
void forget_comm(std::uint32_t context_id);
// Forgets everything (tables, knobs' effects, communicators): for tests that change knobs.
void reset_engine();

}  // namespace gpurun::coll
