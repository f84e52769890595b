// The signals gpurun's loops handle (SIGCHLD; SIGINT, SIGTERM, SIGHUP and SIGQUIT end the job),
// read through a signalfd.
#pragma once

#include <string>

namespace gpurun::launcher {

// Blocks the signals first, before libpmix starts its thread, so that thread inherits the mask
// and never takes them; ignores SIGPIPE (a closed pipe or socket is handled where written).
// Throws std::runtime_error.
class SignalFd {
 public:
  SignalFd();
  ~SignalFd();
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// "SIGTERM", or "signal 70" for one without a name.
std::string signal_name(int sig);

}  // namespace gpurun::launcher
