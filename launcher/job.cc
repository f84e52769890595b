#include "launcher/job.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "launcher/signals.h"
#include "runtime/base/crash.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"

namespace gpurun::launcher {
namespace {

void report(const std::string& line) {
  std::string text = "gpurun: " + line + "\n";
  write_all(STDERR_FILENO, text.data(), text.size());
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

struct Job::Rank {
  int rank = 0;
  pid_t pid = -1;
  std::string host;
  bool remote = false;
  bool remote_out = false;  // a remote rank's output streams not yet ended
  bool remote_err = false;
  bool running = true;
  bool connected = false;
  bool finalized = false;
  bool aborted = false;
  // Exited with code 0 before its finalize reached us: how long we wait for it.
  std::optional<std::chrono::steady_clock::time_point> finalize_deadline;
  int stdout_fd = -1;
  int stderr_fd = -1;
  LineForwarder out;
  LineForwarder err;
  std::string who() const {
    std::string pid_text = pid > 0 ? " (pid " + std::to_string(pid) + ")" : "";
    return "rank " + std::to_string(rank) + pid_text;
  }
  std::string where() const { return who() + " on host " + host; }
  bool output_open() const { return stdout_fd >= 0 || stderr_fd >= 0 || remote_out || remote_err; }
};

Job::Job(JobConfig config, EventQueue& events, int signal_fd, RemoteHosts* remote)
    : config_(std::move(config)),
      events_(events),
      signal_fd_(signal_fd),
      remote_(remote),
      start_(Clock::now()) {
  if (remote_ != nullptr) remote_->set_sink(this);
  // Every rank exists from the start: local ones run once added, remote ones run from the
  // start (their daemons start them and report their exit).
  for (int r = 0; r < config_.map.size(); ++r) {
    const NodeRanks& node =
        config_.map
            .nodes[static_cast<std::size_t>(config_.map.node_of[static_cast<std::size_t>(r)])];
    ranks_.push_back(Rank{.rank = r,
                          .host = node.name,
                          .remote = !node.local,
                          .remote_out = !node.local,
                          .remote_err = !node.local,
                          .running = !node.local,
                          .out = forwarder(r, false),
                          .err = forwarder(r, true)});
  }
}

// Where rank r's stdout or stderr goes (launcher/output.h OutputSpec).
LineForwarder Job::forwarder(int r, bool is_stderr) const {
  const OutputSpec& spec = config_.output;
  std::string prefix;
  if (spec.tag) prefix.append("[").append(std::to_string(r)).append("] ");
  bool to_stderr = is_stderr && !spec.merge_stderr;
  int dest = to_stderr ? STDERR_FILENO : STDOUT_FILENO;
  int file = config_.files ? config_.files->fd(r, to_stderr) : -1;
  return LineForwarder(spec.copies(to_stderr) ? dest : -1, prefix, config_.line_max, file,
                       spec.timestamp);
}

Job::~Job() {
  for (Rank& rank : ranks_) {
    close_fd(rank.stdout_fd);
    close_fd(rank.stderr_fd);
  }
}

void Job::add_rank(int rank, pid_t pid, const RankPipes& pipes) {
  Rank& r = ranks_[static_cast<std::size_t>(rank)];
  r.pid = pid;
  r.running = true;
  r.stdout_fd = pipes.stdout_read;
  r.stderr_fd = pipes.stderr_read;
  stdin_.add(rank, pipes.stdin_write);
}

void Job::abandon(int exit_code) {
  if (!exit_code_) exit_code_ = exit_code;
  end_job(SIGTERM);
}

int Job::run() {
  std::vector<pollfd> fds;
  std::vector<Polled> polled;
  stdin_.start();
  if (config_.stdin_rank == kStdinNone) end_stdin();
  while (true) {
    Clock::time_point now = Clock::now();
    on_events();
    check_finalize_deadlines(now);
    check_timers(now);
    if (remote_ != nullptr) remote_->check_deadlines(now);
    if (finished(now)) break;
    build_poll_set(fds, polled);
    int n = poll(fds.data(), fds.size(), poll_timeout_ms(now));
    if (n < 0 && errno != EINTR) {
      report(std::string("poll failed: ") + std::strerror(errno));
      fail(1, "internal error; ending the job");
      continue;
    }
    // PMIx events first: an MPI_Abort is queued before the aborting rank can exit.
    on_events();
    for (std::size_t i = 0; i < fds.size() && n > 0; ++i)
      if (fds[i].revents != 0) dispatch(fds[i], polled[i]);
  }
  if (ending_) kill_ranks(SIGKILL);  // anything the ranks left in their process groups
  for (Rank& rank : ranks_) {
    rank.out.finish();
    rank.err.finish();
  }
  return exit_code_.value_or(0);
}

bool Job::finished(Clock::time_point now) const {
  for (const Rank& rank : ranks_) {
    if (rank.running || rank.finalize_deadline) return false;
    // A rank's children may keep its pipes open after it exits: wait for them a grace only.
    if (rank.output_open() && !(drain_deadline_ && now >= *drain_deadline_)) return false;
  }
  return remote_ == nullptr || remote_->finished();
}

int Job::poll_timeout_ms(Clock::time_point now) const {
  std::optional<Clock::time_point> next;
  auto consider = [&](std::optional<Clock::time_point> t) {
    if (t && (!next || *t < *next)) next = t;
  };
  if (config_.timeout && !ending_) consider(stacks_deadline_.value_or(start_ + *config_.timeout));
  consider(kill_deadline_);
  consider(drain_deadline_);
  for (const Rank& rank : ranks_) consider(rank.finalize_deadline);
  if (remote_ != nullptr) consider(remote_->next_deadline());
  if (!next) return -1;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 60000));
}

void Job::build_poll_set(std::vector<pollfd>& fds, std::vector<Polled>& polled) const {
  fds.clear();
  polled.clear();
  auto add = [&](int fd, short events, PollKind kind, int rank) {
    fds.push_back(pollfd{.fd = fd, .events = events, .revents = 0});
    polled.push_back(Polled{kind, rank});
  };
  add(signal_fd_, POLLIN, PollKind::kSignal, -1);
  add(events_.fd(), POLLIN, PollKind::kEvents, -1);
  if (reading_stdin()) add(STDIN_FILENO, POLLIN, PollKind::kStdin, 0);
  stdin_.each_waiting([&](int fd, int rank) { add(fd, POLLOUT, PollKind::kRankStdin, rank); });
  for (const Rank& rank : ranks_) {
    if (rank.stdout_fd >= 0) add(rank.stdout_fd, POLLIN, PollKind::kStdout, rank.rank);
    if (rank.stderr_fd >= 0) add(rank.stderr_fd, POLLIN, PollKind::kStderr, rank.rank);
  }
  if (remote_ == nullptr) return;
  std::vector<std::uint32_t> tags;
  std::size_t first = fds.size();
  remote_->poll_set(fds, tags);
  for (std::size_t i = first; i < fds.size(); ++i)
    polled.push_back(Polled{PollKind::kRemote, -1, tags[i - first]});
}

// More of stdin is read once every local reader has taken what it had and no remote host has
// a backlog of it (1M: a few round trips), while some reader still wants it.
bool Job::reading_stdin() const {
  if (!stdin_open_ || !stdin_.drained()) return false;
  bool remote = stdin_remote() && !remote_stdin_closed_;
  if (remote && remote_->stdin_backlog() >= (1u << 20)) return false;
  return remote || stdin_.open();
}

void Job::dispatch(const pollfd& fd, const Polled& polled) {
  switch (polled.kind) {
    case PollKind::kSignal:
      on_signals();
      break;
    case PollKind::kEvents:
      break;  // drained before every dispatch
    case PollKind::kStdin:
      on_stdin();
      break;
    case PollKind::kRankStdin:
      stdin_.on_writable(polled.rank);
      break;
    case PollKind::kStdout:
      on_output(ranks_[polled.rank], false);
      break;
    case PollKind::kStderr:
      on_output(ranks_[polled.rank], true);
      break;
    case PollKind::kRemote:
      remote_->on_ready(polled.tag);
      break;
  }
  (void)fd;  // revents is not needed: every handler reads until EOF or EAGAIN
}

void Job::on_events() {
  for (RankEvent& event : events_.drain()) on_event(event);
}

void Job::on_event(RankEvent& event) {
  switch (event.kind) {
    case RankEvent::Kind::kFence:
    case RankEvent::Kind::kModexAsk:
    case RankEvent::Kind::kModexServed:
      if (remote_ != nullptr) remote_->on_local_event(event);
      return;
    default:
      break;
  }
  if (event.rank < 0 || event.rank >= static_cast<int>(ranks_.size())) return;
  Rank& rank = ranks_[static_cast<std::size_t>(event.rank)];
  switch (event.kind) {
    case RankEvent::Kind::kConnected:
      rank.connected = true;
      break;
    case RankEvent::Kind::kFinalized:
      rank.finalized = true;
      rank.finalize_deadline.reset();
      break;
    case RankEvent::Kind::kAbort:
      rank.aborted = true;
      fail(event.code, rank.where() + " ended the job with code " + std::to_string(event.code) +
                           ": " + event.message);
      break;
    default:
      break;
  }
}

void Job::take_signals() {
  pollfd fd{signal_fd_, POLLIN, 0};
  if (poll(&fd, 1, 0) == 1) on_signals();
}

void Job::on_signals() {
  signalfd_siginfo info;
  bool child = false;
  while (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      child = true;
    } else if (forwarded(sig)) {
      forward(sig);
    } else if (ending_) {
      kill_ranks(SIGKILL);  // a second signal: no more grace
    } else {
      report("caught " + signal_name(sig) + "; forwarding it to the ranks and ending the job");
      if (!exit_code_) exit_code_ = 128 + sig;
      end_job(sig);
    }
  }
  if (child) reap_children();
}

