// Memory allocation kinds (MPI 4.1): what a process asserts about the buffers it passes on a
// communicator, through the info key mpi_assert_memory_alloc_kinds (a comma-separated list such
// as "cuda:device" or "system,mpi"), or GPURUN_ASSERT_MEMORY_ALLOC_KINDS for communicators whose
// info does not set the key.
//
// gpurun acts on one assertion: device memory only (every kind listed is cuda:device or
// cuda:managed). Such a communicator is device-only (coll::Args::device_only) when every member
// asserts it, which the members agree on when the communicator is created (inside the
// context-id agreement, api/comm_cid.h: MPI_Comm_dup_with_info, MPI_Comm_idup_with_info, and
// MPI_Comm_dup of a communicator whose hints assert it). The standard lets each process assert
// for itself, so only the agreement can make the selection of collective algorithms depend on
// it. MPI_Comm_set_info records the key but does not agree: a program that called it on some
// members only (erroneous, but it worked before) would wait there; its hints take effect on
// the communicators duplicated from it.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/info.h"

namespace gpurun::api {

inline constexpr std::string_view kAssertKindsKey = "mpi_assert_memory_alloc_kinds";
inline constexpr std::string_view kKindsKey = "mpi_memory_alloc_kinds";

// The memory allocation kinds this process supports, as MPI_Comm_get_info reports them under
// mpi_memory_alloc_kinds: "mpi,system", and the CUDA kinds where CUDA is usable (so that a
// program can ask whether device buffers may be passed, as the kinds' side document shows).
std::string supported_kinds();

// Whether the kinds list `value` names device memory only: one or more kinds, each cuda:device
// or cuda:managed (spaces around a kind and letter case do not matter). "cuda" alone includes
// cuda:host; the empty list names no kind.
bool lists_device_kinds_only(std::string_view value);

// Whether this process asserts device memory only on a communicator with `hints` (null: none):
// the key's value where the hints set it, else GPURUN_ASSERT_MEMORY_ALLOC_KINDS's.
bool asserts_device_only(const core::Info* hints);

}  // namespace gpurun::api
