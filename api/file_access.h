// MPI-IO's data access (api/file_access.cc) and what the view and pointer calls share with it.
#pragma once

#include <mpi.h>

#include "api/agree.h"
#include "api/datatypes.h"
#include "api/file.h"

namespace gpurun::api {

// Where an access starts: an explicit offset, the individual file pointer, the shared one, or
// the shared one in rank order (a collective call).
enum class Position : std::uint8_t { kAt, kIndividual, kShared, kOrdered };

struct Access {
  bool write;
  Position position;
  bool collective;  // every member calls it (the *_all, *_ordered and split forms)
};

// One read or write of `count` elements of `datatype` at `buf`: checks every argument, moves
// the data and writes `status` (the bytes moved). `offset` is used for Position::kAt.
int file_access(const Call& call, MPI_File fh, const Access& access, MPI_Offset offset,
                const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status);

// The error of a member whose own arguments were good when another's were not (api/agree.h).
int refused_by_another(const Call& call, MPI_File fh);

// The shared file pointer in etypes, or why there is none.
Result<std::int64_t> shared_position(const File& f);
// Collective: the first member sets the shared file pointer to `etypes`, and every member
// waits for it. Returns the error code, or MPI_SUCCESS.
int reset_shared(const Call& call, MPI_File fh, File& f, std::int64_t etypes);

}  // namespace gpurun::api

// Looks up datatype `handle` (argument `arg`) into `type`; it must be committed.
#define GPURUN_CHECK_FILE_TYPE(fh, arg, type, handle)                                   \
  const ::gpurun::core::Datatype* type = ::gpurun::api::find_datatype(handle);          \
  if (type == nullptr) [[unlikely]]                                                     \
    return ::gpurun::api::raise_file(call, fh, MPI_ERR_TYPE,                            \
                                     (handle) == MPI_DATATYPE_NULL                      \
                                         ? "argument " arg " is MPI_DATATYPE_NULL"      \
                                         : "argument " arg " (0x%x) is not a datatype", \
                                     static_cast<unsigned>(handle));                    \
  if (!type->committed()) [[unlikely]]                                                  \
  return ::gpurun::api::raise_file(call, fh, MPI_ERR_TYPE,                              \
                                   "argument " arg " is not committed (call MPI_Type_commit)")
