// The job's private directory and shared-memory token.
#pragma once

#include <string>

namespace gpurun::launcher {

// Random lowercase hex text of `nbytes` bytes from getrandom(): names nobody can guess.
std::string random_hex(std::size_t nbytes);

// A directory only the user can enter (0700), with an unpredictable name, created under
// $TMPDIR (default /tmp). The PMIx server's rendezvous and any per-job file live inside it.
// Destruction removes it recursively, and every /dev/shm/gpurun-<token>-* segment of the job.
// Creation first sweeps what jobs that were killed outright left (sweep_stale_job_dirs).
class JobDir {
 public:
  JobDir();  // throws std::runtime_error with the reason
  ~JobDir();
  JobDir(const JobDir&) = delete;
  JobDir& operator=(const JobDir&) = delete;

  const std::string& path() const { return path_; }
  const std::string& token() const { return token_; }
  // Creates a 0700 subdirectory and returns its path.
  std::string make_subdir(const char* name) const;
  // Removes the directory tree and the job's shared-memory segments (idempotent).
  void remove();

 private:
  std::string path_;
  std::string token_;
};

// Removes every gpurun.* job directory of this user under `base` whose owner (the gpurun or
// daemon that made it, recorded in its `owner` file) no longer runs, with the job's shared-memory
// segments: what a job killed by SIGKILL left behind. Returns how many it removed.
int sweep_stale_job_dirs(const std::string& base);

// Whether `token` has the form of a job's token (lowercase hex), as names built from it need.
bool is_job_token(const std::string& token);

// Unlinks every /dev/shm/gpurun-<token>-* entry; returns how many were removed.
int remove_shm_segments(const std::string& token);

}  // namespace gpurun::launcher
