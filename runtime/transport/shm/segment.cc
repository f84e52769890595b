#include "runtime/transport/shm/segment.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "runtime/base/log.h"

namespace gpurun::transport::shm {
namespace {

Result<void*> map_fd(int fd, std::size_t size) {
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return errno_status("mmap of a shared segment", errno);
  return base;
}

// Whether process `pid` has ended (gone, or a zombie not yet reaped: its /proc/PID/fd is empty).
bool process_ended(long pid) {
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return false;
  char line[512];
  std::size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  line[n] = '\0';
  // The command name in parentheses may hold spaces: the state follows the last ')'.
  const char* close = std::strrchr(line, ')');
  char state = close != nullptr && close[1] == ' ' ? close[2] : '\0';
  return state == 'Z' || state == 'X';
}

}  // namespace

Result<std::unique_ptr<Segment>> create_named(std::size_t size, const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return errno_status("shm_open " + name, errno);
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int err = errno;
    close(fd);
    shm_unlink(name.c_str());
    return errno_status("ftruncate of " + name, err);
  }
  auto base = map_fd(fd, size);
  if (!base.ok()) {
    close(fd);
    shm_unlink(name.c_str());
    return std::move(base).status();
  }
  std::string descriptor = "name:" + name + ":" + std::to_string(size);
  return std::unique_ptr<Segment>(new Segment(base.value(), size, fd, descriptor, name));
}

Result<std::unique_ptr<Segment>> Segment::create(std::size_t size, const std::string& name,
                                                 bool memfd) {
  if (!memfd) return create_named(size, name);
  int fd = memfd_create("gpurun-shm", MFD_CLOEXEC);
  if (fd < 0) {
    GPURUN_LOG(debug, transport, "memfd_create failed (%m); using a named segment");
    return create_named(size, name);
  }
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int err = errno;
    close(fd);
    return errno_status("ftruncate of a shared segment", err);
  }
  auto base = map_fd(fd, size);
  if (!base.ok()) {
    close(fd);
    return std::move(base).status();
  }
  std::string descriptor = "fd:" + std::to_string(getpid()) + ":" + std::to_string(fd) + ":" +
                           std::to_string(size);
  return std::unique_ptr<Segment>(new Segment(base.value(), size, fd, descriptor, ""));
}

Result<std::unique_ptr<Segment>> Segment::attach(const std::string& descriptor) {
  std::size_t size = 0;
  int fd = -1;
  char name[256];
  long pid = 0;
  int peer_fd = 0;
  if (std::sscanf(descriptor.c_str(), "fd:%ld:%d:%zu", &pid, &peer_fd, &size) == 3) {
    std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(peer_fd);
    fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      if (process_ended(pid))
        return Status(ErrorCode::kPeerFailed,
                      "its process (pid " + std::to_string(pid) + ") has ended");
      return errno_status("open " + path, err);
    }
  } else if (std::sscanf(descriptor.c_str(), "name:%255[^:]:%zu", name, &size) == 2) {
    fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) return errno_status(std::string("shm_open ") + name, errno);
  } else {
    return Status(ErrorCode::kInvalidArgument, "bad shared segment descriptor '" + descriptor + "'");
  }
  auto base = map_fd(fd, size);
  if (!base.ok()) {
    close(fd);
    return std::move(base).status();
  }
  return std::unique_ptr<Segment>(new Segment(base.value(), size, fd, descriptor, ""));
}

Segment::~Segment() {
  munmap(base_, size_);
  close(fd_);
  unlink();
}

void Segment::populate(const void* at, std::size_t bytes) const {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14
#endif
  auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto first = reinterpret_cast<std::uintptr_t>(at) & ~(page - 1);
  auto end = (reinterpret_cast<std::uintptr_t>(at) + bytes + page - 1) & ~(page - 1);
  auto base = reinterpret_cast<std::uintptr_t>(base_);
  first = std::max(first, base);
  end = std::min(end, base + size_);
  if (first >= end) return;
  if (madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) != 0)
    GPURUN_LOG(debug, transport, "populating %zu bytes of a shared segment: %m", end - first);
}

void Segment::unlink() {
  if (name_.empty()) return;
  shm_unlink(name_.c_str());
  name_.clear();
}

}  // namespace gpurun::transport::shm
