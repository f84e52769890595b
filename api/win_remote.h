// One-sided communication across hosts (api/win_remote.cc): a window whose members run on
// several hosts is "served". Each member answers, in its progress, the requests the others send
// it on the window's own communicator: writes, reads, accumulates (combined at the target, so
// atomic per element), compare-and-swap, and its MPI_Win_lock table. The origin still finishes
// each operation in its call: it waits for the target's answer, so an operation is complete at
// both sides when the call returns, as on one host (api/win.h). MPI_Win_lock and MPI_Win_unlock
// on another member do not wait: the target holds the origin's later requests back until its
// lock is granted (a lock on the caller itself waits, for its own loads and stores).
//
// The target answers while it runs MPI calls, and where the progress helper may run
// (GPURUN_PROGRESS_HELPER=on, or a spare CPU: api/progress_helper.h) also while it computes:
// the helper polls for the window's whole life. Without it, an origin whose target computes
// outside MPI waits until the target calls MPI again.
#pragma once

#include <cstddef>
#include <cstdint>

#include "api/win.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype.h"

namespace gpurun::api {

// Starts answering the other members of `w` (collective: every member calls it after the
// window's communicator exists); stop_serving ends it after every member is done.
Status serve_window(Win& w);
void stop_serving(Win& w);

// `count` elements of the target datatype `type` at `remote` on member `rank`, to or from the
// packed bytes at `packed`.
Status remote_put(const Win& w, int rank, const std::byte* packed, std::uintptr_t remote,
                  std::int64_t count, const core::Datatype& type);
Status remote_get(const Win& w, int rank, std::byte* packed, std::uintptr_t remote,
                  std::int64_t count, const core::Datatype& type);
// Combines the packed operand into the target's elements with predefined `op`; `fetched` (may
// be null) gets the elements as they were, packed.
Status remote_accumulate(const Win& w, int rank, MPI_Op op, const std::byte* packed,
                         std::uintptr_t remote, std::int64_t count, const core::Datatype& type,
                         std::byte* fetched);
// One element of `n` bytes at `remote`: `result` gets it; it becomes `origin` where it equalled
// `compare`.
Status remote_compare_and_swap(const Win& w, int rank, const void* origin, const void* compare,
                               void* result, std::uintptr_t remote, std::size_t n);
// MPI_Win_lock and MPI_Win_unlock on member `rank`'s lock table.
Status remote_lock(const Win& w, int rank, bool exclusive);
Status remote_unlock(const Win& w, int rank);

}  // namespace gpurun::api
