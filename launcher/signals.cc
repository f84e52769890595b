#include "launcher/signals.h"

#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gpurun::launcher {

bool forwarded(int sig) {
  return sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGTSTP || sig == SIGCONT;
}

SignalFd::SignalFd(bool forwarding) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  if (forwarding)
    for (int sig : {SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT}) sigaddset(&set, sig);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0 ||
      (fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
    throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));
  signal(SIGPIPE, SIG_IGN);
}

SignalFd::~SignalFd() { close(fd_); }

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev != nullptr) return std::string("SIG") + abbrev;
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) return "SIGRTMIN+" + std::to_string(sig - SIGRTMIN);
  return "signal " + std::to_string(sig);
}

}  // namespace gpurun::launcher
