#include "launcher/wire.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace gpurun::launcher::wire {

Encoder& Encoder::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  return *this;
}

Encoder& Encoder::u64(std::uint64_t v) {
  u32(static_cast<std::uint32_t>(v));
  return u32(static_cast<std::uint32_t>(v >> 32));
}

Encoder& Encoder::str(std::string_view s) {
  u32(static_cast<std::uint32_t>(s.size()));
  out_.append(s);
  return *this;
}

Encoder& Encoder::strings(const std::vector<std::string>& v) {
  u32(static_cast<std::uint32_t>(v.size()));
  for (const std::string& s : v) str(s);
  return *this;
}

Encoder& Encoder::ints(const std::vector<int>& v) {
  u32(static_cast<std::uint32_t>(v.size()));
  for (int x : v) i32(x);
  return *this;
}

std::string_view Decoder::take(std::size_t n) {
  if (n > in_.size()) throw ProtocolError("truncated message");
  std::string_view out = in_.substr(0, n);
  in_.remove_prefix(n);
  return out;
}

std::uint32_t Decoder::u32() {
  std::string_view b = take(4);
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::uint64_t Decoder::u64() {
  std::uint64_t low = u32();
  return low | (static_cast<std::uint64_t>(u32()) << 32);
}

std::string Decoder::str() { return std::string(take(u32())); }

std::vector<std::string> Decoder::strings() {
  std::uint32_t n = u32();
  if (n > in_.size() / 4) throw ProtocolError("bad list length");
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < n; ++i) out.push_back(str());
  return out;
}

std::vector<int> Decoder::ints() {
  std::uint32_t n = u32();
  if (n > in_.size() / 4) throw ProtocolError("bad list length");
  std::vector<int> out;
  for (std::uint32_t i = 0; i < n; ++i) out.push_back(i32());
  return out;
}

Link::Link(int fd) : fd_(fd) { fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK); }

Link::~Link() {
  if (fd_ >= 0) close(fd_);
}

bool Link::receive() {
  char buf[65536];
  while (true) {
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      in_.append(buf, static_cast<std::size_t>(n));
      if (static_cast<std::size_t>(n) < sizeof buf) return true;
      continue;
    }
    if (n == 0) {
      error_ = "connection closed";
      return false;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    error_ = std::strerror(errno);
    return false;
  }
}

std::optional<Message> Link::next() {
  std::string_view pending = std::string_view(in_).substr(consumed_);
  std::size_t length = 0;
  if (pending.size() >= 8) {
    length = Decoder(pending.substr(4, 4)).u32();
    if (length > (authenticated_ ? kMaxFrame : kMaxFrameBeforeAuth))
      throw ProtocolError("a message of " + std::to_string(length) + " bytes is too long");
  }
  if (pending.size() < 8 || pending.size() < 8 + length) {
    in_.erase(0, consumed_);  // keep only the partial frame
    consumed_ = 0;
    return std::nullopt;
  }
  auto type = static_cast<Type>(Decoder(pending.substr(0, 4)).u32());
  Message message{type, std::string(pending.substr(8, length))};
  consumed_ += 8 + length;
  return message;
}

void Link::send(Type type, std::string_view body) {
  if (sent_ > 0 && sent_ == out_.size()) {
    out_.clear();
    sent_ = 0;
  }
  Encoder header;
  header.u32(static_cast<std::uint32_t>(type)).u32(static_cast<std::uint32_t>(body.size()));
  out_ += header.take();
  out_.append(body);
  flush();
}

bool Link::flush() {
  while (sent_ < out_.size()) {
    ssize_t n = ::send(fd_, out_.data() + sent_, out_.size() - sent_, MSG_NOSIGNAL);
    if (n > 0) {
      sent_ += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return true;
    } else {
      error_ = std::strerror(errno);
      return false;
    }
  }
  out_.clear();
  sent_ = 0;
  return true;
}

void Link::flush_blocking(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (wants_write() && flush() && wants_write()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return;
    pollfd p{.fd = fd_, .events = POLLOUT, .revents = 0};
    poll(&p, 1, static_cast<int>(left));
  }
}

void set_liveness(int fd, int timeout_ms) {
  int on = 1;
  int idle = 1;
  int interval = 1;
  int count = std::max(1, timeout_ms / 1000);
  auto user_timeout = static_cast<unsigned>(timeout_ms);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

}  // namespace gpurun::launcher::wire
