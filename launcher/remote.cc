// RemoteHosts: the daemons' life cycle (launch agents, connections, authentication, start-up,
// failures, the end). The messages of a running job are in remote_messages.cc.
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "launcher/agent.h"
#include "launcher/auth.h"
#include "launcher/cli.h"
#include "launcher/machine.h"
#include "launcher/remote_host.h"
#include "launcher/signals.h"
#include "launcher/spawn.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"

extern char** environ;

namespace gpurun::launcher {
namespace {

constexpr std::size_t kAgentTextMax = 4096;
// How long a connection may take to prove itself before it is dropped.
constexpr std::chrono::seconds kProofTimeout{5};
// How long a lost connection's report waits for the agent's exit status, which says more.
constexpr std::chrono::milliseconds kLossReportDelay{200};

std::string status_text(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_name(WTERMSIG(status));
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

int ms(std::chrono::nanoseconds d) {
  return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

}  // namespace

RemoteHosts::RemoteHosts(JobSpec spec, RemoteSettings settings, EventQueue& events)
    : spec_(std::move(spec)),
      settings_(std::move(settings)),
      events_(events),
      local_node_(spec_.map.local_node()),
      fences_(spec_.map.node_of, static_cast<int>(spec_.map.nodes.size())) {
  for (std::size_t n = 0; n < spec_.map.nodes.size(); ++n) {
    const NodeRanks& node = spec_.map.nodes[n];
    if (node.local) {
      hosts_.push_back(nullptr);
      continue;
    }
    auto host = std::make_unique<Host>(static_cast<int>(n), node.name);
    hosts_.push_back(std::move(host));
  }
}

RemoteHosts::~RemoteHosts() {
  stop_agents();
  clean_dead_hosts();
}

int RemoteHosts::start(int signal_fd) {
  secret_ = auth::make_secret();
  auth::hmac_sha256(secret_, "");  // libcrypto is there, or the job stops here
  std::vector<std::string> names;
  for (const auto& host : hosts_)
    if (host) names.push_back(host->name);
  listener_ = std::make_unique<Listener>(listen_addresses(names));
  GPURUN_LOG(info, launcher, "listening for %zu daemons on %s", names.size(),
             listener_->endpoints().c_str());
  for (auto& host : hosts_)
    if (host) spawn_agent(*host);
  Clock::time_point deadline = Clock::now() + settings_.start_timeout;
  while (true) {
    if (startup_error_) throw HostError(*startup_error_);
    bool ready = true;
    for (const auto& host : hosts_) ready &= !host || host->ready;
    if (ready) break;
    if (Clock::now() >= deadline) throw_not_ready();
    if (int sig = wait_startup(signal_fd, deadline); sig != 0) return sig;
  }
  starting_ = false;
  listener_.reset();  // every daemon is in: nobody else may connect
  return 0;
}

void RemoteHosts::throw_not_ready() const {
  for (const auto& host : hosts_)
    if (host && !host->ready)
      throw HostError("host " + host->name + ": its daemon was not ready within " +
                      param::Traits<param::Duration>::format(settings_.start_timeout) +
                      " (GPURUN_LAUNCHER_START_TIMEOUT)" +
                      (host->agent_text.empty() ? "" : "; " + last_line(host->agent_text)));
  throw std::logic_error("throw_not_ready: every host is ready");
}

int RemoteHosts::wait_startup(int signal_fd, Clock::time_point deadline) {
  std::vector<pollfd> fds{pollfd{.fd = signal_fd, .events = POLLIN, .revents = 0}};
  std::vector<std::uint32_t> tags{0};
  poll_set(fds, tags);
  Clock::time_point now = Clock::now();
  Clock::time_point until = std::min(deadline, next_deadline().value_or(deadline));
  auto wait = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
  poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait, 0, 1000)));
  if (fds[0].revents != 0) {
    signalfd_siginfo info;
    while (read(signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      int sig = static_cast<int>(info.ssi_signo);
      if (sig != SIGCHLD) return sig;
      int status = 0;
      for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) on_child_exit(pid, status);
    }
  }
  for (std::size_t i = 1; i < fds.size(); ++i)
    if (fds[i].revents != 0) on_ready(tags[i]);
  check_deadlines(Clock::now());
  return 0;
}

