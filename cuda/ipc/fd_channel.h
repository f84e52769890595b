// File descriptors between the ranks of one host: exported CUDA handles of VMM allocations and
// memory pools are POSIX fds, which only a Unix socket can carry to another process
// (SCM_RIGHTS). Each rank listens on a SOCK_SEQPACKET socket in the job's private directory
// (mode 0700); a rank that must give a peer an fd connects to the peer's socket once and sends
// a message naming what the fd is, with the fd attached. Only processes of this user may
// connect (checked with SO_PEERCRED as well).
//
// Not thread-safe: the transport that owns them serialises calls.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::cuda::ipc {

inline constexpr std::uint32_t kFdMessageMagic = 0x66647063;  // "cpdf"

// What an fd is: the sender's rank, the kind of handle and the key the receiver asked for
// (a buffer id or a pool id).
struct FdMessage {
  std::uint32_t magic = kFdMessageMagic;
  std::int32_t rank = -1;
  std::uint32_t kind = 0;
  std::uint32_t reserved = 0;
  std::uint64_t key = 0;
};
static_assert(sizeof(FdMessage) == 24);

// The receiving end: a listening socket and the connections peers made to it.
class FdListener {
 public:
  // Listens at `path` (which must not exist). The socket file goes with the listener.
  static Result<std::unique_ptr<FdListener>> create(const std::string& path);
  ~FdListener();
  FdListener(const FdListener&) = delete;
  FdListener& operator=(const FdListener&) = delete;

  const std::string& path() const { return path_; }
  // Accepts waiting connections and reads every message that has arrived, keeping their fds
  // until taken. Never blocks. Returns the number of messages read.
  Result<int> poll();
  // The fd `rank` sent for (kind, key), which the caller then owns; -1 if none came yet.
  int take(int rank, std::uint32_t kind, std::uint64_t key);
  std::size_t pending() const { return fds_.size(); }

 private:
  FdListener(int fd, std::string path) : listen_fd_(fd), path_(std::move(path)) {}
  Status accept_all();
  Result<int> read_all(int connection, bool& closed);

  int listen_fd_;
  std::string path_;
  std::vector<int> connections_;
  std::multimap<std::tuple<int, std::uint32_t, std::uint64_t>, int> fds_;
};

// The sending end: one connection to a peer's listener.
class FdSender {
 public:
  static Result<std::unique_ptr<FdSender>> connect(const std::string& path);
  ~FdSender();
  FdSender(const FdSender&) = delete;
  FdSender& operator=(const FdSender&) = delete;
  // Sends `message` with a duplicate of `fd` attached (the caller keeps its fd).
  Status send(const FdMessage& message, int fd);

 private:
  explicit FdSender(int fd) : fd_(fd) {}
  int fd_;
};

// Longest socket path a listener can have (sun_path, less the terminating NUL).
std::size_t max_socket_path();

}  // namespace gpurun::cuda::ipc
