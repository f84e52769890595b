// Datatype handles: predefined MPI datatypes and those users build, as core::Datatype objects.
//
// Predefined types have the handles of mpi.h (builtin 0x4c..., and the direct handles
// 0x8c00000n of the value-and-index pairs) and live for the whole process. User types get
// indirect handles; each handle holds one reference on its type, so MPI_Type_free ends the
// handle at once while operations that hold their own reference keep the type alive.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "runtime/core/datatype.h"

namespace gpurun::api {

namespace detail {
inline constexpr std::uint32_t kBuiltinBits = 0x4c000000u >> 26;  // kind builtin, type datatype
// The predefined types with builtin handles, by the handle's low byte (unique among them).
struct BuiltinTypes {
  std::array<const core::Datatype*, 256> type{};
  std::array<MPI_Datatype, 256> handle{};
};
// Set once the table of predefined types is built (by the first lookup).
extern std::atomic<const BuiltinTypes*> g_builtin_types;
const core::Datatype* find_datatype_slow(MPI_Datatype handle);
}  // namespace detail

// The datatype a handle names, or nullptr when it names none (null, freed, not a datatype).
// Inline for a builtin handle: every call with a datatype argument looks its type up.
inline const core::Datatype* find_datatype(MPI_Datatype handle) {
  auto h = static_cast<std::uint32_t>(handle);
  const detail::BuiltinTypes* b = detail::g_builtin_types.load(std::memory_order_acquire);
  if ((h >> 26) == detail::kBuiltinBits && b != nullptr) [[likely]]
    return b->handle[h & 0xff] == handle ? b->type[h & 0xff] : nullptr;
  return detail::find_datatype_slow(handle);
}
// The same, for the calls that change a type (commit, set_name).
core::Datatype* find_mutable_datatype(MPI_Datatype handle);
// Whether `handle` came from MPI_Type_create_f90_* (api/datatype_f90.cc): it cannot be freed.
bool is_f90_type(MPI_Datatype handle);
// A predefined type of one element of `basic` (of one basic element), or nullptr for kNone.
const core::Datatype* basic_datatype(core::BasicType basic);
// Whether `handle` names a predefined type.
bool is_predefined_datatype(MPI_Datatype handle);
// The handle of a predefined type, or MPI_DATATYPE_NULL when `type` is not one.
MPI_Datatype predefined_handle(const core::Datatype* type);

// A new user handle holding the reference `type`.
MPI_Datatype insert_datatype(core::DatatypeRef type);
// Ends a user handle (its reference is dropped). False when `handle` names no user type.
bool erase_datatype(MPI_Datatype handle);

}  // namespace gpurun::api
