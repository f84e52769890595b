#include "launcher/daemon_job.h"

#include <pmix_common.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "launcher/environment.h"
#include "launcher/job_dir.h"
#include "launcher/params.h"
#include "launcher/plan.h"
#include "launcher/pmix_server.h"
#include "launcher/rankfile.h"
#include "launcher/spawn.h"
#include "launcher/stdin_fan.h"
#include "runtime/base/crash.h"
#include "runtime/base/log.h"

namespace gpurun::launcher {
namespace {

using Clock = std::chrono::steady_clock;
using wire::Type;

// Rank output waits in the pipes (the ranks block) while this much is queued for gpurun.
constexpr std::size_t kOutputBacklog = std::size_t{8} << 20;

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

class HostJob {
 public:
  HostJob(JobSpec spec, wire::Link& link, int signal_fd)
      : spec_(std::move(spec)),
        link_(link),
        signal_fd_(signal_fd),
        kill_grace_(params::kill_grace().get()) {}
  ~HostJob() {
    for (Rank& rank : ranks_)
      for (int* fd : {&rank.out, &rank.err}) close_fd(*fd);
  }
  int run();

 private:
  struct Rank {
    int rank = 0;
    pid_t pid = -1;
    bool running = false;
    int out = -1;
    int err = -1;
  };
  enum class Kind : std::uint8_t { kSignal, kEvents, kLink, kOut, kErr, kIn };

  void set_up();
  bool wait_start();
  void spawn();
  void loop();
  bool finished(Clock::time_point now) const;
  int timeout_ms(Clock::time_point now) const;
  void on_signals();
  void on_events();
  void on_link();
  void on_message(const wire::Message& message);
  void on_fence_done(wire::Decoder& d);
  void on_modex_request(wire::Decoder& d);
  void on_output(Rank& rank, bool is_stderr);
  void on_stdin_message(std::string data);
  void end(int signal);
  void lose_launcher(const std::string& why);
  void send(Type type, std::string body) {
    if (link_open_) link_.send(type, body);
  }

