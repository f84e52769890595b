// PosixFile: the system calls of MPI-IO, retried on EINTR and on partial transfers.
#include "runtime/io/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace gpurun::io {

PosixFile& PosixFile::operator=(PosixFile&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    readable_ = other.readable_;
    other.fd_ = -1;
  }
  return *this;
}

Result<PosixFile> PosixFile::open(const std::string& path, int flags) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno_status("open " + path, errno);
  return PosixFile(fd, (flags & O_ACCMODE) != O_WRONLY);
}

void PosixFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<std::int64_t> PosixFile::read_at(std::int64_t offset, void* buf, std::int64_t bytes) const {
  auto* p = static_cast<char*>(buf);
  std::int64_t done = 0;
  while (done < bytes) {
    ssize_t n = ::pread(fd_, p + done, static_cast<std::size_t>(bytes - done), offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("pread", errno);
    if (n == 0) break;  // the end of the file
    done += n;
  }
  return done;
}

Status PosixFile::write_at(std::int64_t offset, const void* buf, std::int64_t bytes) const {
  const auto* p = static_cast<const char*>(buf);
  std::int64_t done = 0;
  while (done < bytes) {
    ssize_t n = ::pwrite(fd_, p + done, static_cast<std::size_t>(bytes - done), offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("pwrite", errno);
    done += n;
  }
  return ok_status();
}

Result<std::int64_t> PosixFile::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return errno_status("fstat", errno);
  return static_cast<std::int64_t>(st.st_size);
}

Status PosixFile::truncate(std::int64_t size) const {
  int rc;
  do {
    rc = ::ftruncate(fd_, size);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return errno_status("ftruncate", errno);
  return ok_status();
}

Status PosixFile::allocate(std::int64_t size) const {
  if (size == 0) return ok_status();
  int rc = ::posix_fallocate(fd_, 0, size);
  if (rc == 0) return ok_status();
  if (rc != EOPNOTSUPP && rc != EINVAL) return errno_status("posix_fallocate", rc);
  // A file system without fallocate: grow the file instead (the blocks stay sparse).
  GPURUN_ASSIGN_OR_RETURN(std::int64_t now, this->size());
  return now < size ? truncate(size) : ok_status();
}

Status PosixFile::sync() const {
  if (::fsync(fd_) != 0) return errno_status("fsync", errno);
  return ok_status();
}

namespace {

Status set_lock(int fd, std::int64_t offset, std::int64_t bytes, short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = offset;
  fl.l_len = bytes;
  int rc;
  do {
    rc = ::fcntl(fd, type == F_UNLCK ? F_OFD_SETLK : F_OFD_SETLKW, &fl);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return errno_status("fcntl(F_OFD_SETLKW)", errno);
  return ok_status();
}

}  // namespace

Status PosixFile::lock(std::int64_t offset, std::int64_t bytes, bool write) const {
  return set_lock(fd_, offset, bytes, write ? F_WRLCK : F_RDLCK);
}

Status PosixFile::unlock(std::int64_t offset, std::int64_t bytes) const {
  return set_lock(fd_, offset, bytes, F_UNLCK);
}

RangeLock::RangeLock(const PosixFile* file, std::int64_t offset, std::int64_t bytes, bool write)
    : file_(file), offset_(offset), bytes_(bytes) {
  if (file_ != nullptr) {
    status_ = file_->lock(offset, bytes, write);
    if (!status_.ok()) file_ = nullptr;
  }
}

RangeLock::~RangeLock() {
  if (file_ != nullptr) (void)file_->unlock(offset_, bytes_);
}

}  // namespace gpurun::io
