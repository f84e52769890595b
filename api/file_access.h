// MPI-IO's data access (api/file_access.cc) and what the view and pointer calls share with it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "api/agree.h"
#include "api/datatypes.h"
#include "api/file.h"
#include "api/file_datarep.h"

namespace gpurun::api {

// Where an access starts: an explicit offset, the individual file pointer, the shared one, or
// the shared one in rank order (a collective call).
enum class Position : std::uint8_t { kAt, kIndividual, kShared, kOrdered };

struct Access {
  bool write;
  Position position;
  bool collective;  // every member calls it (the *_all, *_ordered and split forms)
};

// How an access's data are converted between memory and the file: the view's representation.
struct Conversion {
  bool external32 = false;
  const Datarep* user = nullptr;            // a representation the program registered
  MPI_Datatype handle = MPI_DATATYPE_NULL;  // the memory datatype, for its functions
};
Conversion conversion_of(const File& f, MPI_Datatype handle);

// The data of an access as a packed stream in host memory: the user's buffer itself when its
// datatype is contiguous in host memory, else a copy (packed from the datatype, or staged from
// device memory, contiguous types only).
class PackedStream {
 public:
  // Points at or makes the stream of `count` elements of `type` at `buf`; a write's copy holds
  // the data, in the file's representation (`conversion`).
  Status pack(const void* buf, MPI_Count count, const core::Datatype& type, bool write,
              const Conversion& conversion);
  // After a read of `done` bytes: a copy's data into the user's buffer, converted from the
  // file's representation (whole elements of `type` only, through a program's functions).
  Status unpack(void* buf, MPI_Count count, const core::Datatype& type, std::int64_t done);
  std::byte* data() const { return data_; }

 private:
  // The error for device memory with a non-contiguous datatype.
  static Status device_refused();
  void from_external32_in_place(const core::Datatype& type, std::int64_t done);
  std::byte* data_ = nullptr;
  std::vector<std::byte> staged_;
  Conversion conversion_;
};

// MPI_ERR_UNSUPPORTED_DATAREP when `type` (argument `arg`) holds elements whose external32
// size is not their native one (C long, unsigned long, wchar_t): an "external32" view keeps
// the native layout and converts each element in place.
int check_external32(const Call& call, MPI_File fh, const core::Datatype& type, const char* arg);
// That check, or a registered representation's extent check (api/file_datarep.h), for data
// representation `datarep`.
int check_representation(const Call& call, MPI_File fh, const std::string& datarep,
                         const core::Datatype& type, const char* arg);

// One read or write of `count` elements of `datatype` at `buf`: checks every argument, moves
// the data and writes `status` (the bytes moved). `offset` is used for Position::kAt.
int file_access(const Call& call, MPI_File fh, const Access& access, MPI_Offset offset,
                const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status);

// A collective access at an explicit offset or through the individual file pointer
// (api/file_collective.cc): `rc` is the outcome of this member's argument checks (its error
// already raised), `type` null when the datatype was bad. Every member agrees, then the data
// moves by two-phase access or by each member on its own.
int collective_access(const Call& call, MPI_File fh, File& f, const Access& access,
                      MPI_Offset offset, const void* buf, MPI_Count count,
                      MPI_Datatype datatype, const core::Datatype* type, MPI_Status* status,
                      int rc);

// Adds to `info` (a copy of the file's hints, for MPI_File_get_info) the hints of two-phase
// access that were not given, with the values in effect (romio_cb_read, romio_cb_write,
// cb_buffer_size, cb_nodes).
void add_hints_in_effect(const File& f, core::Info& info);

// Moves the packed stream `data` between memory and the file's `runs` (view_extents of the
// access), by this member alone. Returns the bytes moved (a read stops at the end of the file).
Result<std::int64_t> move_own(const File& f, bool write, std::span<const io::Extent> runs,
                              std::byte* data);

// Writes `done` bytes moved into `status` (MPI_STATUS_IGNORE allowed).
void set_access_status(MPI_Status* status, std::int64_t done);

// After this member found a bad argument (error `rc`, already raised) in an access that the
// file's other members make collectively: takes its part in the call's agreement, so that
// they fail too instead of waiting. Returns `rc`.
int access_refused(const Call& call, MPI_File fh, const Access& access, int rc);

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
