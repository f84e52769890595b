#include "runtime/transport/shm/shm_transport.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

#include "runtime/base/param.h"

namespace gpurun::transport::shm {
namespace {

// Two ranks of one host, both in this process: each has its inbox and an endpoint to the other.
struct Pair {
  struct Side {
    std::unique_ptr<ShmTransport> transport;
    Endpoint* to_peer = nullptr;
    std::vector<std::vector<std::byte>> received;
    std::vector<PacketHeader> headers;
    bool count_only = false;  // packets counted, not kept (no allocation per packet)
    int counted = 0;
  };
  Side side[2];

  explicit Pair(std::optional<bool> cma_wins = std::nullopt) : Pair(cma_wins, cma_wins) {}
  // Rank 0's and rank 1's shm::Config::cma_wins.
  Pair(std::optional<bool> first, std::optional<bool> second) {
    for (int rank = 0; rank < 2; ++rank) {
      Config config{rank, {0, 1}, "test" + std::to_string(::getpid()), rank == 0 ? first : second};
      auto t = ShmTransport::create(config, PacketHandler{on_packet, &side[rank]});
      EXPECT_TRUE(t.ok()) << t.status().to_string();
      side[rank].transport = std::move(t).value();
    }
    for (int rank = 0; rank < 2; ++rank) {
      auto ep = side[rank].transport->connect(1 - rank, side[1 - rank].transport->address());
      EXPECT_TRUE(ep.ok()) << ep.status().to_string();
      side[rank].to_peer = ep.value();
    }
  }
  static void on_packet(void* context, const Packet& p) {
    auto* s = static_cast<Side*>(context);
    if (s->count_only) {
      ++s->counted;
      return;
    }
    s->received.emplace_back(p.payload, p.payload + p.length);
    s->headers.push_back(*p.header);
  }
  void progress() {
    side[0].transport->progress();
    side[1].transport->progress();
  }
};

std::vector<std::byte> pattern(std::size_t size, int seed) {
  std::vector<std::byte> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::byte>((i * 13 + seed) & 0xff);
  return out;
}

TEST(ShmTransport, DescribesItself) {
  Pair pair;
  const Caps& caps = pair.side[0].transport->caps();
  EXPECT_EQ(caps.name, "shm");
  EXPECT_EQ(caps.reach, Reach::kHost);
  EXPECT_GE(caps.max_packet, 16384u) << "the default eager limit must fit one packet";
  EXPECT_TRUE(pair.side[0].transport->quiescent()) << "the peer mapped the inbox";
}

TEST(ShmTransport, PacketsArriveInOrderWithHeaders) {
  Pair pair;
  for (int i = 0; i < 1000; ++i) {
    auto data = pattern(static_cast<std::size_t>(i % 300), i);
    PacketHeader h{1, 0, 0, 7, i, 0};
    while (!pair.side[0].to_peer->send(h, data.data(), data.size()).ok()) pair.progress();
  }
  while (pair.side[1].received.size() < 1000) pair.progress();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(pair.side[1].headers[i].tag, i);
    EXPECT_EQ(pair.side[1].received[i], pattern(static_cast<std::size_t>(i % 300), i));
  }
}

// A ring size beyond what a ring may take is capped (it wrapped around 32 bits of cells to a
// ring of one cell, where no packet fits and every send waited forever).
TEST(ShmTransport, ATooLargeRingSizeIsCapped) {
  ASSERT_TRUE(param::find("GPURUN_SHM_RING_SIZE")->set_from_string("1T").ok());
  {
    Pair pair;
    auto data = pattern(100, 2);
    PacketHeader h{1, 0, 0, 0, 5, 0};
    EXPECT_TRUE(pair.side[0].to_peer->send(h, data.data(), data.size()).ok());
    for (int polls = 0; polls < 10 && pair.side[1].received.empty(); ++polls) pair.progress();
    EXPECT_EQ(pair.side[1].received, std::vector<std::vector<std::byte>>{data});
  }
  ASSERT_TRUE(param::find("GPURUN_SHM_RING_SIZE")->set_from_string("auto").ok());
}

TEST(ShmTransport, FullRingAsksToRetry) {
  Pair pair;
  auto data = pattern(8, 1);
  PacketHeader h{1, 0, 0, 0, 0, 0};
  int sent = 0;
  Status st;
  while ((st = pair.side[0].to_peer->send(h, data.data(), data.size())).ok()) ++sent;
  EXPECT_EQ(st.code(), ErrorCode::kNoResource);
  EXPECT_GT(sent, 100);
  // A poll takes a batch from each peer: a full ring empties over a few polls.
  for (int polls = 0; polls < 100 && static_cast<int>(pair.side[1].received.size()) < sent; ++polls)
    pair.progress();
  EXPECT_EQ(static_cast<int>(pair.side[1].received.size()), sent);
  EXPECT_TRUE(pair.side[0].to_peer->send(h, data.data(), data.size()).ok());
}

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The rings are mapped on both sides at connect: a first pass over a whole ring takes no page
// fault a page (it took 64 on each side of 256K rings, microseconds each on a virtual machine).
TEST(ShmTransport, RingsAreMappedAtConnect) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' shadow memory takes page faults of its own";
#endif
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(probe, MAP_FAILED);
  bool can = madvise(probe, 4096, 23 /* MADV_POPULATE_WRITE, Linux 5.14 */) == 0;
  munmap(probe, 4096);
  if (!can) GTEST_SKIP() << "the kernel cannot populate a mapping ahead";
  Pair pair;
  pair.side[1].count_only = true;
  std::byte one{7};
  PacketHeader h{1, 0, 0, 0, 0, 0};
  long before = minor_faults();
  int sent = 0;
  for (; sent < 3 * 4096; ++sent)
    while (!pair.side[0].to_peer->send(h, &one, 1).ok()) pair.progress();
  while (pair.side[1].counted < sent) pair.progress();
  EXPECT_LT(minor_faults() - before, 16) << "page faults while " << sent << " packets went through";
}

