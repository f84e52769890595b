// What the datatype calls (api/datatype_*.cc) share: argument checks, and recording a new type
// with its envelope. Each check returns MPI_SUCCESS, or the error code after running the error
// handler (MPI_COMM_WORLD's: the datatype calls have no communicator, except MPI_Pack and
// MPI_Unpack, which name theirs).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "api/call.h"
#include "api/datatypes.h"
#include "runtime/base/status.h"

namespace gpurun::api {

// Whether a count type is the large MPI_Count of the _c calls.
template <class Count>
inline constexpr bool kLargeCount = sizeof(Count) > sizeof(int);

// `*type` = the datatype that `handle` (argument `arg`) names, committed or not; MPI_ERR_TYPE
// when it names none.
int lookup_type(const Call& call, MPI_Comm comm, MPI_Datatype handle, const char* arg,
                const core::Datatype** type);
// The same for a type that must be committed.
int lookup_committed(const Call& call, MPI_Comm comm, MPI_Datatype handle, const char* arg,
                     const core::Datatype** type);
// MPI_ERR_ARG when pointer argument `arg` is null.
int check_pointer(const Call& call, MPI_Comm comm, const void* p, const char* arg);
// MPI_ERR_ARG when array `arg` is null while it should hold `count` > 0 elements.
int check_array(const Call& call, const void* p, std::int64_t count, const char* arg);
// `error_class` when `value` is negative.
int check_non_negative(const Call& call, std::int64_t value, int error_class, const char* arg);
// MPI_ERR_ARG when an element of array `arg` is negative (the message names its index).
int check_elements_non_negative(const Call& call, std::span<const std::int64_t> values,
                                const char* arg);
// MPI_ERR_ARG when `value` does not fit in an int output argument.
int check_fits_int(const Call& call, std::int64_t value, const char* arg);

// The elements of an int, MPI_Aint or MPI_Count array.
template <class T>
std::vector<std::int64_t> widen(const T* values, std::int64_t count) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) out[i] = static_cast<std::int64_t>(values[i]);
  return out;
}

// A constructor call's arguments, as MPI_Type_get_contents returns them.
struct CallArgs {
  core::Combiner combiner;
  std::vector<std::int64_t> ints;
  std::vector<std::int64_t> addresses;
  std::vector<std::int64_t> counts;
  std::vector<const core::Datatype*> types;
};
// The arguments of a call whose integers and addresses all become large counts in its _c form
// (every constructor but subarray and darray).
CallArgs call_args(core::Combiner combiner, bool large, std::vector<std::int64_t> ints,
                   std::vector<std::int64_t> addresses, std::vector<const core::Datatype*> types);

// Gives the new type `type` its envelope `args` and a handle in `*newtype`; a failed `type`
// raises MPI_ERR_ARG with its message.
int new_type(const Call& call, Result<core::DatatypeRef> type, CallArgs args,
             MPI_Datatype* newtype);

}  // namespace gpurun::api