  JobSpec spec_;
  wire::Link& link_;
  bool link_open_ = true;
  int signal_fd_;
  std::chrono::nanoseconds kill_grace_;
  std::optional<Plan> plan_;  // holds the topology the PMIx server uses: declared before it
  std::optional<JobDir> dir_;
  EventQueue events_;
  std::optional<PmixServer> server_;
  std::vector<Rank> ranks_;
  bool started_ = false;
  bool ending_ = false;
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;
  StdinFan stdin_;  // for the ranks here that read gpurun's stdin (--stdin)
  std::map<std::pair<std::vector<int>, std::uint32_t>, PmixReply> fences_;
  std::map<std::uint32_t, PmixReply> modex_;
  std::uint32_t next_modex_ = 1;
};

void HostJob::set_up() {
  const std::vector<int>& local = spec_.map.nodes[static_cast<std::size_t>(spec_.node)].ranks;
  Options options;
  options.bind_to = spec_.bind;
  options.map_by = spec_.map_by;
  options.ranks_per_domain = spec_.ranks_per_domain;
  options.gpus_per_rank = spec_.gpus_per_rank;
  options.cpus_per_rank = spec_.cpus_per_rank;
  options.cpus_from_threads = spec_.cpus_from_threads;
  options.hwthread_cpus = spec_.hwthread_cpus;
  plan_.emplace(make_host_plan(options, static_cast<int>(local.size()), spec_.share));
  bind_to_slots(*plan_, local, spec_.slots);
  dir_.emplace();
  JobLayout layout{.map = spec_.map,
                   .node = spec_.node,
                   .jobdir = dir_->path(),
                   .token = dir_->token(),
                   .oversubscribed = plan_->placement.oversubscribed,
                   .cores = plan_->placement.cores,
                   .copy = copy_key(*plan_),
                   .shm_eager = plan_->copy.shm_eager,
                   .app_sizes = app_sizes(spec_.apps, spec_.map.size())};
  if (plan_->placement.has_gpus()) {
    for (const RankPlace& place : plan_->placement.ranks) {
      layout.rank_gpus.push_back(gpu_bus_ids(plan_->topology, place));
      layout.rank_nics.push_back(nic_name(plan_->topology, place));
    }
  }
  server_.emplace(dir_->make_subdir("pmix"), plan_->topology, events_, spec_.nspace, true);
  server_->register_job(layout);
  if (spec_.report_bindings)
    report_bindings(*plan_, local, spec_.map.nodes[static_cast<std::size_t>(spec_.node)].name);
  for (int rank : local) ranks_.push_back(Rank{.rank = rank});
}

bool HostJob::wait_start() {
  while (link_open_ && !started_ && !ending_) {
    pollfd fds[2] = {{.fd = signal_fd_, .events = POLLIN, .revents = 0},
                     {.fd = link_.fd(), .events = POLLIN, .revents = 0}};
    poll(fds, 2, -1);
    if (fds[0].revents != 0) on_signals();
    if (fds[1].revents != 0) on_link();
  }
  return started_ && !ending_;
}

void HostJob::spawn() {
  if (!spec_.cwd.empty() && chdir(spec_.cwd.c_str()) != 0)
    GPURUN_LOG(
        warn, launcher, "host %s: cannot enter %s (%m); the ranks start where the daemon did",
        spec_.map.nodes[static_cast<std::size_t>(spec_.node)].name.c_str(), spec_.cwd.c_str());
  std::vector<std::vector<std::string>> envs;  // per program: the job's are the daemon's own
  for (const App& app : spec_.apps) envs.push_back(environment_with(app.exports));
  std::vector<int> pids;
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    Rank& rank = ranks_[i];
    auto k = static_cast<std::size_t>(app_of_rank(spec_.apps, rank.rank));
    std::vector<std::string> env = envs[k];
    add_rank_variables(env, RankPosition{.rank = rank.rank,
                                         .size = spec_.map.size(),
                                         .local_rank = static_cast<int>(i),
                                         .local_size = static_cast<int>(ranks_.size())});
    RankCommand command{.program = spec_.apps[k].program,
                        .argv = spec_.apps[k].argv,
                        .env = server_->rank_environment(rank.rank, env),
                        .cwd = spec_.apps[k].wdir,
                        .binding = plan_->placement.binding(static_cast<int>(i))};
    RankPipes pipes;
    try {
      rank.pid = spawn_rank(command, reads_stdin(spec_.stdin_rank, rank.rank), pipes);
    } catch (const std::runtime_error& e) {
      send(Type::kFailure,
           wire::Encoder()
               .str("cannot start rank " + std::to_string(rank.rank) + ": " + e.what())
               .take());
      end(SIGTERM);
      break;
    }
    rank.running = true;
    rank.out = pipes.stdout_read;
    rank.err = pipes.stderr_read;
    stdin_.add(rank.rank, pipes.stdin_write);
    pids.push_back(rank.pid);
  }
  send(Type::kSpawned, wire::Encoder().ints(pids).take());
  stdin_.start();
}

int HostJob::run() {
  try {
    set_up();
  } catch (const std::exception& e) {
    send(Type::kFailure, wire::Encoder().str(e.what()).take());
    link_.flush_blocking(1000);
    return 1;
  }
  send(Type::kReady, wire::Encoder().str(dir_->path()).str(dir_->token()).take());
  if (wait_start()) {
    spawn();
    loop();
  }
  if (ending_) server_->abandon();  // see PmixServer::abandon
  server_.reset();
  dir_->remove();
  send(Type::kBye, "");
  link_.flush_blocking(2000);
  return link_open_ ? 0 : 1;
}

void HostJob::loop() {
  std::vector<pollfd> fds;
  std::vector<std::pair<Kind, std::size_t>> what;
  while (true) {
    Clock::time_point now = Clock::now();
    on_events();
    if (kill_deadline_ && now >= *kill_deadline_) {
      kill_deadline_.reset();
      for (Rank& rank : ranks_)
        if (rank.pid > 0) kill(-rank.pid, SIGKILL);
    }
    if (finished(now)) break;
    fds.clear();
    what.clear();
    auto add = [&](int fd, short ev, Kind kind, std::size_t i) {
      fds.push_back(pollfd{.fd = fd, .events = ev, .revents = 0});
      what.emplace_back(kind, i);
    };
    add(signal_fd_, POLLIN, Kind::kSignal, 0);
    add(events_.fd(), POLLIN, Kind::kEvents, 0);
    if (link_open_)
      add(link_.fd(), static_cast<short>(POLLIN | (link_.wants_write() ? POLLOUT : 0)), Kind::kLink,
          0);
    bool room = !link_open_ || link_.queued() < kOutputBacklog;
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
      if (room && ranks_[i].out >= 0) add(ranks_[i].out, POLLIN, Kind::kOut, i);
      if (room && ranks_[i].err >= 0) add(ranks_[i].err, POLLIN, Kind::kErr, i);
    }
    stdin_.each_waiting(
        [&](int fd, int rank) { add(fd, POLLOUT, Kind::kIn, static_cast<std::size_t>(rank)); });
    poll(fds.data(), fds.size(), timeout_ms(now));
    on_events();
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto [kind, index] = what[i];
      if (kind == Kind::kSignal) on_signals();
      if (kind == Kind::kLink) on_link();
      if (kind == Kind::kOut || kind == Kind::kErr) on_output(ranks_[index], kind == Kind::kErr);
      if (kind == Kind::kIn) stdin_.on_writable(static_cast<int>(index));
    }
  }
}