void RemoteHosts::spawn_agent(Host& host) {
  std::vector<std::string> command = {settings_.gpurun_path, "--daemon", listener_->endpoints(),
                                      std::to_string(host.node),
                                      std::to_string(ms(settings_.start_timeout))};
  RankCommand agent{.death_signal = SIGTERM};
  RankPipes pipes;
  try {
    agent.argv = agent_argv(settings_.agent, host.name, command);
    agent.program = find_program(agent.argv.front());
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) agent.env.emplace_back(*e);
    host.agent = spawn_rank(agent, true, pipes);
  } catch (const std::exception& e) {
    fail_host(host, std::string("cannot start the launch agent: ") + e.what());
    return;
  }
  GPURUN_LOG(debug, launcher, "host %s: agent pid %d", host.name.c_str(), host.agent);
  host.agent_running = true;
  host.agent_out = pipes.stdout_read;
  host.agent_err = pipes.stderr_read;
  // The secret goes to the daemon's stdin through the agent, then stdin ends.
  std::string line = secret_ + "\n";
  [[maybe_unused]] ssize_t n = write(pipes.stdin_write, line.data(), line.size());
  close(pipes.stdin_write);
}

void RemoteHosts::accept_from(int fd) {
  std::string peer;
  for (int client; (client = Listener::accept_on(fd, peer)) >= 0;) {
    wire::set_liveness(client, ms(settings_.host_timeout));
    auto pending = std::make_unique<Pending>();
    pending->link = std::make_unique<wire::Link>(client);
    pending->challenge = auth::random_bytes(auth::kNonceBytes);
    pending->peer = peer;
    pending->deadline = Clock::now() + kProofTimeout;
    pending->link->send(wire::Type::kChallenge, wire::Encoder().str(pending->challenge).take());
    pending_.push_back(std::move(pending));
  }
}

void RemoteHosts::on_pending(std::size_t index) {
  Pending& pending = *pending_[index];
  bool open = pending.link->receive();
  try {
    if (auto message = pending.link->next()) {
      if (message->type != wire::Type::kProof) throw wire::ProtocolError("no proof");
      on_proof(pending, message->body);
      pending.done = true;
    }
  } catch (const wire::ProtocolError& e) {
    GPURUN_LOG(warn, launcher, "dropped a connection from %s: %s", pending.peer.c_str(), e.what());
    pending.done = true;
  }
  if (!open) pending.done = true;
}

void RemoteHosts::on_proof(Pending& pending, const std::string& body) {
  wire::Decoder d(body);
  std::uint32_t node = d.u32();
  std::string nonce = d.str();
  std::string proof = d.str();
  std::string machine = d.str();
  Host* host = node < hosts_.size() ? hosts_[node].get() : nullptr;
  if (host == nullptr || host->link || host->gone)
    throw wire::ProtocolError("it claims node " + std::to_string(node) + ", which waits for none");
  if (!auth::same(proof, auth::daemon_proof(secret_, node, pending.challenge, nonce))) {
    pending.link->send(wire::Type::kReject, wire::Encoder().str("authentication failed").take());
    pending.link->flush_blocking(100);
    fail_host(*host,
              "its daemon failed authentication (it does not have this job's secret; "
              "connection from " +
                  pending.peer + ")");
    return;
  }
  pending.link->set_authenticated();
  pending.link->send(
      wire::Type::kAccept,
      wire::Encoder().str(auth::launcher_proof(secret_, node, pending.challenge, nonce)).take());
  host->link = std::move(pending.link);
  host->authenticated = true;
  if (!host->agent_text.empty()) host->err.feed(host->agent_text.data(), host->agent_text.size());
  host->agent_text.clear();
  host->machine = std::move(machine);
  bool all_in = true;
  for (const auto& h : hosts_) all_in &= !h || h->authenticated;
  if (all_in) send_jobs();
}

