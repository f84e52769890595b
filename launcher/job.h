// The running job: gpurun's main loop. It polls the ranks' output pipes, gpurun's stdin, a
// signalfd (SIGCHLD, SIGINT, SIGTERM), the PMIx event queue and, for a job across hosts, the
// daemons (remote.h), forwards output and stdin, and ends the job when a rank or a host fails,
// the timeout expires or gpurun is signalled. Ranks on remote hosts are handled as local ones:
// their output, events and exits come from their daemon, and ending them is its job.
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
#include "launcher/mapping.h"
#include "launcher/output.h"
#include "launcher/remote.h"
#include "launcher/spawn.h"
#include "launcher/stdin_fan.h"

namespace gpurun::launcher {

struct JobConfig {
  OutputSpec output;
  const OutputFiles* files = nullptr;  // --output-filename's, or none
  std::optional<std::chrono::nanoseconds> timeout;
  bool stack_traces = false;  // --get-stack-traces
  int stdin_rank = 0;         // --stdin: a rank, kStdinAll or kStdinNone (stdin_fan.h)
  std::chrono::nanoseconds kill_grace{0};
  std::size_t line_max = 65536;
  JobMap map;  // every rank's host (reports name it); the local node's ranks run here
};

class Job final : private RemoteSink {
 public:
  // `signal_fd` is a signalfd for SIGCHLD, SIGINT and SIGTERM (blocked in every thread).
  // `remote`: the other hosts of a job across hosts (their ranks are config.map's non-local
  // ones), nullptr for a job on this host alone.
  Job(JobConfig config, EventQueue& events, int signal_fd, RemoteHosts* remote = nullptr);
  ~Job() override;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Whether local rank `rank` is started with a pipe for gpurun's stdin.
  bool takes_stdin(int rank) const { return reads_stdin(config_.stdin_rank, rank); }
  // Takes ownership of the pipes of started local rank `rank`.
  void add_rank(int rank, pid_t pid, const RankPipes& pipes);
  // Ends the ranks already started (a later rank failed to start); run() then returns.
  void abandon(int exit_code);
  // Runs until every rank has exited and its output is forwarded; returns gpurun's exit code.
  int run();
  // True when gpurun ended the ranks (a failure, a signal, the timeout) rather than all of
  // them finishing by themselves.
  bool ended() const { return ending_; }
  // Handles the signals that came meanwhile, without waiting (while the ranks start).
  void take_signals();

 private:
  using Clock = std::chrono::steady_clock;
  struct Rank;
  enum class PollKind : std::uint8_t {
    kSignal,
    kEvents,
    kStdin,
    kRankStdin,
    kStdout,
    kStderr,
    kRemote
  };
  struct Polled {
    PollKind kind;
    int rank;
    std::uint32_t tag = 0;  // kRemote: RemoteHosts' tag
  };

  // RemoteSink
  void remote_spawned(int rank, int pid) override;
  void remote_output(int rank, bool is_stderr, std::string_view data) override;
  void remote_output_end(int rank, bool is_stderr) override;
  void remote_event(RankEvent event) override;
  void remote_exit(int rank, int wait_status) override;
  void host_failed(int node, const std::string& why) override;

  bool finished(Clock::time_point now) const;
  int poll_timeout_ms(Clock::time_point now) const;
  void build_poll_set(std::vector<pollfd>& fds, std::vector<Polled>& polled) const;
  void dispatch(const pollfd& fd, const Polled& polled);
  void on_events();
  void on_event(RankEvent& event);
  void on_signals();
  void reap_children();
  void on_rank_exit(Rank& rank, int status);
  void on_output(Rank& rank, bool is_stderr);
  LineForwarder forwarder(int rank, bool is_stderr) const;
  void forward(int sig);  // launcher/signals.h forwarded()
  // `sig` to every running rank: its process group (`group`), or the rank alone.
  void signal_ranks(int sig, bool group);
  void on_timeout(Clock::time_point now);
  void on_stdin();
  void end_stdin();  // no more input for any rank
  bool stdin_remote() const { return remote_ != nullptr && remote_->stdin_remote(); }
  bool reading_stdin() const;
  void check_timers(Clock::time_point now);
  void check_finalize_deadlines(Clock::time_point now);
  // How long a rank that exited with code 0 may take to have its finalize reach gpurun.
  static constexpr std::chrono::milliseconds kFinalizeGrace{1000};
  // --get-stack-traces: how long the ranks get to write their stacks before the job ends.
  static constexpr std::chrono::milliseconds kStackGrace{1000};
  void fail(int exit_code, const std::string& report);
  void end_job(int signal);
  void kill_ranks(int signal);

  JobConfig config_;
  EventQueue& events_;
  int signal_fd_;
  RemoteHosts* remote_;
  std::vector<Rank> ranks_;
  Clock::time_point start_;
  std::optional<int> exit_code_;
  bool ending_ = false;
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;
  std::optional<Clock::time_point> stacks_deadline_;  // --get-stack-traces: when the job ends
  bool stdin_open_ = true;            // gpurun's stdin still read
  StdinFan stdin_;                    // for the local ranks that read it
  bool remote_stdin_closed_ = false;  // the end of input was sent to the remote hosts
};

}  // namespace gpurun::launcher