struct Done {
  std::atomic<int> count{0};
  static void fn(void* self, Status st) {
    EXPECT_TRUE(st.ok()) << st.to_string();
    static_cast<Done*>(self)->count++;
  }
};

// Bulk data through the fragment pipeline: contiguous on both sides, and through packers.
void check_bulk(std::size_t size, std::size_t pull_size, bool packers) {
  Pair pair;
  auto src = pattern(size, 5);
  std::vector<std::byte> dst(pull_size, std::byte{0});
  Data offered{size, packers ? nullptr : src.data()};
  Data into{pull_size, packers ? nullptr : dst.data()};
  offered.context = &src;
  offered.pack = [](void* ctx, std::size_t off, void* out, std::size_t len) {
    auto& v = *static_cast<std::vector<std::byte>*>(ctx);
    std::memcpy(out, v.data() + off, len);
    return len;
  };
  into.context = &dst;
  into.unpack = [](void* ctx, std::size_t off, const void* in, std::size_t len) {
    auto& v = *static_cast<std::vector<std::byte>*>(ctx);
    std::memcpy(v.data() + off, in, len);
    return len;
  };
  Done sent, received;
  auto cookie = pair.side[0].to_peer->offer(offered, Completion{Done::fn, &sent});
  ASSERT_TRUE(cookie.ok());
  ASSERT_TRUE(pair.side[1].to_peer->pull(*cookie, into, Completion{Done::fn, &received}).ok());
  while (sent.count == 0 || received.count == 0) pair.progress();
  EXPECT_TRUE(std::equal(dst.begin(), dst.end(), src.begin()));
}

TEST(ShmTransport, BulkThroughFragments) {
  check_bulk(1 << 20, 1 << 20, false);
  check_bulk(3 * 32768 + 5, 3 * 32768 + 5, false);
}
TEST(ShmTransport, BulkWithPackers) { check_bulk(300000, 300000, true); }
TEST(ShmTransport, BulkPulledShorterThanOffered) { check_bulk(200000, 70001, false); }
TEST(ShmTransport, EmptyBulkCompletesBothSides) { check_bulk(100, 0, false); }

TEST(ShmTransport, BulkBothWaysAtOnceWithThreads) {
  Pair pair;
  constexpr std::size_t kSize = 5 << 20;
  auto a = pattern(kSize, 1), b = pattern(kSize, 2);
  std::vector<std::byte> at_a(kSize), at_b(kSize);
  Done done[4];
  auto c0 = pair.side[0].to_peer->offer(Data{kSize, a.data()}, Completion{Done::fn, &done[0]});
  auto c1 = pair.side[1].to_peer->offer(Data{kSize, b.data()}, Completion{Done::fn, &done[1]});
  ASSERT_TRUE(c0.ok() && c1.ok());
  std::thread t1([&] {
    ASSERT_TRUE(pair.side[1].to_peer->pull(*c0, Data{kSize, at_b.data()},
                                           Completion{Done::fn, &done[2]}).ok());
    while (done[1].count == 0 || done[2].count == 0) pair.side[1].transport->progress();
  });
  ASSERT_TRUE(pair.side[0].to_peer->pull(*c1, Data{kSize, at_a.data()},
                                         Completion{Done::fn, &done[3]}).ok());
  while (done[0].count == 0 || done[3].count == 0) pair.side[0].transport->progress();
  t1.join();
  EXPECT_EQ(at_b, a);
  EXPECT_EQ(at_a, b);
}

}  // namespace
}  // namespace gpurun::transport::shm