void RemoteHosts::send_jobs() {
  std::vector<std::string> machine_of(hosts_.size());
  for (std::size_t n = 0; n < hosts_.size(); ++n)
    machine_of[n] = hosts_[n] ? hosts_[n]->machine : machine_id();
  shares_ = cpu_shares(spec_.map, machine_of);
  for (std::size_t n = 0; n < hosts_.size(); ++n) {
    if (!hosts_[n] || !hosts_[n]->link) continue;
    JobSpec spec = spec_;
    spec.node = static_cast<int>(n);
    spec.share = shares_[n];
    hosts_[n]->link->send(wire::Type::kJob, encode(spec));
  }
}

CpuShare RemoteHosts::local_share() const {
  if (local_node_ < 0 || static_cast<std::size_t>(local_node_) >= shares_.size()) return {};
  return shares_[static_cast<std::size_t>(local_node_)];
}

void RemoteHosts::on_agent_output(Host& host, bool is_stderr) {
  int& fd = is_stderr ? host.agent_err : host.agent_out;
  char buf[16384];
  while (fd >= 0) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (host.authenticated) {
        (is_stderr ? host.err : host.out).feed(buf, static_cast<std::size_t>(n));
      } else {
        host.agent_text.append(buf, static_cast<std::size_t>(n));
        if (host.agent_text.size() > kAgentTextMax)
          host.agent_text.erase(0, host.agent_text.size() - kAgentTextMax);
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    (is_stderr ? host.err : host.out).finish();
    close(fd);
    fd = -1;
  }
}

bool RemoteHosts::on_child_exit(pid_t pid, int status) {
  for (auto& h : hosts_) {
    if (!h || h->agent != pid || !h->agent_running) continue;
    Host& host = *h;
    host.agent_running = false;
    host.agent_status = status;
    on_agent_output(host, false);  // what it printed before it exited
    on_agent_output(host, true);
    GPURUN_LOG(debug, launcher, "host %s: agent %s", host.name.c_str(),
               status_text(status).c_str());
    if (!host.authenticated && !host.gone)
      fail_host(host, agent_failure(host));
    else if (host.lost)
      report_lost(host);
    return true;
  }
  return false;
}

std::string RemoteHosts::agent_failure(const Host& host) const {
  std::string line = last_line(host.agent_text);
  std::string how = "the launch agent " + status_text(host.agent_status);
  if (line.empty()) return how + " before its daemon connected (agent: " + settings_.agent + ")";
  return line + " (" + how + ")";
}

void RemoteHosts::on_link_lost(Host& host, std::string error) {
  host.link.reset();
  if (host.bye || host.gone) return;
  host.lost = error;
  if (!host.agent_running)
    report_lost(host);
  else
    host.lost_report_at = Clock::now() + kLossReportDelay;
}

void RemoteHosts::report_lost(Host& host) {
  std::string why = "lost its gpurun daemon (" + host.lost.value_or("connection lost");
  if (!host.agent_running) why += "; the daemon " + status_text(host.agent_status);
  host.lost.reset();
  host.lost_report_at.reset();
  fail_host(host, why + ")");
}

void RemoteHosts::fail_host(Host& host, const std::string& why) {
  if (host.gone) return;
  host.gone = true;
  host.link.reset();
  host.settle_deadline = Clock::now() + settings_.kill_grace + std::chrono::seconds(1);
  std::string line = "host " + host.name + ": " + why;
  GPURUN_LOG(debug, launcher, "%s", line.c_str());
  if (starting_) {
    if (!startup_error_) startup_error_ = line;
  } else if (sink_ != nullptr) {
    sink_->host_failed(host.node, line);
  }
}

