// RemoteHosts' record of one remote host and of a connection not yet authenticated (private to
// remote.cc and remote_messages.cc).
#pragma once

#include <unistd.h>

#include <optional>
#include <string>

#include "launcher/output.h"
#include "launcher/remote.h"

namespace gpurun::launcher {

struct RemoteHosts::Host {
  Host(int node_id, std::string host_name)
      : node(node_id),
        name(std::move(host_name)),
        out(STDERR_FILENO, "", 65536),
        err(STDERR_FILENO, "", 65536) {}

  int node;
  std::string name;
  pid_t agent = -1;
  bool agent_running = false;
  bool agent_signalled = false;  // SIGTERM sent to a lingering agent
  int agent_status = 0;
  int agent_out = -1;
  int agent_err = -1;
  std::string agent_text;  // the agent's output before its daemon connected (the last 4K)
  LineForwarder out;       // the agent's output once its daemon is connected, to gpurun's stderr
  LineForwarder err;
  std::unique_ptr<wire::Link> link;
  bool authenticated = false;
  std::string machine;  // the daemon's machine id (machine.h)
  bool ready = false;
  bool bye = false;   // the daemon ended cleanly
  bool gone = false;  // the host failed (reported)
  // The connection was lost without a goodbye: its error, reported once the agent's exit
  // status is known or at lost_report_at.
  std::optional<std::string> lost;
  std::optional<Clock::time_point> lost_report_at;
  // Once the daemon is done or gone: when to stop waiting for its agent.
  std::optional<Clock::time_point> settle_deadline;
  std::string jobdir;  // the daemon's job directory and token (kReady), for a cleanup
  std::string token;
};

struct RemoteHosts::Pending {
  std::unique_ptr<wire::Link> link;
  std::string challenge;
  std::string peer;
  Clock::time_point deadline;
  bool done = false;
};

}  // namespace gpurun::launcher
