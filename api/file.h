// MPI-IO: open files, their handles and their errors (the calls live in api/file_*.cc; the
// engine below them in runtime/io).
//
// MPI-IO is written over MPI itself, as MPI allows: each file keeps a duplicate of the
// communicator that opened it, whose handler returns errors, and the collective calls agree
// through the PMPI_ collectives on it (the library's lock is recursive). Data moves between the
// user's buffer and the file through a packed copy of the memory datatype's data and the
// file's view (runtime/io/file_view.h). Collective reads and writes agree first, then move the
// data by two-phase access when the members' runs interleave (api/file_collective.cc), else as
// independent ones; the nonblocking calls finish their access before they return a completed
// request.
//
// File handles are MPI_File values 0x7c000000 | index into a table, so a handle that names no
// open file (freed, garbage) is found out and reported, never followed.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "api/call.h"
#include "api/errhandler.h"
#include "runtime/core/info.h"
#include "runtime/io/file_view.h"
#include "runtime/io/posix_file.h"
#include "runtime/io/shared_pointer.h"

namespace gpurun::api {

struct File {
  MPI_File handle = MPI_FILE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the opener's communicator
  std::string path;
  int amode = 0;
  io::PosixFile file;
  io::FileView view;
  // The view's data representation: "internal" reads and writes the bytes of "native",
  // "external32" converts each element in place (types of equal sizes only).
  std::string datarep = "native";
  bool external32() const { return datarep == "external32"; }
  std::int64_t pointer = 0;  // the individual file pointer, in etypes of the view
  io::SharedPointer shared;  // the shared file pointer, in etypes of the view
  std::string no_shared;     // why there is no shared file pointer, when there is none
  bool atomic = false;
  ErrhandlerRef errhandler{MPI_ERRORS_RETURN};
  // The hints given; those of two-phase access are acted on (api/file_collective.cc).
  std::unique_ptr<core::Info> info;
  // A split collective begun and not ended: its kind (the *_begin call's name) and status.
  const char* split = nullptr;
  MPI_Status split_status{};
};

// The open file `handle` names, or nullptr.
File* find_file(MPI_File handle);
// Gives `file` its handle and keeps it; MPI_FILE_NULL when the table is full.
MPI_File insert_file(std::unique_ptr<File> file);
std::unique_ptr<File> erase_file(MPI_File handle);

// The handler of MPI_FILE_NULL: what errors of MPI_File_open and MPI_File_delete run, and what
// new files start with.
ErrhandlerRef& default_file_errhandler();

// Runs the error handler of `file` (the default file handler for MPI_FILE_NULL or a bad
// handle) for an error of `error_class`, with a message that names the call and the rank.
// Returns the error code to return.
int raise_file(const Call& call, MPI_File file, int error_class, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
// The same for an internal Status: errno values give MPI-IO's classes (ENOENT:
// MPI_ERR_NO_SUCH_FILE, EACCES: MPI_ERR_ACCESS, ENOSPC: MPI_ERR_NO_SPACE ...).
int raise_file_status(const Call& call, MPI_File file, const Status& status);
// The MPI-IO class of a failed system call's errno.
int io_error_class(int sys_errno);

}  // namespace gpurun::api

// Looks up file `handle` into `f` (a File*), or fails with MPI_ERR_FILE.
#define GPURUN_CHECK_FILE(f, handle)                                                       \
  ::gpurun::api::File* f = ::gpurun::api::find_file(handle);                               \
  if (f == nullptr) [[unlikely]]                                                           \
  return ::gpurun::api::raise_file(call, MPI_FILE_NULL, MPI_ERR_FILE,                      \
                                   (handle) == MPI_FILE_NULL                               \
                                       ? "argument fh is MPI_FILE_NULL"                    \
                                       : "argument fh (%p) is not an open file (closed?)", \
                                   static_cast<void*>(handle))
