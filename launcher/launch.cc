#include "launcher/launch.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "launcher/environment.h"
#include "launcher/job.h"
#include "launcher/job_dir.h"
#include "launcher/params.h"
#include "launcher/plan.h"
#include "launcher/pmix_server.h"
#include "runtime/base/clock.h"

namespace gpurun::launcher {
namespace {

// Startup and shutdown phase times, printed when GPURUN_LAUNCHER_PROFILE is set.
class Profile {
 public:
  Profile() : enabled_(params::profile().get()), last_(clock::now_ns()) {}
  void mark(const char* phase) {
    if (!enabled_) return;
    std::int64_t now = clock::now_ns();
    text_ += std::string(text_.empty() ? "" : ", ") + phase + " " +
             std::to_string((now - last_) / 1000) + "us";
    last_ = now;
  }
  ~Profile() {
    if (enabled_) std::fprintf(stderr, "gpurun: profile: %s\n", text_.c_str());
  }

 private:
  bool enabled_;
  std::int64_t last_;
  std::string text_;
};

// A signalfd for the signals the main loop handles. They are blocked first, here, before
// libpmix starts its thread, so that thread inherits the mask and never takes them.
class SignalFd {
 public:
  SignalFd() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM}) sigaddset(&set, sig);
    if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0 ||
        (fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
      throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));
    signal(SIGPIPE, SIG_IGN);  // a closed output or stdin pipe is handled where written
  }
  ~SignalFd() { close(fd_); }
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

JobConfig job_config(const Options& options) {
  return JobConfig{.tag_output = options.tag_output,
                   .timeout = options.timeout,
                   .kill_grace = params::kill_grace().get(),
                   .line_max = static_cast<std::size_t>(params::line_max().get().bytes),
                   .hostname = host_name()};
}

std::vector<RankCommand> rank_commands(const Options& options, const Placement& placement,
                                       PmixServer& server) {
  std::vector<std::string> env = environment_with(options.exports);
  std::vector<RankCommand> commands;
  for (int rank = 0; rank < options.np; ++rank)
    commands.push_back(RankCommand{.program = options.program,
                                   .argv = options.argv,
                                   .env = server.rank_environment(rank, env),
                                   .binding = placement.binding(rank)});
  return commands;
}

int run_ranks(const Options& options, const std::vector<RankCommand>& commands, JobConfig config,
              EventQueue& events, int signal_fd, bool& ended) {
  Job job(std::move(config), events, signal_fd);
  for (int rank = 0; rank < options.np; ++rank) {
    RankPipes pipes;
    try {
      job.add_rank(spawn_rank(commands[rank], rank == 0, pipes), pipes);
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "gpurun: cannot start rank %d: %s\n", rank, e.what());
      job.abandon(1);
      break;
    }
  }
  int code = job.run();
  ended = job.ended();
  return code;
}

JobLayout job_layout(const Options& options, const Plan& plan, const JobDir& dir,
                     const std::string& hostname) {
  JobLayout layout{.size = options.np,
                   .hostname = hostname,
                   .jobdir = dir.path(),
                   .token = dir.token(),
                   .oversubscribed = plan.placement.oversubscribed};
  if (plan.placement.by_gpu) {
    for (const RankPlace& rank : plan.placement.ranks) {
      layout.rank_gpus.push_back(gpu_bus_ids(plan.topology, rank));
      layout.rank_nics.push_back(nic_name(plan.topology, rank));
    }
  }
  return layout;
}

}  // namespace

int launch(const Options& options) {
  Profile profile;
  SignalFd signals;
  Plan plan = make_plan(options, topo::Topology::Io::kAuto);
  const Placement& placement = plan.placement;
  profile.mark("placement");
  JobDir dir;
  JobConfig config = job_config(options);
  JobLayout layout = job_layout(options, plan, dir, config.hostname);
  set_pmix_environment();
  EventQueue events;
  std::optional<PmixServer> server;
  server.emplace(dir.make_subdir("pmix"), plan.topology, events);
  profile.mark("pmix-init");
  server->register_job(layout);
  std::vector<RankCommand> commands = rank_commands(options, placement, *server);
  profile.mark("register");
  bool ended = false;
  int code = run_ranks(options, commands, std::move(config), events, signals.fd(), ended);
  profile.mark("run");
  if (ended) server->abandon();
  server.reset();
  profile.mark("pmix-finalize");
  dir.remove();
  profile.mark("cleanup");
  return code;
}

}  // namespace gpurun::launcher
