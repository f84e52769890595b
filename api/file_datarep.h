// Data representations registered by the program (MPI_Register_datarep, MPI_Register_datarep_c):
// its conversion functions run between the user's buffer and the packed stream that the file
// view places. gpurun keeps the native layout in the file, so a representation is usable only
// with types whose elements it gives their native size as file extent; others fail with
// MPI_ERR_UNSUPPORTED_DATAREP.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "api/call.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype.h"

namespace gpurun::api {

struct Datarep {
  std::string name;
  // One pair is set, the int or the MPI_Count one (MPI_CONVERSION_FN_NULL: no conversion in
  // that direction, the bytes are the native ones).
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_conversion_function_c* read_c = nullptr;
  MPI_Datarep_conversion_function_c* write_c = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra_state = nullptr;

  bool converts(bool writing) const {
    if (writing) return write != nullptr || write_c != nullptr;
    return read != nullptr || read_c != nullptr;
  }
};

// The registered representation `name`, or nullptr (registrations last until MPI_Finalize).
const Datarep* find_datarep(const std::string& name);

// MPI_ERR_UNSUPPORTED_DATAREP (through the handler of `fh`) when `rep` gives an element of
// `type` (argument `arg`) a file extent other than its size, or the extent function fails.
int check_datarep_extents(const Call& call, MPI_File fh, const Datarep& rep,
                          const core::Datatype& type, const char* arg);

// Runs the representation's conversion function for `count` elements of `datatype` at
// `userbuf`, between it and the packed file data `filebuf`; writing: user to file. An error
// code the function returns is a kConversion error naming it.
Status convert(const Datarep& rep, bool writing, void* userbuf, MPI_Datatype datatype,
               std::int64_t count, std::byte* filebuf);

}  // namespace gpurun::api
