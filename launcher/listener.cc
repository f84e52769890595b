#include "launcher/listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "launcher/params.h"

namespace gpurun::launcher {
namespace {

std::string errno_text() { return std::strerror(errno); }

std::string text_of(const in_addr& address) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &address, text, sizeof text);
  return text;
}

// IPv4 addresses of interfaces that are up; `name`: only that interface; `loopback`: include it.
std::vector<std::string> interface_addresses(const std::string& name, bool loopback) {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_UP) == 0) continue;
    if (!name.empty() && name != a->ifa_name) continue;
    if (!loopback && (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    out.push_back(text_of(reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr));
  }
  freeifaddrs(list);
  return out;
}

// The source address of the route to `host`: a UDP socket's connect() chooses it without
// sending anything.
std::string source_toward(const in_addr& host) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  to.sin_addr = host;
  std::string out;
  sockaddr_in from{};
  socklen_t length = sizeof from;
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&from), &length) == 0)
    out = text_of(from.sin_addr);
  close(fd);
  return out;
}

void add_unique(std::vector<std::string>& list, const std::string& address) {
  if (!address.empty() && std::find(list.begin(), list.end(), address) == list.end())
    list.push_back(address);
}

std::vector<std::string> configured_addresses(const std::string& knob) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= knob.size()) {
    auto comma = knob.find(',', start);
    std::string item = knob.substr(start, comma - start);
    in_addr parsed{};
    if (inet_pton(AF_INET, item.c_str(), &parsed) == 1) {
      add_unique(out, item);
    } else if (!item.empty()) {
      std::vector<std::string> of = interface_addresses(item, true);
      if (of.empty())
        throw std::runtime_error("GPURUN_LAUNCHER_ADDRESS: '" + item +
                                 "' is no IPv4 address and no interface that is up with one");
      for (const std::string& address : of) add_unique(out, address);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int listen_on(const std::string& address, std::string& endpoint) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket: " + errno_text());
  sockaddr_in at{};
  at.sin_family = AF_INET;
  inet_pton(AF_INET, address.c_str(), &at.sin_addr);
  socklen_t length = sizeof at;
  if (bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&at), &length) != 0) {
    std::string reason = errno_text();
    close(fd);
    throw std::runtime_error("cannot listen for the daemons on " + address + ": " + reason);
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  endpoint = address + ":" + std::to_string(ntohs(at.sin_port));
  return fd;
}

// Connects to one "addr:port" within `timeout_ms`; -1 with the reason in `error`.
int connect_one(const std::string& endpoint, int timeout_ms, std::string& error) {
  auto colon = endpoint.rfind(':');
  sockaddr_in to{};
  to.sin_family = AF_INET;
  if (colon == std::string::npos ||
      inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &to.sin_addr) != 1) {
    error = endpoint + ": not an address:port";
    return -1;
  }
  to.sin_port = htons(static_cast<std::uint16_t>(std::stoi(endpoint.substr(colon + 1))));
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = "socket: " + errno_text();
    return -1;
  }
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
    int ready = poll(&p, 1, timeout_ms);
    int so_error = ETIMEDOUT;
    socklen_t length = sizeof so_error;
    if (ready > 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &length);
    errno = so_error;
    rc = so_error == 0 ? 0 : -1;
  }
  if (rc != 0) {
    error = endpoint + ": " + errno_text();
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

std::vector<std::string> listen_addresses(const std::vector<std::string>& hosts) {
  std::string knob = params::address().get();
  if (!knob.empty()) return configured_addresses(knob);
  std::vector<std::string> out;
  bool by_name = false;
  for (const std::string& host : hosts) {
    in_addr address{};
    if (inet_pton(AF_INET, host.c_str(), &address) == 1)
      add_unique(out, source_toward(address));
    else
      by_name = true;
  }
  if (by_name)
    for (const std::string& address : interface_addresses("", false)) add_unique(out, address);
  if (out.empty())
    throw std::runtime_error(
        "no network interface of this host faces the other hosts (set GPURUN_LAUNCHER_ADDRESS "
        "to the address or interface the hosts reach this one by)");
  return out;
}

Listener::Listener(const std::vector<std::string>& addresses) {
  try {
    for (const std::string& address : addresses) {
      std::string endpoint;
      fds_.push_back(listen_on(address, endpoint));
      endpoints_ += (endpoints_.empty() ? "" : ",") + endpoint;
    }
  } catch (...) {
    for (int fd : fds_) close(fd);
    throw;
  }
}

Listener::~Listener() {
  for (int fd : fds_) close(fd);
}

int Listener::accept_on(int fd, std::string& peer) {
  sockaddr_in from{};
  socklen_t length = sizeof from;
  int client = accept4(fd, reinterpret_cast<sockaddr*>(&from), &length, SOCK_CLOEXEC);
  if (client < 0) return -1;
  peer = text_of(from.sin_addr) + ":" + std::to_string(ntohs(from.sin_port));
  return client;
}

int connect_to(const std::string& endpoints, int timeout_ms, std::string& error) {
  std::size_t start = 0;
  while (start <= endpoints.size()) {
    auto comma = endpoints.find(',', start);
    std::string one_error;
    int fd = connect_one(endpoints.substr(start, comma - start), timeout_ms, one_error);
    if (fd >= 0) return fd;
    error += (error.empty() ? "" : "; ") + one_error;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return -1;
}

}  // namespace gpurun::launcher
