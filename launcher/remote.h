// gpurun's side of a job across hosts: one daemon per remote host, started through the launch
// agent, authenticated with the job's secret (auth.h), talking the protocol of wire.h.
//
// gpurun gathers the job-wide fences (fence.h) and routes direct modex requests to the host of
// the rank asked for, its own PMIx server included. The daemons' rank output, events and exits
// go to a RemoteSink (the Job), which decides the job's fate as for its own ranks.
//
// Single-threaded: everything runs on gpurun's main thread.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/events.h"
#include "launcher/fence.h"
#include "launcher/job_spec.h"
#include "launcher/listener.h"
#include "launcher/wire.h"

namespace gpurun::launcher {

class PmixServer;

// What the job hears from the remote hosts.
class RemoteSink {
 public:
  virtual ~RemoteSink() = default;
  virtual void remote_spawned(int rank, int pid) = 0;
  virtual void remote_output(int rank, bool is_stderr, std::string_view data) = 0;
  virtual void remote_output_end(int rank, bool is_stderr) = 0;
  virtual void remote_event(RankEvent event) = 0;  // kConnected, kFinalized, kAbort
  virtual void remote_exit(int rank, int wait_status) = 0;
  // Node `node`'s daemon failed or vanished: its ranks are gone. `why`: one line, host first.
  virtual void host_failed(int node, const std::string& why) = 0;
};

// A host could not be started: the message is one line naming the host and the cause.
class HostError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RemoteSettings {
  std::string agent;        // the launch agent command
  std::string gpurun_path;  // gpurun's path on the remote hosts
  std::chrono::nanoseconds start_timeout{0};
  std::chrono::nanoseconds host_timeout{0};
  std::chrono::nanoseconds kill_grace{0};
};

class RemoteHosts {
 public:
  using Clock = std::chrono::steady_clock;

  // `spec` describes the job (spec.node is set per host); `events` is where the local PMIx
  // server's direct modex answers for other hosts go.
  RemoteHosts(JobSpec spec, RemoteSettings settings, EventQueue& events);
  // Stops what still runs: closes the links (each daemon then ends its ranks and cleans its
  // host), waits for the agents, and cleans up after daemons that died.
  ~RemoteHosts();
  RemoteHosts(const RemoteHosts&) = delete;
  RemoteHosts& operator=(const RemoteHosts&) = delete;

  // Starts every remote host's daemon and returns once all are ready (authenticated, PMIx
  // server up, ranks registered), or the signal (SIGINT, SIGTERM) read from `signal_fd` that
  // came first. Throws HostError naming the first host that failed.
  int start(int signal_fd);
  // Where the daemons' news goes (the Job sets itself), and gpurun's own PMIx server, which
  // answers other hosts' direct modex requests for its ranks (nullptr: gpurun runs no rank).
  void set_sink(RemoteSink* sink) { sink_ = sink; }
  void set_local_server(PmixServer* server) { local_server_ = server; }
  // Tells every daemon to start its ranks.
  void start_ranks();
  // gpurun's own host's share of its machine's ranks (machine.h), known once start() returned.
  CpuShare local_share() const;

  // The main loop's part: fds to poll (with tags to hand back), what to do when one is ready.
  void poll_set(std::vector<pollfd>& fds, std::vector<std::uint32_t>& tags) const;
  void on_ready(std::uint32_t tag);
  // A fence or direct modex request of the local PMIx server, or its answer to one of ours.
  void on_local_event(RankEvent& event);
  // True when `pid` was a launch agent (then it is accounted for).
  bool on_child_exit(pid_t pid, int status);
  void check_deadlines(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;

  void kill(int signal);
  // A signal for every remote rank that does not end the job (launcher/signals.h forwarded()),
  // sent before this call returns (gpurun may stop right after).
  void signal(int signal);
  // gpurun's stdin for the ranks on remote hosts that read it (--stdin); empty: its end.
  void send_stdin(std::string_view data);
  // Whether a rank that reads gpurun's stdin runs on a remote host.
  bool stdin_remote() const;
  // The most stdin queued for one of those hosts.
  std::size_t stdin_backlog() const;
  // Every daemon said goodbye or is gone, and every agent has exited.
  bool finished() const;

 private:
  struct Host;
  struct Pending;

  void spawn_agent(Host& host);
  [[noreturn]] void throw_not_ready() const;
  // One round of the start-up loop; returns a signal that came (SIGINT, SIGTERM) or 0.
  int wait_startup(int signal_fd, Clock::time_point deadline);
  void accept_from(int fd);
  void on_pending(std::size_t index);
  void on_proof(Pending& pending, const std::string& body);
  // Once every daemon is in: each host's share of its machine, then the job to each daemon.
  void send_jobs();
  void on_agent_output(Host& host, bool is_stderr);
  void on_link(Host& host);
  void dispatch(Host& host, const wire::Message& message);
  // The messages about the host's ranks; false when `message` is none of them.
  bool dispatch_rank_message(Host& host, const wire::Message& message);
  void on_link_lost(Host& host, std::string error);
  void fail_host(Host& host, const std::string& why);
  void report_lost(Host& host);
  std::string agent_failure(const Host& host) const;
  void fence(int node, std::vector<int> participants, std::uint32_t sequence, std::string data);
  void route_modex(std::uint32_t id, int rank);
  void deliver_modex(std::uint32_t id, int status, const std::string& data);
  void stop_agents();
  void clean_dead_hosts();
  template <typename F>
  void each_stdin_host(F f) const;

  JobSpec spec_;
  RemoteSettings settings_;
  EventQueue& events_;
  std::string secret_;
  std::unique_ptr<Listener> listener_;
  std::vector<std::unique_ptr<Host>> hosts_;  // by node id; nullptr for gpurun's own node
  std::vector<std::unique_ptr<Pending>> pending_;
  RemoteSink* sink_ = nullptr;
  PmixServer* local_server_ = nullptr;
  int local_node_ = -1;
  bool starting_ = true;
  std::optional<std::string> startup_error_;
  std::vector<CpuShare> shares_;  // by node id, once send_jobs() ran
  FenceCoordinator fences_;
  std::map<std::pair<std::vector<int>, std::uint32_t>, PmixReply> local_fences_;
  struct ModexRoute {
    int origin = -1;  // node that asked; local_node_ for gpurun's own server
    std::uint32_t origin_id = 0;
    PmixReply reply;  // when the origin is gpurun's own server
  };
  std::map<std::uint32_t, ModexRoute> modex_;
  std::uint32_t next_modex_ = 1;
};

}  // namespace gpurun::launcher