namespace gpurun::transport::shm {
namespace {

TEST(ShmTransport, CmaSingleCopyWhenForced) {
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("on").ok());
  check_bulk(1 << 20, 1 << 20, false);       // split: each side copies half
  check_bulk((1 << 20) + 5, 70001, false);   // split of a truncated pull, off page boundaries
  check_bulk(40000, 40000, false);           // small: the receiver copies it all
  check_bulk(300000, 300000, true);          // packed data: fragment pipeline
  {
    Pair pair;
    EXPECT_TRUE(pair.side[1].transport->cma_enabled());
    // The peer's process id, for the collectives that read a peer's buffer by CMA themselves
    // (both sides of the pair are this process).
    EXPECT_EQ(pair.side[1].to_peer->cma_pid(), ::getpid());
  }
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("off").ok());
  Pair pair;
  EXPECT_FALSE(pair.side[1].transport->cma_enabled());
  EXPECT_EQ(pair.side[1].to_peer->cma_pid(), 0);
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
}

// auto follows the host's copy probe where gpurun told the ranks its answer, so that every rank
// of the host moves large messages alike (each rank's own CMA-against-memcpy timing flipped
// between runs on some machines, and ranks decided apart); GPURUN_SHM_CMA still overrides it.
TEST(ShmTransport, CmaFollowsTheHostsCopyProbe) {
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
  for (bool wins : {true, false}) {
    Pair pair(wins);
    for (auto& side : pair.side) EXPECT_EQ(side.transport->cma_enabled(), wins) << wins;
    EXPECT_EQ(pair.side[1].to_peer->cma_pid(), wins ? ::getpid() : 0);
  }
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("off").ok());
  EXPECT_FALSE(Pair(true).side[1].transport->cma_enabled());
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("on").ok());
  EXPECT_TRUE(Pair(false).side[1].transport->cma_enabled());
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
}

// Without the host's copy probe each rank times CMA itself, and two ranks could decide apart: a
// rank that timed it takes the host's first rank's choice when it maps that rank's inbox.
TEST(ShmTransport, RanksThatTimedCmaThemselvesTakeTheFirstRanksChoice) {
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
  for (bool first : {true, false}) {
    Pair pair(first, std::nullopt);  // rank 1 times it itself
    EXPECT_EQ(pair.side[1].transport->cma_enabled(), first) << first;
    EXPECT_EQ(pair.side[1].to_peer->cma_pid(), first ? ::getpid() : 0) << first;
    EXPECT_EQ(pair.side[0].to_peer->cma_pid(), first ? ::getpid() : 0) << first;
  }
}

// A fresh pair whose rank 0 offers `size` bytes to rank 1.
struct Offered {
  explicit Offered(std::size_t size) : src(pattern(size, 3)), dst(size) {
    auto offered = pair.side[0].to_peer->offer(Data{size, src.data()}, Completion{Done::fn, &sent});
    EXPECT_TRUE(offered.ok());
    if (offered.ok()) cookie = *offered;
  }
  // Rank 1 pulls the data into `dst` (`into` names it) and progresses while the sender stays
  // idle: whether the pull completed without it (it did not ask the sender for a share).
  bool pulled_alone(const Data& into) {
    EXPECT_TRUE(pair.side[1].to_peer->pull(cookie, into, Completion{Done::fn, &received}).ok());
    for (int i = 0; i < 1000; ++i) pair.side[1].transport->progress();
    return received.count == 1;
  }
  // Both progress until the transfer is done; the data must have arrived whole.
  void finish() {
    while (sent.count == 0 || received.count == 0) pair.progress();
    EXPECT_EQ(dst, src);
  }
  Pair pair;
  std::vector<std::byte> src, dst;
  Done sent, received;
  BulkCookie cookie;
};

