// The running job: gpurun's main loop. It polls the ranks' output pipes, gpurun's stdin, a
// signalfd (SIGCHLD, SIGINT, SIGTERM) and the PMIx event queue, forwards output and stdin,
// and ends the job when a rank fails, the timeout expires or gpurun is signalled.
//
// Single-threaded: everything here runs on gpurun's main thread.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launcher/events.h"
#include "launcher/output.h"
#include "launcher/spawn.h"

namespace gpurun::launcher {

struct JobConfig {
  bool tag_output = false;
  std::optional<std::chrono::nanoseconds> timeout;
  std::chrono::nanoseconds kill_grace{0};
  std::size_t line_max = 65536;
  std::string hostname;
};

class Job {
 public:
  // `signal_fd` is a signalfd for SIGCHLD, SIGINT and SIGTERM (blocked in every thread).
  Job(JobConfig config, EventQueue& events, int signal_fd);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Takes ownership of a started rank's pipes. Ranks are added in rank order.
  void add_rank(pid_t pid, const RankPipes& pipes);
  // Ends the ranks already started (a later rank failed to start); run() then returns.
  void abandon(int exit_code);
  // Runs until every rank has exited and its output is forwarded; returns gpurun's exit code.
  int run();
  // True when gpurun ended the ranks (a failure, a signal, the timeout) rather than all of
  // them finishing by themselves.
  bool ended() const { return ending_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Rank;
  enum class PollKind : std::uint8_t { kSignal, kEvents, kStdin, kRankStdin, kStdout, kStderr };
  struct Polled {
    PollKind kind;
    int rank;
  };

  bool finished(Clock::time_point now) const;
  int poll_timeout_ms(Clock::time_point now) const;
  void build_poll_set(std::vector<pollfd>& fds, std::vector<Polled>& polled) const;
  void dispatch(const pollfd& fd, const Polled& polled);
  void on_events();
  void on_signals();
  void reap_children();
  void on_rank_exit(Rank& rank, int status);
  void on_output(Rank& rank, bool is_stderr);
  void on_stdin();
  void on_rank_stdin_writable();
  void close_rank_stdin();
  void check_timers(Clock::time_point now);
  void check_finalize_deadlines(Clock::time_point now);
  // How long a rank that exited with code 0 may take to have its finalize reach gpurun.
  static constexpr std::chrono::milliseconds kFinalizeGrace{1000};
  void fail(int exit_code, const std::string& report);
  void end_job(int signal);
  void kill_ranks(int signal);

  JobConfig config_;
  EventQueue& events_;
  int signal_fd_;
  std::vector<Rank> ranks_;
  Clock::time_point start_;
  std::optional<int> exit_code_;
  bool ending_ = false;
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;
  bool stdin_open_ = true;     // gpurun's stdin still read
  std::string stdin_pending_;  // read from stdin, not yet written to rank 0
};

}  // namespace gpurun::launcher