void Job::reap_children() {
  on_events();  // an abort queued by a rank that has exited since
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    bool rank_exit = false;
    for (Rank& rank : ranks_) {
      if (rank.remote || rank.pid != pid || !rank.running) continue;
      on_rank_exit(rank, status);
      rank_exit = true;
    }
    if (!rank_exit && remote_ != nullptr) remote_->on_child_exit(pid, status);
  }
}

void Job::on_rank_exit(Rank& rank, int status) {
  rank.running = false;
  stdin_.drop(rank.rank);
  if (std::none_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; }))
    drain_deadline_ = Clock::now() + config_.kill_grace;
  if (ending_ || rank.aborted) return;  // ended by gpurun, or already reported
  std::string where = rank.where();
  if (stacks_deadline_ && WIFSIGNALED(status) && WTERMSIG(status) == crash::stack_signal()) {
    report(where +
           " gave no stack: it does not answer the request (a program not on gpurun's "
           "library, or GPURUN_BACKTRACE=false)");
    return;  // the job ends at the --timeout anyway
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    fail(128 + sig, where + " was killed by signal " + signal_name(sig));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    int code = WEXITSTATUS(status);
    fail(code, where + " exited with code " + std::to_string(code));
  } else if (rank.connected && !rank.finalized) {
    // PMIx tells us of a finalize on its own thread, and a busy machine can deliver the exit
    // first: give the news a moment before calling it a rank that never finalized.
    rank.finalize_deadline = Clock::now() + kFinalizeGrace;
  }
}

