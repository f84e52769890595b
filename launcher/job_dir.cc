#include "launcher/job_dir.h"

#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "runtime/base/log.h"
#include "runtime/base/param.h"
#include "runtime/base/process.h"

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

namespace {

constexpr const char* kOwnerFile = "owner";

// Records who owns a job directory: "PID START-TIME PID-SCOPE TOKEN", written whole by a
// rename.
// Without its start time or scope there is no owner file: the sweep leaves such a directory.
void write_owner(const std::string& dir, const std::string& token) {
  std::optional<unsigned long long> started = process_start_time(getpid());
  std::string scope = pid_scope();
  if (!started || scope == "unknown") return;
  std::string tmp = dir + "/" + kOwnerFile + ".new";
  {
    std::ofstream out(tmp);
    out << getpid() << ' ' << *started << ' ' << scope << ' ' << token << '\n';
    if (!out) return;  // the sweep skips a directory without an owner: nothing is lost
  }
  std::rename(tmp.c_str(), (dir + "/" + kOwnerFile).c_str());
}

// True when the directory's owner file names a process of `here` (pid_scope()) that no
// longer runs; `token` is then the job's.
bool owner_is_gone(const std::string& dir, const std::string& here, std::string& token) {
  std::ifstream in(dir + "/" + kOwnerFile);
  long pid = 0;
  unsigned long long started = 0;
  std::string scope;
  if (!(in >> pid >> started >> scope >> token) || pid <= 0 || scope != here ||
      !is_job_token(token))
    return false;
  return process_gone(static_cast<pid_t>(pid), started);
}

}  // namespace

bool is_job_token(const std::string& token) {
  return !token.empty() && token.find_first_not_of("0123456789abcdef") == std::string::npos;
}

int sweep_stale_job_dirs(const std::string& base) {
  std::string here = pid_scope();
  if (here == "unknown") return 0;  // no owner file can be judged
  DIR* dir = opendir(base.c_str());
  if (dir == nullptr) return 0;
  int removed = 0;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (!name.starts_with("gpurun.") || name.size() != 7 + 16) continue;
    std::string path = base + "/" + name;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    std::string token;
    if (!owner_is_gone(path, here, token)) continue;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    int segments = remove_shm_segments(token);
    GPURUN_LOG(info, launcher,
               "removed %s and %d shared-memory segments: its job ended without cleaning up",
               path.c_str(), segments);
    ++removed;
  }
  closedir(dir);
  return removed;
}

JobDir::JobDir() : token_(random_hex(8)) {
  std::string base = param::external_env("TMPDIR").value_or("");
  if (base.empty()) base = "/tmp";
  sweep_stale_job_dirs(base);
  // 64 random bits, created with mkdir (which fails if the name exists): nobody can predict
  // the name or plant a directory there first.
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string path = base + "/gpurun." + random_hex(8);
    if (mkdir(path.c_str(), 0700) == 0) {
      path_ = path;
      write_owner(path_, token_);
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
