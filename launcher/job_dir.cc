#include "launcher/job_dir.h"

#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "runtime/base/log.h"
#include "runtime/base/param.h"

namespace gpurun::launcher {

std::string random_hex(std::size_t nbytes) {
  std::string bytes(nbytes, '\0');
  std::size_t got = 0;
  while (got < nbytes) {
    ssize_t n = getrandom(bytes.data() + got, nbytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

JobDir::JobDir() : token_(random_hex(8)) {
  std::string base = param::external_env("TMPDIR").value_or("");
  if (base.empty()) base = "/tmp";
  // 64 random bits, created with mkdir (which fails if the name exists): nobody can predict
  // the name or plant a directory there first.
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string path = base + "/gpurun." + random_hex(8);
    if (mkdir(path.c_str(), 0700) == 0) {
      path_ = path;
      return;
    }
    if (errno != EEXIST)
      throw std::runtime_error("cannot create the job directory in " + base + ": " +
                               std::strerror(errno) + " (set TMPDIR to a writable directory)");
  }
  throw std::runtime_error("cannot create a job directory in " + base);
}

JobDir::~JobDir() { remove(); }

std::string JobDir::make_subdir(const char* name) const {
  std::string path = path_ + "/" + name;
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  return path;
}

void JobDir::remove() {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (ec) GPURUN_LOG(warn, launcher, "cannot remove %s: %s", path_.c_str(), ec.message().c_str());
    path_.clear();
  }
  if (!token_.empty()) {
    int n = remove_shm_segments(token_);
    if (n > 0) GPURUN_LOG(debug, launcher, "removed %d shared-memory segments", n);
    token_.clear();
  }
}

int remove_shm_segments(const std::string& token) {
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return 0;
  std::string prefix = "gpurun-" + token + "-";
  int removed = 0;
  while (dirent* entry = readdir(dir)) {
    if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    std::string path = std::string("/dev/shm/") + entry->d_name;
    if (unlink(path.c_str()) == 0) ++removed;
  }
  closedir(dir);
  return removed;
}

}  // namespace gpurun::launcher