void Job::check_finalize_deadlines(Clock::time_point now) {
  for (Rank& rank : ranks_) {
    if (!rank.finalize_deadline || now < *rank.finalize_deadline) continue;
    rank.finalize_deadline.reset();
    if (ending_ || rank.finalized) continue;
    fail(1, rank.where() + " exited without finalizing (MPI_Finalize or PMIx_Finalize)");
  }
}

void Job::on_output(Rank& rank, bool is_stderr) {
  int& fd = is_stderr ? rank.stderr_fd : rank.stdout_fd;
  LineForwarder& forwarder = is_stderr ? rank.err : rank.out;
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) {
    forwarder.feed(buf, static_cast<std::size_t>(n));
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    forwarder.finish();
    close_fd(fd);
  }
}

void Job::on_stdin() {
  char buf[65536];
  ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
  if (n > 0) {
    std::string_view data(buf, static_cast<std::size_t>(n));
    stdin_.feed(data);
    if (stdin_remote() && !remote_stdin_closed_) remote_->send_stdin(data);
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    end_stdin();  // the end reaches the readers once they have the rest
  }
}

void Job::end_stdin() {
  stdin_open_ = false;
  stdin_.end();
  if (stdin_remote() && !remote_stdin_closed_) {
    remote_stdin_closed_ = true;
    remote_->send_stdin("");
  }
}

