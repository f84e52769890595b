// SharedPointer: an 8-byte counter at offset 0 of a side file, under an OFD lock.
#include "runtime/io/shared_pointer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

namespace gpurun::io {
namespace {

std::string side_name(const std::string& file_path) {
  std::size_t slash = file_path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : file_path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? file_path : file_path.substr(slash + 1);
  std::random_device random;
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  if (dir.back() != '/') dir += '/';
  return dir + ".gpurun-shfp-" + base + "-" + suffix;
}

}  // namespace

Result<SharedPointer> SharedPointer::create(const std::string& file_path, std::string& name) {
  name = side_name(file_path);
  int fd;
  do {
    fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno_status("creating the shared file pointer's file " + name, errno);
  ::close(fd);
  GPURUN_ASSIGN_OR_RETURN(PosixFile file, PosixFile::open(name, O_RDWR));
  SharedPointer pointer(std::move(file));
  Status st = pointer.store(0);
  if (!st.ok()) {
    ::unlink(name.c_str());
    return st;
  }
  return pointer;
}

Result<SharedPointer> SharedPointer::attach(const std::string& name) {
  GPURUN_ASSIGN_OR_RETURN(PosixFile file, PosixFile::open(name, O_RDWR));
  return SharedPointer(std::move(file));
}

Status SharedPointer::unlink(const std::string& name) {
  if (::unlink(name.c_str()) != 0 && errno != ENOENT) return errno_status("unlink " + name, errno);
  return ok_status();
}

Result<std::int64_t> SharedPointer::load() const {
  std::int64_t value = 0;
  GPURUN_ASSIGN_OR_RETURN(std::int64_t got, file_.read_at(0, &value, sizeof value));
  if (got != sizeof value) return Status(ErrorCode::kIo, "the shared file pointer's file is short");
  return value;
}

Status SharedPointer::store(std::int64_t value) const {
  return file_.write_at(0, &value, sizeof value);
}

Result<std::int64_t> SharedPointer::fetch_add(std::int64_t delta) const {
  RangeLock lock(&file_, 0, sizeof(std::int64_t), true);
  GPURUN_TRY(lock.status());
  GPURUN_ASSIGN_OR_RETURN(std::int64_t value, load());
  GPURUN_TRY(store(value + delta));
  return value;
}

Result<std::int64_t> SharedPointer::get() const {
  RangeLock lock(&file_, 0, sizeof(std::int64_t), false);
  GPURUN_TRY(lock.status());
  return load();
}

Status SharedPointer::set(std::int64_t value) const {
  RangeLock lock(&file_, 0, sizeof(std::int64_t), true);
  GPURUN_TRY(lock.status());
  return store(value);
}

}  // namespace gpurun::io
