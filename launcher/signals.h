// The signals gpurun's loops handle (SIGCHLD; SIGINT, SIGTERM, SIGHUP and SIGQUIT end the job;
// gpurun itself also passes SIGUSR1, SIGUSR2, SIGTSTP and SIGCONT on to the ranks), read
// through a signalfd.
#pragma once

#include <string>

namespace gpurun::launcher {

// Blocks the signals first, before libpmix starts its thread, so that thread inherits the mask
// and never takes them; ignores SIGPIPE (a closed pipe or socket is handled where written).
// Throws std::runtime_error.
class SignalFd {
 public:
  // `forwarding`: the signals that gpurun passes on to the ranks too (forwarded()).
  explicit SignalFd(bool forwarding = false);
  ~SignalFd();
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// The signals gpurun passes on to the ranks without ending the job, as the peers' launchers do:
// SIGUSR1 and SIGUSR2 (a batch system's warning before the time limit, for a checkpoint),
// SIGTSTP (the ranks stop, then gpurun: Ctrl-Z) and SIGCONT (fg, bg).
bool forwarded(int sig);

// "SIGTERM", "SIGRTMIN+6" for a real-time signal, or "signal 70" for one without a name.
std::string signal_name(int sig);

}  // namespace gpurun::launcher