void Job::check_timers(Clock::time_point now) {
  if (config_.timeout && !ending_ && now >= start_ + *config_.timeout) on_timeout(now);
  if (kill_deadline_ && now >= *kill_deadline_) {
    kill_deadline_.reset();
    kill_ranks(SIGKILL);
  }
}

// With --get-stack-traces, each rank first writes where it is (runtime/base/crash.h), and the
// stacks get a moment to arrive before the job ends.
void Job::on_timeout(Clock::time_point now) {
  std::string past = "the job ran past its --timeout of " +
                     param::Traits<param::Duration>::format(*config_.timeout);
  if (config_.stack_traces && !stacks_deadline_) {
    report(past + "; asking the ranks for their stacks");
    if (!exit_code_) exit_code_ = 124;  // also when every rank is gone before the deadline
    signal_ranks(crash::stack_signal(), false);
    stacks_deadline_ = now + kStackGrace;
  } else if (!stacks_deadline_ || now >= *stacks_deadline_) {
    fail(124, past + "; ending it");
  }
}

void Job::fail(int exit_code, const std::string& line) {
  if (ending_) return;
  report(line);
  if (!exit_code_) exit_code_ = exit_code;
  end_job(SIGTERM);
}

void Job::end_job(int signal) {
  if (ending_) return;
  ending_ = true;
  kill_ranks(signal);
  kill_deadline_ = Clock::now() + config_.kill_grace;
  end_stdin();
  stdin_.close_all();
}

// SIGUSR1, SIGUSR2 and SIGCONT reach the ranks as they are; SIGTSTP stops them (SIGSTOP: a rank
// may ignore SIGTSTP) and then gpurun itself, as the terminal asked.
void Job::forward(int sig) {
  int to_ranks = sig == SIGTSTP ? SIGSTOP : sig;
  GPURUN_LOG(info, launcher, "passing %s on to the ranks", signal_name(to_ranks).c_str());
  signal_ranks(to_ranks, true);
  if (sig == SIGTSTP) raise(SIGSTOP);
}

void Job::signal_ranks(int sig, bool group) {
  for (const Rank& rank : ranks_)
    if (!rank.remote && rank.pid > 0 && rank.running) kill(group ? -rank.pid : rank.pid, sig);
  if (remote_ != nullptr) remote_->signal(sig);
}

void Job::kill_ranks(int signal) {
  // Each rank leads its own process group: the signal reaches what it started as well.
  for (const Rank& rank : ranks_)
    if (!rank.remote && rank.pid > 0 && (rank.running || signal == SIGKILL))
      kill(-rank.pid, signal);
  if (remote_ != nullptr) remote_->kill(signal);
}

void Job::remote_spawned(int rank, int pid) { ranks_[static_cast<std::size_t>(rank)].pid = pid; }

void Job::remote_output(int rank, bool is_stderr, std::string_view data) {
  Rank& r = ranks_[static_cast<std::size_t>(rank)];
  (is_stderr ? r.err : r.out).feed(data.data(), data.size());
}

void Job::remote_output_end(int rank, bool is_stderr) {
  Rank& r = ranks_[static_cast<std::size_t>(rank)];
  (is_stderr ? r.err : r.out).finish();
  (is_stderr ? r.remote_err : r.remote_out) = false;
}

void Job::remote_event(RankEvent event) { on_event(event); }

void Job::remote_exit(int rank, int wait_status) {
  Rank& r = ranks_[static_cast<std::size_t>(rank)];
  if (r.running) on_rank_exit(r, wait_status);
}

void Job::host_failed(int node, const std::string& why) {
  for (Rank& rank : ranks_) {
    if (config_.map.node_of[static_cast<std::size_t>(rank.rank)] != node) continue;
    if (rank.remote_out) rank.out.finish();
    if (rank.remote_err) rank.err.finish();
    rank.remote_out = rank.remote_err = false;
    rank.running = false;
    rank.finalize_deadline.reset();
  }
  if (std::none_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; }))
    drain_deadline_ = Clock::now() + config_.kill_grace;
  fail(1, why + "; ending the job");
}

}  // namespace gpurun::launcher
