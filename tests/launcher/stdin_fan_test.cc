// StdinFan: gpurun's stdin copied to the pipes of the ranks that read it.
#include "launcher/stdin_fan.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>

namespace gpurun::launcher {
namespace {

struct TestPipe {
  int read = -1;
  int write = -1;
  TestPipe() {
    int fds[2];
    EXPECT_EQ(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
    read = fds[0];
    write = fds[1];
  }
  ~TestPipe() {
    if (read >= 0) close(read);
  }
  // Everything in the pipe now; `eof` says whether the writer closed it.
  std::string drain(bool* eof = nullptr) {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(read, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    if (eof != nullptr) *eof = n == 0;
    return out;
  }
};

TEST(StdinFan, HoldsInputUntilStartThenGivesEveryPipeAll) {
  TestPipe a, b;
  StdinFan fan;
  fan.feed("early ");  // a daemon hears of input before its ranks run
  fan.add(0, a.write);
  fan.add(2, b.write);
  EXPECT_EQ(a.drain(), "");
  fan.start();
  fan.feed("late");
  fan.end();
  bool eof_a = false, eof_b = false;
  EXPECT_EQ(a.drain(&eof_a), "early late");
  EXPECT_EQ(b.drain(&eof_b), "early late");
  EXPECT_TRUE(eof_a && eof_b);
  EXPECT_FALSE(fan.open());
}

TEST(StdinFan, TheSlowestReaderSetsThePaceAndALeaverDropsOut) {
  TestPipe fast, slow;
  StdinFan fan;
  fan.add(0, fast.write);
  fan.add(1, slow.write);
  fan.start();
  std::string block(1 << 20, 'x');  // more than a pipe holds
  fan.feed(block);
  EXPECT_FALSE(fan.drained());
  int waiting = 0;
  fan.each_waiting([&](int, int) { ++waiting; });
  EXPECT_EQ(waiting, 2);
  std::size_t got = fast.drain().size();
  fan.on_writable(0);
  got += fast.drain().size();
  EXPECT_GT(got, 0u);
  fan.drop(1);  // the slow reader exits
  while (!fan.drained()) {
    fan.on_writable(0);
    got += fast.drain().size();
  }
  EXPECT_EQ(got, block.size());
  EXPECT_TRUE(fan.open());  // the fast reader still wants more
  fan.end();
  bool eof = false;
  fast.drain(&eof);
  EXPECT_TRUE(eof);
}

TEST(StdinFan, AReaderThatClosesItsEndGetsNoMore) {
  TestPipe gone, stays;
  StdinFan fan;
  fan.add(0, gone.write);
  fan.add(1, stays.write);
  fan.start();
  close(gone.read);
  gone.read = -1;
  auto old = signal(SIGPIPE, SIG_IGN);  // as gpurun does: EPIPE instead
  fan.feed("data");
  signal(SIGPIPE, old);
  EXPECT_TRUE(fan.drained());
  EXPECT_EQ(stays.drain(), "data");
}

}  // namespace
}  // namespace gpurun::launcher