bool HostJob::finished(Clock::time_point now) const {
  for (const Rank& rank : ranks_) {
    if (rank.running) return false;
    bool open = rank.out >= 0 || rank.err >= 0;
    if (open && !(drain_deadline_ && now >= *drain_deadline_)) return false;
  }
  return true;
}

int HostJob::timeout_ms(Clock::time_point now) const {
  std::optional<Clock::time_point> next = kill_deadline_;
  if (drain_deadline_ && (!next || *drain_deadline_ < *next)) next = drain_deadline_;
  if (!next) return -1;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 60000));
}

void HostJob::on_signals() {
  signalfd_siginfo info;
  bool child = false;
  while (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo == SIGCHLD)
      child = true;
    else
      lose_launcher("got " + std::string(strsignal(static_cast<int>(info.ssi_signo))));
  }
  if (!child) return;
  int status = 0;
  for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
    for (Rank& rank : ranks_) {
      if (rank.pid != pid || !rank.running) continue;
      rank.running = false;
      stdin_.drop(rank.rank);
      send(Type::kRankExit, wire::Encoder().i32(rank.rank).i32(status).take());
    }
  }
  if (std::none_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; }))
    drain_deadline_ = Clock::now() + kill_grace_;
}

void HostJob::on_events() {
  for (RankEvent& event : events_.drain()) {
    switch (event.kind) {
      case RankEvent::Kind::kConnected:
      case RankEvent::Kind::kFinalized:
      case RankEvent::Kind::kAbort:
        send(Type::kRankEvent, wire::Encoder()
                                   .u32(static_cast<std::uint32_t>(event.kind))
                                   .i32(event.rank)
                                   .i32(event.code)
                                   .str(event.message)
                                   .take());
        break;
      case RankEvent::Kind::kFence:
        if (!link_open_) {
          event.reply(PMIX_ERR_UNREACH, "");
          break;
        }
        send(Type::kFence,
             wire::Encoder().u32(event.sequence).ints(event.participants).str(event.data).take());
        fences_[{std::move(event.participants), event.sequence}] = std::move(event.reply);
        break;
      case RankEvent::Kind::kModexAsk:
        if (!link_open_) {
          event.reply(PMIX_ERR_UNREACH, "");
          break;
        }
        modex_[next_modex_] = std::move(event.reply);
        send(Type::kModexRequest, wire::Encoder().u32(next_modex_++).i32(event.rank).take());
        break;
      case RankEvent::Kind::kModexServed:
        send(Type::kModexReply,
             wire::Encoder().u32(event.sequence).i32(event.code).str(event.data).take());
        break;
    }
  }
}

