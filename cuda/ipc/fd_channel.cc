#include "cuda/ipc/fd_channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/base/log.h"

namespace gpurun::cuda::ipc {
namespace {

Result<sockaddr_un> socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() > max_socket_path())
    return Status(ErrorCode::kInvalidArgument, "socket path '" + path +
                                                   "' is empty or longer than " +
                                                   std::to_string(max_socket_path()) + " bytes");
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

// Whether the process at the other end of `fd` runs as this user.
bool same_user(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == getuid();
}

}  // namespace

std::size_t max_socket_path() { return sizeof(sockaddr_un::sun_path) - 1; }

Result<std::unique_ptr<FdListener>> FdListener::create(const std::string& path) {
  GPURUN_ASSIGN_OR_RETURN(sockaddr_un addr, socket_address(path));
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("socket(AF_UNIX)", errno);
  std::unique_ptr<FdListener> listener(new FdListener(fd, path));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    listener->path_.clear();  // not ours to remove
    return errno_status("bind " + path, err);
  }
  if (listen(fd, SOMAXCONN) != 0) return errno_status("listen " + path, errno);
  return listener;
}

FdListener::~FdListener() {
  for (auto& entry : fds_) close(entry.second);
  for (int c : connections_) close(c);
  close(listen_fd_);
  if (!path_.empty()) unlink(path_.c_str());
}

Status FdListener::accept_all() {
  while (true) {
    int c = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return ok_status();
      return errno_status("accept on " + path_, errno);
    }
    if (!same_user(c)) {
      GPURUN_LOG(warn, transport, "cuda_ipc: refused a connection from another user on %s",
                 path_.c_str());
      close(c);
      continue;
    }
    connections_.push_back(c);
  }
}

// Reads the messages waiting on one connection; `closed` tells that the peer hung up.
Result<int> FdListener::read_all(int connection, bool& closed) {
  int count = 0;
  while (true) {
    FdMessage message;
    iovec iov{&message, sizeof message};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(connection, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return count;
      return errno_status("recvmsg on " + path_, errno);
    }
    if (n == 0) {
      closed = true;
      return count;
    }
    int fd = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    if (n != sizeof message || message.magic != kFdMessageMagic || fd < 0 ||
        (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
      if (fd >= 0) close(fd);
      GPURUN_LOG(warn, transport, "cuda_ipc: dropped a malformed fd message on %s", path_.c_str());
      continue;
    }
    fds_.emplace(std::make_tuple(message.rank, message.kind, message.key), fd);
    ++count;
  }
}

Result<int> FdListener::poll() {
  GPURUN_TRY(accept_all());
  int count = 0;
  for (std::size_t i = 0; i < connections_.size();) {
    bool closed = false;
    GPURUN_ASSIGN_OR_RETURN(int n, read_all(connections_[i], closed));
    count += n;
    if (closed) {
      close(connections_[i]);
      connections_[i] = connections_.back();
      connections_.pop_back();
    } else {
      ++i;
    }
  }
  return count;
}

int FdListener::take(int rank, std::uint32_t kind, std::uint64_t key) {
  auto it = fds_.find(std::make_tuple(rank, kind, key));
  if (it == fds_.end()) return -1;
  int fd = it->second;
  fds_.erase(it);
  return fd;
}

Result<std::unique_ptr<FdSender>> FdSender::connect(const std::string& path) {
  GPURUN_ASSIGN_OR_RETURN(sockaddr_un addr, socket_address(path));
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("socket(AF_UNIX)", errno);
  std::unique_ptr<FdSender> sender(new FdSender(fd));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return errno_status("connect " + path, errno);
  if (!same_user(fd)) return Status(ErrorCode::kIo, path + " belongs to a process of another user");
  return sender;
}

FdSender::~FdSender() { close(fd_); }

Status FdSender::send(const FdMessage& message, int fd) {
  FdMessage copy = message;
  iovec iov{&copy, sizeof copy};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  while (true) {
    ssize_t n = sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(sizeof copy)) return ok_status();
    if (n < 0 && errno == EINTR) continue;
    return errno_status("sendmsg of an fd", n < 0 ? errno : EIO);
  }
}

}  // namespace gpurun::cuda::ipc
