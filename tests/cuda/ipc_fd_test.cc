// Passing fds over the Unix socket: real sockets, real fds (a memfd stands in for an exported
// CUDA handle), across a fork and across threads.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "cuda/ipc/fd_channel.h"

namespace gpurun::cuda::ipc {
namespace {

// A private directory for the socket, removed at the end.
struct SocketDir {
  std::string path;
  SocketDir() {
    char pattern[] = "/tmp/gpurun-ipc-test-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~SocketDir() { rmdir(path.c_str()); }
  std::string socket(const std::string& name) const { return path + "/" + name; }
};

int memfd_holding(const std::string& text) {
  int fd = memfd_create("exported-handle", MFD_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  return fd;
}

std::string contents(int fd) {
  char buf[64] = {};
  ssize_t n = pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// Polls until `rank` sent (kind, key) or the tries run out.
int wait_for_fd(FdListener& listener, int rank, std::uint32_t kind, std::uint64_t key) {
  for (int i = 0; i < 20000; ++i) {
    auto polled = listener.poll();
    EXPECT_TRUE(polled.ok()) << polled.status().to_string();
    int fd = listener.take(rank, kind, key);
    if (fd >= 0) return fd;
    usleep(100);
  }
  return -1;
}

TEST(IpcFdChannel, PassesAnFdFromAForkedProcess) {
  SocketDir dir;
  auto listener = FdListener::create(dir.socket("listen"));
  ASSERT_TRUE(listener.ok()) << listener.status().to_string();
  pid_t child = fork();
  if (child == 0) {
    auto sender = FdSender::connect(dir.socket("listen"));
    if (!sender.ok()) _exit(2);
    int fd = memfd_holding("allocation 42");
    FdMessage m;
    m.rank = 5;
    m.kind = 2;
    m.key = 42;
    Status st = (*sender)->send(m, fd);
    close(fd);
    _exit(st.ok() ? 0 : 3);
  }
  int fd = wait_for_fd(**listener, 5, 2, 42);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  ASSERT_GE(fd, 0) << "no fd arrived";
  EXPECT_EQ(contents(fd), "allocation 42") << "the same file, though the sender has exited";
  EXPECT_EQ((*listener)->take(5, 2, 42), -1) << "an fd is taken once";
  close(fd);
}

TEST(IpcFdChannel, KeepsFdsApartByRankKindAndKey) {
  SocketDir dir;
  auto listener = FdListener::create(dir.socket("l"));
  ASSERT_TRUE(listener.ok());
  std::thread sender_thread([&] {
    auto sender = FdSender::connect(dir.socket("l"));
    ASSERT_TRUE(sender.ok()) << sender.status().to_string();
    for (std::uint64_t key : {7, 8}) {
      for (std::uint32_t kind : {2u, 3u}) {
        std::string name = "k";
        name.append(std::to_string(kind)).append("-").append(std::to_string(key));
        int fd = memfd_holding(name);
        FdMessage m;
        m.rank = 1;
        m.kind = kind;
        m.key = key;
        EXPECT_TRUE((*sender)->send(m, fd).ok());
        close(fd);
      }
    }
  });
  sender_thread.join();
  int fd = wait_for_fd(**listener, 1, 3, 8);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(contents(fd), "k3-8");
  close(fd);
  EXPECT_EQ((*listener)->pending(), 3u);
  EXPECT_EQ((*listener)->take(2, 2, 7), -1) << "rank 2 sent nothing";
  int other = (*listener)->take(1, 2, 7);
  ASSERT_GE(other, 0);
  EXPECT_EQ(contents(other), "k2-7");
  close(other);
}

TEST(IpcFdChannel, DropsMalformedMessages) {
  SocketDir dir;
  auto listener = FdListener::create(dir.socket("l"));
  ASSERT_TRUE(listener.ok());
  // A raw client that sends a message without an fd and one with a wrong magic.
  int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = dir.socket("l");
  std::memcpy(addr.sun_path, path.c_str(), path.size());
  ASSERT_EQ(connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  FdMessage m;
  m.rank = 1;
  ASSERT_EQ(send(s, &m, sizeof m, 0), static_cast<ssize_t>(sizeof m));
  close(s);
  auto polled = (*listener)->poll();
  ASSERT_TRUE(polled.ok());
  EXPECT_EQ(*polled, 0);
  EXPECT_EQ((*listener)->pending(), 0u);
}

TEST(IpcFdChannel, SocketFileLivesWithTheListener) {
  SocketDir dir;
  std::string path = dir.socket("l");
  {
    auto listener = FdListener::create(path);
    ASSERT_TRUE(listener.ok());
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_FALSE(FdListener::create(path).ok()) << "a second listener on the same name";
  }
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0) << "removed with the listener";
  EXPECT_FALSE(FdSender::connect(path).ok()) << "nobody listens any more";
}

TEST(IpcFdChannel, RejectsPathsTooLongForASocket) {
  std::string path = "/tmp/" + std::string(max_socket_path(), 'x');
  auto listener = FdListener::create(path);
  EXPECT_EQ(listener.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpurun::cuda::ipc