// Data its receiver reads at once (a reduction) is copied by the receiver alone, even above the
// size from which CMA asks the sender for a share: the pull completes while the sender is idle.
TEST(ShmTransport, DataReadSoonIsCopiedByTheReceiverAlone) {
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("on").ok());
  for (bool read_soon : {true, false}) {
    Offered o(128 << 10);
    Data into{o.dst.size(), o.dst.data()};
    into.read_soon = read_soon;
    EXPECT_EQ(o.pulled_alone(into), read_soon)
        << (read_soon ? "the sender was asked for a share" : "the sender's share was not asked");
    o.finish();
  }
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
}

// A message below the size from which a split always pays is still shared with a sender that
// streams: one whose next packets already wait behind the offer.
TEST(ShmTransport, ASenderThatStreamsIsAskedForAShare) {
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("on").ok());
  for (bool streams : {false, true}) {
    Offered o(48 << 10);
    // The offer's packet, and one more behind it where the sender streams.
    PacketHeader header{};
    for (int n = 0; n < (streams ? 2 : 1); ++n)
      ASSERT_TRUE(o.pair.side[0].to_peer->send(header, o.src.data(), 16).ok());
    EXPECT_EQ(o.pulled_alone(Data{o.dst.size(), o.dst.data()}), !streams)
        << (streams ? "the sender that streams was not asked for a share"
                    : "the sender was asked for a share of a message below the split size");
    o.finish();
  }
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
}

// Rank `rank`'s transport, created while the calling thread is bound to `cpu` alone (the binding
// its inbox records); the thread's binding is restored afterwards.
std::unique_ptr<ShmTransport> create_on_cpu(int rank, int cpu) {
  cpu_set_t before;
  EXPECT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  EXPECT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  Config config{rank, {0, 1}, "test" + std::to_string(::getpid())};
  auto t = ShmTransport::create(config, PacketHandler{[](void*, const Packet&) {}, nullptr});
  EXPECT_EQ(::sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return std::move(t).value();
}

// A peer bound to another CPU may run while this rank waits for it; one bound to the same CPU
// takes turns with it (what a waiting rank polls for before yielding, api/requests.cc).
TEST(ShmTransport, KnowsWhetherThePeerRunsAlongside) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  for (bool apart : {true, false}) {
    std::unique_ptr<ShmTransport> t[2] = {create_on_cpu(0, cpus[0]),
                                          create_on_cpu(1, cpus[apart ? 1 : 0])};
    for (int rank = 0; rank < 2; ++rank) {
      auto ep = t[rank]->connect(1 - rank, t[1 - rank]->address());
      ASSERT_TRUE(ep.ok()) << ep.status().to_string();
      EXPECT_EQ(ep.value()->peer_alongside(), apart) << "rank " << rank;
    }
  }
  Pair unbound;  // both with this thread's binding
  EXPECT_FALSE(unbound.side[0].to_peer->peer_alongside());
}

// A rank that died before its peers mapped its inbox: the error names the ended process rather
// than /proc's "No such file", and leaves out the hint about /proc being out of reach.
TEST(ShmTransport, ConnectToAnEndedRankSaysSo) {
  Config own{0, {0, 1}, "test" + std::to_string(::getpid())};
  auto t = ShmTransport::create(own, PacketHandler{[](void*, const Packet&) {}, nullptr});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  for (bool reaped : {false, true}) {
    if (reaped) {
      ASSERT_EQ(::waitpid(child, nullptr, 0), child);
    } else {  // a zombie until reaped: its /proc/PID/fd is already empty
      siginfo_t info{};
      for (int i = 0; i < 2000 && info.si_pid != child; ++i) {
        ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT | WNOHANG);
        if (info.si_pid != child) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      ASSERT_EQ(info.si_pid, child);
    }
    std::string d = "fd:" + std::to_string(child) + ":3:4096";
    auto ep = t.value()->connect(1, std::as_bytes(std::span(d.data(), d.size())));
    ASSERT_FALSE(ep.ok());
    EXPECT_EQ(ep.status().code(), ErrorCode::kPeerFailed) << ep.status().to_string();
    EXPECT_NE(ep.status().to_string().find("cannot map the inbox of rank 1: its process (pid " +
                                           std::to_string(child) + ") has ended"),
              std::string::npos)
        << ep.status().to_string();
    EXPECT_EQ(ep.status().to_string().find("GPURUN_SHM_SEGMENT"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpurun::transport::shm