void HostJob::on_link() {
  if (!link_open_) return;
  if (!link_.flush()) return lose_launcher(link_.error());
  bool open = link_.receive();
  try {
    while (auto message = link_.next()) on_message(*message);
  } catch (const wire::ProtocolError& e) {
    return lose_launcher(std::string("malformed message: ") + e.what());
  }
  if (!open) lose_launcher(link_.error());
}

void HostJob::on_message(const wire::Message& message) {
  wire::Decoder d(message.body);
  switch (message.type) {
    case Type::kStart:
      started_ = true;
      break;
    case Type::kKill:
      end(d.i32());
      break;
    case Type::kSignal: {
      int sig = d.i32();
      bool group = sig != crash::stack_signal();  // a stack request is for the rank alone
      for (Rank& rank : ranks_)
        if (rank.pid > 0 && rank.running) kill(group ? -rank.pid : rank.pid, sig);
      break;
    }
    case Type::kStdin:
      on_stdin_message(d.str());
      break;
    case Type::kFenceDone:
      on_fence_done(d);
      break;
    case Type::kModexRequest:
      on_modex_request(d);
      break;
    case Type::kModexReply: {
      std::uint32_t id = d.u32();
      int status = d.i32();
      auto it = modex_.find(id);
      if (it == modex_.end()) break;
      it->second(status, d.str());
      modex_.erase(it);
      break;
    }
    default:
      throw wire::ProtocolError("unexpected message " +
                                std::to_string(static_cast<std::uint32_t>(message.type)));
  }
}

void HostJob::on_fence_done(wire::Decoder& d) {
  std::uint32_t sequence = d.u32();
  std::vector<int> participants = d.ints();
  int status = d.i32();
  auto it = fences_.find({participants, sequence});
  if (it == fences_.end()) return;
  it->second(status, d.str());
  fences_.erase(it);
}

// gpurun asks for the data of one of this host's ranks (another host's direct modex): libpmix
// answers once the rank has committed it, and the main loop sends it (kModexServed).
void HostJob::on_modex_request(wire::Decoder& d) {
  std::uint32_t id = d.u32();
  int rank = d.i32();
  EventQueue* events = &events_;
  server_->request_modex(rank, [events, id](int status, std::string data) {
    events->push(RankEvent{.kind = RankEvent::Kind::kModexServed,
                           .code = status,
                           .sequence = id,
                           .data = std::move(data)});
  });
}

void HostJob::on_output(Rank& rank, bool is_stderr) {
  int& fd = is_stderr ? rank.err : rank.out;
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) {
    send(Type::kOutput, wire::Encoder()
                            .i32(rank.rank)
                            .u32(is_stderr ? 2 : 1)
                            .str(std::string_view(buf, static_cast<std::size_t>(n)))
                            .take());
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    close_fd(fd);
    send(Type::kOutputEnd, wire::Encoder().i32(rank.rank).u32(is_stderr ? 2 : 1).take());
  }
}

void HostJob::on_stdin_message(std::string data) {
  if (data.empty())
    stdin_.end();
  else
    stdin_.feed(data);
}

void HostJob::end(int signal) {
  ending_ = true;
  for (Rank& rank : ranks_)
    if (rank.pid > 0 && (rank.running || signal == SIGKILL)) kill(-rank.pid, signal);
  if (signal != SIGKILL && !kill_deadline_ && started_) kill_deadline_ = Clock::now() + kill_grace_;
  stdin_.close_all();
}

void HostJob::lose_launcher(const std::string& why) {
  if (link_open_) GPURUN_LOG(info, launcher, "daemon: lost gpurun (%s); ending", why.c_str());
  link_open_ = false;
  for (auto& [key, reply] : fences_) reply(PMIX_ERR_UNREACH, "");
  fences_.clear();
  for (auto& [id, reply] : modex_) reply(PMIX_ERR_UNREACH, "");
  modex_.clear();
  if (!ending_) end(SIGTERM);
}

}  // namespace

int serve_job(JobSpec spec, wire::Link& link, int signal_fd) {
  HostJob job(std::move(spec), link, signal_fd);
  return job.run();
}

}  // namespace gpurun::launcher