void RemoteHosts::check_deadlines(Clock::time_point now) {
  for (auto& h : hosts_) {
    if (!h) continue;
    if (h->lost_report_at && now >= *h->lost_report_at) report_lost(*h);
    if (!h->agent_running || !h->settle_deadline || now < *h->settle_deadline) continue;
    // The daemon is done or gone but its agent lingers: end the agent's process group.
    ::kill(-h->agent, h->agent_signalled ? SIGKILL : SIGTERM);
    h->agent_signalled = true;
    h->settle_deadline = now + std::chrono::seconds(1);
  }
  std::erase_if(pending_,
                [&](const std::unique_ptr<Pending>& p) { return p->done || now >= p->deadline; });
}

std::optional<RemoteHosts::Clock::time_point> RemoteHosts::next_deadline() const {
  std::optional<Clock::time_point> next;
  auto consider = [&](std::optional<Clock::time_point> t) {
    if (t && (!next || *t < *next)) next = t;
  };
  for (const auto& h : hosts_) {
    if (!h) continue;
    consider(h->lost_report_at);
    if (h->agent_running) consider(h->settle_deadline);
  }
  for (const auto& p : pending_) consider(p->deadline);
  return next;
}

bool RemoteHosts::finished() const {
  for (const auto& h : hosts_)
    if (h && (!(h->bye || h->gone) || h->agent_running || h->lost)) return false;
  return true;
}

void RemoteHosts::stop_agents() {
  for (auto& h : hosts_)
    if (h) h->link.reset();  // a daemon that loses gpurun ends its ranks and cleans its host
  pending_.clear();
  listener_.reset();  // a daemon still connecting is refused at once
  auto wait_all = [&](std::chrono::nanoseconds limit) {
    Clock::time_point until = Clock::now() + limit;
    while (true) {
      bool running = false;
      for (auto& h : hosts_) {
        if (!h || !h->agent_running) continue;
        int status = 0;
        if (waitpid(h->agent, &status, WNOHANG) == h->agent) {
          h->agent_running = false;
          h->agent_status = status;
        } else {
          running = true;
        }
      }
      if (!running || Clock::now() >= until) return running;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  if (!wait_all(settings_.kill_grace + std::chrono::seconds(2))) return;
  for (auto& h : hosts_)
    if (h && h->agent_running) ::kill(-h->agent, SIGTERM);
  if (!wait_all(std::chrono::seconds(1))) return;
  for (auto& h : hosts_)
    if (h && h->agent_running) ::kill(-h->agent, SIGKILL);
  wait_all(std::chrono::seconds(1));
}

void RemoteHosts::clean_dead_hosts() {
  for (auto& h : hosts_) {
    if (!h || h->bye || h->jobdir.empty()) continue;
    // Its daemon died without cleaning up: remove its job directory and segments through
    // the agent, if the host still answers.
    RankCommand cleanup{.death_signal = SIGTERM};
    RankPipes pipes;
    try {
      cleanup.argv = agent_argv(settings_.agent, h->name,
                                {settings_.gpurun_path, "--host-cleanup", h->jobdir, h->token});
      cleanup.program = find_program(cleanup.argv.front());
      for (char** e = environ; e != nullptr && *e != nullptr; ++e) cleanup.env.emplace_back(*e);
      pid_t pid = spawn_rank(cleanup, false, pipes);
      for (int fd : {pipes.stdout_read, pipes.stderr_read}) close(fd);
      int status = 0;
      Clock::time_point until = Clock::now() + std::chrono::seconds(5);
      while (waitpid(pid, &status, WNOHANG) == 0) {
        if (Clock::now() >= until) {
          ::kill(-pid, SIGKILL);
          waitpid(pid, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      GPURUN_LOG(debug, launcher, "host %s: cleanup %s", h->name.c_str(),
                 status_text(status).c_str());
    } catch (const std::exception& e) {
      GPURUN_LOG(warn, launcher, "host %s: cannot clean up: %s", h->name.c_str(), e.what());
    }
  }
}

}  // namespace gpurun::launcher
