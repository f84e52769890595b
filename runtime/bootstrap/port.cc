#include "runtime/bootstrap/port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace gpurun::bootstrap {
namespace {

constexpr std::string_view kPrefix = "gpurun-port:";
// A connection must bring the secret within this many rounds (about a millisecond each) of its
// arrival, or the port drops it and waits for the next.
constexpr int kSecretRounds = 5000;
// How often (in rounds of about a millisecond) a waiting accept asks whether its peer may come.
constexpr int kAliveRounds = 20;

Status sys_error(const std::string& what) {
  int e = errno;
  return Status(ErrorCode::kIo, what + ": " + std::strerror(e), e);
}

void no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::uint64_t random_secret() {
  std::uint64_t secret = 0;
  while (secret == 0) {
    if (getrandom(&secret, sizeof secret, 0) != static_cast<ssize_t>(sizeof secret)) break;
  }
  return secret;
}

Result<sockaddr_in> socket_address(const std::string& address, int port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1)
    return Status(ErrorCode::kInvalidArgument, "'" + address + "' is no IPv4 address");
  return sa;
}

// Reads exactly `length` bytes; kPeerFailed when the other side closed first.
Status read_exact(int fd, std::byte* to, std::size_t length, const std::function<void()>& idle,
                  int rounds) {
  std::size_t got = 0;
  while (got < length) {
    if (!wait_readable(fd, idle, rounds))
      return Status(ErrorCode::kTimeout, "the other side sent nothing");
    ssize_t n = recv(fd, to + got, length - got, MSG_DONTWAIT);
    if (n == 0) return Status(ErrorCode::kPeerFailed, "the other side closed the connection");
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return sys_error("recv");
    }
    got += static_cast<std::size_t>(n);
  }
  return ok_status();
}

}  // namespace

std::string format_port_name(const PortName& name) {
  char secret[17];
  std::snprintf(secret, sizeof secret, "%016llx", static_cast<unsigned long long>(name.secret));
  return std::string(kPrefix) + name.address + ":" + std::to_string(name.tcp_port) + ":" + secret;
}

Result<PortName> parse_port_name(std::string_view text) {
  auto bad = [&](const char* why) {
    std::string message = "'";
    message.append(text.substr(0, 80)).append("' is no port name (").append(why).append(")");
    return Status(ErrorCode::kInvalidArgument, std::move(message));
  };
  if (!text.starts_with(kPrefix)) return bad("it does not start with gpurun-port:");
  std::string_view rest = text.substr(kPrefix.size());
  std::size_t colon = rest.find(':');
  std::size_t last = rest.rfind(':');
  if (colon == std::string_view::npos || last == colon) return bad("address:port:secret expected");
  PortName name;
  name.address = std::string(rest.substr(0, colon));
  std::string_view port = rest.substr(colon + 1, last - colon - 1);
  std::string_view secret = rest.substr(last + 1);
  auto [p_end, p_err] = std::from_chars(port.data(), port.data() + port.size(), name.tcp_port);
  if (p_err != std::errc() || p_end != port.data() + port.size() || name.tcp_port <= 0 ||
      name.tcp_port > 65535)
    return bad("the TCP port is not a number from 1 to 65535");
  auto [s_end, s_err] =
      std::from_chars(secret.data(), secret.data() + secret.size(), name.secret, 16);
  if (s_err != std::errc() || s_end != secret.data() + secret.size() || secret.size() != 16)
    return bad("the secret is not 16 hex digits");
  sockaddr_in check{};
  if (inet_pton(AF_INET, name.address.c_str(), &check.sin_addr) != 1)
    return bad("the address is no IPv4 address");
  return name;
}

bool wait_readable(int fd, const std::function<void()>& idle, int rounds) {
  for (int i = 0; rounds < 0 || i < rounds; ++i) {
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, i == 0 ? 0 : 1);
    if (n > 0) return true;
    if (idle) idle();
  }
  return false;
}

// ---- Channel ------------------------------------------------------------------------------

Channel::~Channel() {
  if (fd_ >= 0) close(fd_);
}

Status Channel::send(std::span<const std::byte> frame) {
  auto length = static_cast<std::uint32_t>(frame.size());
  const auto* length_bytes = reinterpret_cast<const std::byte*>(&length);
  std::vector<std::byte> out(length_bytes, length_bytes + sizeof length);
  out.insert(out.end(), frame.begin(), frame.end());
  std::size_t sent = 0;
  while (sent < out.size()) {
    ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE || errno == ECONNRESET)
        return Status(ErrorCode::kPeerFailed, "the other side closed the connection");
      return sys_error("send");
    }
    sent += static_cast<std::size_t>(n);
  }
  return ok_status();
}

Result<std::vector<std::byte>> Channel::receive(const std::function<void()>& idle,
                                                std::size_t limit) {
  std::uint32_t length = 0;
  GPURUN_TRY(read_exact(fd_, reinterpret_cast<std::byte*>(&length), sizeof length, idle, -1));
  if (length > limit)
    return Status(ErrorCode::kInvalidArgument,
                  "a frame of " + std::to_string(length) + " bytes, more than expected");
  std::vector<std::byte> frame(length);
  GPURUN_TRY(read_exact(fd_, frame.data(), length, idle, -1));
  return frame;
}

// ---- Port ---------------------------------------------------------------------------------

Port::Port(int fd, PortName name) : fd_(fd), parsed_(std::move(name)) {
  name_ = format_port_name(parsed_);
}

Port::~Port() { close(fd_); }

Result<std::unique_ptr<Port>> Port::open(std::string_view address) {
  GPURUN_ASSIGN_OR_RETURN(sockaddr_in sa, socket_address(std::string(address), 0));
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return sys_error("socket");
  socklen_t length = sizeof sa;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &length) != 0) {
    Status st = sys_error("cannot listen on " + std::string(address));
    close(fd);
    return st;
  }
  PortName name{std::string(address), ntohs(sa.sin_port), random_secret()};
  return std::unique_ptr<Port>(new Port(fd, std::move(name)));
}

Result<std::unique_ptr<Channel>> Port::accept(const std::function<void()>& idle,
                                              const std::function<Status()>& alive) {
  for (;;) {
    while (!wait_readable(fd_, idle, kAliveRounds))
      if (alive) GPURUN_TRY(alive());
    int fd = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      return sys_error("accept");
    }
    no_delay(fd);
    auto channel = std::make_unique<Channel>(fd);
    std::uint32_t length = 0;
    std::uint64_t secret = 0;
    Status st =
        read_exact(fd, reinterpret_cast<std::byte*>(&length), sizeof length, idle, kSecretRounds);
    if (st.ok() && length == sizeof secret)
      st =
          read_exact(fd, reinterpret_cast<std::byte*>(&secret), sizeof secret, idle, kSecretRounds);
    if (st.ok() && length == sizeof secret && secret == parsed_.secret) return channel;
    // Not a peer that read this port's name: drop it and wait for the next.
  }
}

Result<std::unique_ptr<Channel>> connect_port(const PortName& name) {
  GPURUN_ASSIGN_OR_RETURN(sockaddr_in sa, socket_address(name.address, name.tcp_port));
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return sys_error("socket");
  auto channel = std::make_unique<Channel>(fd);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    int e = errno;
    return Status(ErrorCode::kPeerFailed,
                  "nothing accepts on " + format_port_name(name) + " (" + std::strerror(e) + ")",
                  e);
  }
  no_delay(fd);
  GPURUN_TRY(channel->send(std::as_bytes(std::span(&name.secret, 1))));
  return channel;
}

}  // namespace gpurun::bootstrap
