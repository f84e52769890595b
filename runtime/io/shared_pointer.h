// The shared file pointer of a file that a group opened together (MPI_File_read_shared and
// the like): a counter in a small side file beside the file, read and advanced under an
// exclusive lock, so that each member's access takes a range of its own.
//
// One member creates the side file (exclusively, under an unpredictable name, mode 0600), the
// others open it by name, and the creator removes the name once all have it open: the counter
// lives on in the open descriptors and nothing stays on disk, even when a process dies.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/base/status.h"
#include "runtime/io/posix_file.h"

namespace gpurun::io {

class SharedPointer {
 public:
  SharedPointer() = default;

  // Creates the side file of `file_path` (in its directory), holding 0; `name` gets its path.
  static Result<SharedPointer> create(const std::string& file_path, std::string& name);
  // Opens the side file that create() made.
  static Result<SharedPointer> attach(const std::string& name);
  // Removes the side file's name (the counter stays while descriptors are open).
  static Status unlink(const std::string& name);

  bool usable() const { return file_.is_open(); }
  // The counter before adding `delta` (in whatever unit the caller counts).
  Result<std::int64_t> fetch_add(std::int64_t delta) const;
  Result<std::int64_t> get() const;
  Status set(std::int64_t value) const;

 private:
  explicit SharedPointer(PosixFile file) : file_(std::move(file)) {}
  Result<std::int64_t> load() const;
  Status store(std::int64_t value) const;
  PosixFile file_;
};

}  // namespace gpurun::io
