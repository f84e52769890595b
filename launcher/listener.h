// The TCP endpoints between gpurun and its daemons: where gpurun listens, how a daemon
// connects. gpurun listens only when a job spans hosts, and then only on the addresses that
// face the hosts, never on the wildcard address (DESIGN.md, security).
#pragma once

#include <string>
#include <vector>

namespace gpurun::launcher {

// The local IPv4 addresses to listen on for daemons on `hosts` (remote host names or
// addresses): GPURUN_LAUNCHER_ADDRESS when set (addresses or interface names); else, for a host
// given by address, the address this host sends from to reach it (a route lookup, nothing is
// sent), and for a host given by name (gpurun never asks DNS), the addresses of every
// interface that is up, loopback excepted. Throws std::runtime_error when there is none.
std::vector<std::string> listen_addresses(const std::vector<std::string>& hosts);

// Listening sockets, one per address, on ports the kernel picks.
class Listener {
 public:
  explicit Listener(const std::vector<std::string>& addresses);  // throws std::runtime_error
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  const std::vector<int>& fds() const { return fds_; }
  // "address:port" of each socket, comma-separated: what a daemon is told to connect to.
  const std::string& endpoints() const { return endpoints_; }
  // Accepts one pending connection on `fd` (non-blocking); -1 when there is none.
  static int accept_on(int fd, std::string& peer);

 private:
  std::vector<int> fds_;
  std::string endpoints_;
};

// Connects to the first of `endpoints` ("addr:port,addr:port") that answers within
// `timeout_ms` each; returns the socket (blocking) or -1 with the reasons in `error`.
int connect_to(const std::string& endpoints, int timeout_ms, std::string& error);

}  // namespace gpurun::launcher
