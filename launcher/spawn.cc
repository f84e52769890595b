#include "launcher/spawn.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gpurun::launcher {
namespace {

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

struct Pipe {
  int read = -1;
  int write = -1;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw sys_error("pipe2");
  return {fds[0], fds[1]};
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// What the child needs, computed before fork.
struct ChildPlan {
  const char* program;
  char* const* argv;
  char* const* envp;
  const char* cwd;  // nullptr: stay in the launcher's
  int stdin_fd;
  int stdout_fd;
  int stderr_fd;
  bool bind;
  int death_signal;
  cpu_set_t mask;
  pid_t parent;
  const char* exec_error;  // message written when execve fails
  std::size_t exec_error_len;
  const char* cwd_error;  // message written when chdir fails
  std::size_t cwd_error_len;
};

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void exec_child(const ChildPlan& plan) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, plan.death_signal);
  if (getppid() != plan.parent) _exit(127);  // gpurun died before the prctl took effect
  if (dup2(plan.stdin_fd, STDIN_FILENO) < 0 || dup2(plan.stdout_fd, STDOUT_FILENO) < 0 ||
      dup2(plan.stderr_fd, STDERR_FILENO) < 0)
    _exit(127);
  syscall(SYS_close_range, 3U, ~0U, 0U);
  // gpurun ignores SIGPIPE and blocks the signals it reads through a signalfd; the rank gets
  // both back as its own parent gave them (other ignored signals, as nohup's, stay ignored).
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (plan.bind) sched_setaffinity(0, sizeof plan.mask, &plan.mask);
  if (plan.cwd != nullptr && chdir(plan.cwd) != 0) {
    [[maybe_unused]] ssize_t n = write(STDERR_FILENO, plan.cwd_error, plan.cwd_error_len);
    _exit(127);
  }
  execve(plan.program, plan.argv, plan.envp);
  [[maybe_unused]] ssize_t n = write(STDERR_FILENO, plan.exec_error, plan.exec_error_len);
  _exit(127);
}

}  // namespace

pid_t spawn_rank(const RankCommand& command, bool with_stdin, RankPipes& pipes) {
  std::vector<char*> argv = pointers(command.argv);
  std::vector<char*> envp = pointers(command.env);
  std::string exec_error = "gpurun: cannot execute " + command.program + "\n";
  std::string cwd_error = "gpurun: cannot enter " + command.cwd + " to start " +
                          command.program + "\n";
  ChildPlan plan{.program = command.program.c_str(),
                 .argv = argv.data(),
                 .envp = envp.data(),
                 .cwd = command.cwd.empty() ? nullptr : command.cwd.c_str(),
                 .bind = command.binding.has_value(),
                 .death_signal = command.death_signal,
                 .parent = getpid(),
                 .exec_error = exec_error.c_str(),
                 .exec_error_len = exec_error.size(),
                 .cwd_error = cwd_error.c_str(),
                 .cwd_error_len = cwd_error.size()};
  if (plan.bind && !command.binding->to_cpu_set(plan.mask).ok()) plan.bind = false;
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  Pipe in = with_stdin ? make_pipe() : Pipe{open("/dev/null", O_RDONLY | O_CLOEXEC), -1};
  if (in.read < 0) throw sys_error("open /dev/null");
  plan.stdin_fd = in.read;
  plan.stdout_fd = out.write;
  plan.stderr_fd = err.write;
  pid_t pid = fork();
  if (pid == 0) exec_child(plan);
  int fork_errno = errno;
  close(out.write);
  close(err.write);
  close(in.read);
  if (pid < 0) {
    for (int fd : {out.read, err.read, in.write})
      if (fd >= 0) close(fd);
    errno = fork_errno;
    throw sys_error("fork");
  }
  setpgid(pid, pid);  // also done by the child: whichever runs first wins the race
  for (int fd : {out.read, err.read, in.write})
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  pipes = RankPipes{.stdout_read = out.read, .stderr_read = err.read, .stdin_write = in.write};
  return pid;
}

}  // namespace gpurun::launcher
