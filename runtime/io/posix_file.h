// A file of the local file system, as MPI-IO uses it: positioned reads and writes that finish
// what they start (a short count only at the end of the file), size changes, and byte-range
// locks.
//
// Locks are open-file-description locks (F_OFD_SETLKW): they belong to this PosixFile, so the
// lock of one open file is not dropped when the process closes another descriptor of the same
// file (as a classic fcntl lock would be), and two PosixFiles of one process exclude each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::io {

class PosixFile {
 public:
  PosixFile() = default;
  ~PosixFile() { close(); }
  PosixFile(PosixFile&& other) noexcept : fd_(other.fd_), readable_(other.readable_) {
    other.fd_ = -1;
  }
  PosixFile& operator=(PosixFile&& other) noexcept;
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  // open(2) with `flags` (O_CLOEXEC added) and mode 0666 before the umask.
  static Result<PosixFile> open(const std::string& path, int flags);

  bool is_open() const { return fd_ >= 0; }
  // Opened for reading (not O_WRONLY): reads and shared locks are allowed.
  bool readable() const { return readable_; }
  int fd() const { return fd_; }
  void close();

  // Reads up to `bytes` at `offset`; fewer only at the end of the file. Returns the bytes read.
  Result<std::int64_t> read_at(std::int64_t offset, void* buf, std::int64_t bytes) const;
  // Writes all `bytes` at `offset`.
  Status write_at(std::int64_t offset, const void* buf, std::int64_t bytes) const;
  Result<std::int64_t> size() const;
  Status truncate(std::int64_t size) const;
  // Makes sure the first `size` bytes are allocated (the file grows to `size` if shorter).
  Status allocate(std::int64_t size) const;
  Status sync() const;
  // Waits for a lock on bytes [offset, offset + bytes) (bytes 0: to the end, however far);
  // `write` asks for an exclusive one.
  Status lock(std::int64_t offset, std::int64_t bytes, bool write) const;
  Status unlock(std::int64_t offset, std::int64_t bytes) const;

 private:
  PosixFile(int fd, bool readable) : fd_(fd), readable_(readable) {}
  int fd_ = -1;
  bool readable_ = false;
};

// Holds a lock on a range of `file` while it lives (nothing when `file` is null).
class RangeLock {
 public:
  RangeLock(const PosixFile* file, std::int64_t offset, std::int64_t bytes, bool write);
  ~RangeLock();
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;
  const Status& status() const { return status_; }

 private:
  const PosixFile* file_;
  std::int64_t offset_;
  std::int64_t bytes_;
  Status status_;
};

}  // namespace gpurun::io
