// The cuda_ipc transport's control flow, two ranks in this process over real shm transports,
// real shared tables and real fd sockets, with the fake driver standing in for the GPUs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "cuda/ipc/cuda_ipc_transport.h"
#include "runtime/base/param.h"
#include "runtime/transport/shm/shm_transport.h"
#include "tests/cuda/ipc_fake_driver.h"

namespace gpurun::cuda::ipc {
namespace {

using testing::FakeDriver;
using testing::FakeKind;
using transport::Data;

void set_knob(const char* name, const std::string& value) {
  param::ParamBase* p = param::find(name);
  ASSERT_NE(p, nullptr) << name;
  ASSERT_TRUE(p->set_from_string(value).ok()) << name << "=" << value;
}

struct Done {
  bool fired = false;
  Status status;
  static void fn(void* self, Status s) {
    auto* d = static_cast<Done*>(self);
    d->fired = true;
    d->status = std::move(s);
  }
  transport::Completion completion() { return transport::Completion{fn, this}; }
};

Data device(void* p, std::size_t n) {
  Data d;
  d.size = n;
  d.contiguous = p;
  d.kind = accel::MemoryKind::kCudaDevice;
  return d;
}

Data host(void* p, std::size_t n) {
  Data d;
  d.size = n;
  d.contiguous = p;
  return d;
}

void fill(void* p, std::size_t n, int seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>((i * 7 + seed) & 0xff);
}

bool same(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

// Two ranks of one host in this process: shm and cuda_ipc transports, each with an endpoint
// to the other.
class IpcPair : public ::testing::Test {
 protected:
  void SetUp() override {
    set_knob("GPURUN_CUDA_IPC_MIN_SIZE", "4K");
    set_knob("GPURUN_CUDA_IPC_STAGE_CHUNK", "8K");
    set_knob("GPURUN_CUDA_IPC_CACHE_ENTRIES", "256");
    char pattern[] = "/tmp/gpurun-ipc-pair-XXXXXX";
    job_dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    ipc_[0].reset();
    ipc_[1].reset();
    shm_[0].reset();
    shm_[1].reset();
    rmdir(job_dir_.c_str());
    EXPECT_EQ(gpu_.copy_faults(), 0) << "a copy read or wrote memory no longer mapped";
    EXPECT_EQ(gpu_.open_mappings(), 0) << "mappings left behind";
    EXPECT_EQ(gpu_.context_depth(), 0) << "contexts pushed and not popped";
    for (const char* knob : {"GPURUN_CUDA_IPC_MIN_SIZE", "GPURUN_CUDA_IPC_STAGE_CHUNK",
                             "GPURUN_CUDA_IPC_CACHE_ENTRIES", "GPURUN_CUDA_IPC_HANDLES"}) {
      param::ParamBase* p = param::find(knob);
      ASSERT_TRUE(p->set_from_string(p->default_string(), param::Source::kDefault).ok());
    }
  }

  // Creates and connects both ranks; `usable` false gives them a driver that is not there.
  void connect(bool usable = true) {
    static int pair_number = 0;
    std::string token = "ipcpair" + std::to_string(getpid()) + "x" + std::to_string(++pair_number);
    for (int r = 0; r < 2; ++r) {
      auto shm = transport::shm::ShmTransport::create(transport::shm::Config{r, {0, 1}, token},
                                                      transport::PacketHandler{on_packet, this});
      ASSERT_TRUE(shm.ok()) << shm.status().to_string();
      shm_[r] = std::move(shm).value();
      Config config{r, {0, 1}, token, job_dir_, shm_[r]->caps().max_packet};
      auto ipc = CudaIpcTransport::create(config, [this, usable]() -> Result<Driver*> {
        ++driver_asks_;
        if (!usable) return Status(ErrorCode::kUnsupported, "no CUDA driver: test");
        return &gpu_;
      });
      ASSERT_TRUE(ipc.ok()) << ipc.status().to_string();
      ipc_[r] = std::move(ipc).value();
    }
    for (int r = 0; r < 2; ++r) {
      auto host = shm_[r]->connect(1 - r, shm_[1 - r]->address());
      ASSERT_TRUE(host.ok()) << host.status().to_string();
      auto ep =
          ipc_[r]->connect(1 - r, ipc_[1 - r]->address(), host.value(), shm_[1 - r]->doorbell());
      ASSERT_TRUE(ep.ok()) << ep.status().to_string();
      ep_[r] = ep.value();
    }
  }
  static void on_packet(void*, const transport::Packet&) {}

  void progress() {
    for (int r = 0; r < 2; ++r) {
      shm_[r]->progress();
      ipc_[r]->progress();
    }
  }

  // Rank `from` offers `send`, the other pulls into `recv`; both must complete.
  void transfer(const Data& send, const Data& recv, int from = 0) {
    Done sent, received;
    auto cookie = ep_[from]->offer(send, sent.completion());
    ASSERT_TRUE(cookie.ok()) << cookie.status().to_string();
    Status st = ep_[1 - from]->pull(*cookie, recv, received.completion());
    ASSERT_TRUE(st.ok()) << st.to_string();
    for (int i = 0; i < 100000 && !(sent.fired && received.fired); ++i) progress();
    ASSERT_TRUE(sent.fired && received.fired) << "transfer did not complete";
    EXPECT_TRUE(sent.status.ok()) << sent.status.to_string();
    EXPECT_TRUE(received.status.ok()) << received.status.to_string();
  }

  FakeDriver gpu_{2};
  int driver_asks_ = 0;
  std::string job_dir_;
  std::unique_ptr<transport::shm::ShmTransport> shm_[2];
  std::unique_ptr<CudaIpcTransport> ipc_[2];
  transport::Endpoint* ep_[2] = {};
};

TEST_F(IpcPair, DescribesItself) {
  connect();
  const transport::Caps& caps = ipc_[0]->caps();
  EXPECT_EQ(caps.name, "cuda_ipc");
  EXPECT_EQ(caps.reach, transport::Reach::kHost);
  EXPECT_TRUE(caps.device_memory);
  EXPECT_EQ(caps.max_packet, shm_[0]->caps().max_packet);
  EXPECT_EQ(ipc_[0]->refusal(1), std::nullopt);
  EXPECT_FALSE(ipc_[0]->connect(1, ipc_[1]->address()).ok()) << "needs the shm endpoint";
}

TEST_F(IpcPair, LegacyDeviceToDeviceByIpc) {
  connect();
  constexpr std::size_t n = 100000;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 1);
  Done sent, received;
  auto cookie = ep_[0]->offer(device(src, n), sent.completion());
  ASSERT_TRUE(cookie.ok());
  EXPECT_TRUE(is_ipc_cookie(*cookie));
  ASSERT_TRUE(ep_[1]->pull(*cookie, device(dst, n), received.completion()).ok());
  EXPECT_FALSE(received.fired) << "the copy is asynchronous: it completes in progress()";
  EXPECT_FALSE(ipc_[0]->quiescent()) << "rank 1 still reads rank 0's memory";
  for (int i = 0; i < 1000 && !(sent.fired && received.fired); ++i) progress();
  ASSERT_TRUE(sent.fired && received.fired);
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_TRUE(ipc_[0]->quiescent());
  EXPECT_EQ(ipc_[1]->cache().entries(), 1u);
  // From the same allocation again, at an offset: the mapping is reused.
  fill(src, n, 2);
  transfer(device(static_cast<char*>(src) + 1000, 5000), device(dst, 5000));
  EXPECT_TRUE(same(static_cast<char*>(src) + 1000, dst, 5000));
  EXPECT_EQ(ipc_[1]->cache().stats().hits, 1u);
  EXPECT_EQ(gpu_.fds_exported(), 0) << "legacy handles need no fd";
}

TEST_F(IpcPair, DeviceToHostByIpc) {
  connect();
  constexpr std::size_t n = 40000;
  void* src = gpu_.allocate(n);
  fill(src, n, 3);
  std::vector<char> dst(n);
  transfer(device(src, n), host(dst.data(), n));
  EXPECT_TRUE(same(src, dst.data(), n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 1u);
}

TEST_F(IpcPair, HostToDeviceIsStagedInChunks) {
  connect();
  constexpr std::size_t n = 8192 * 5 + 123;  // several chunks and a partial one
  std::vector<char> src(n);
  fill(src.data(), n, 4);
  void* dst = gpu_.allocate(n);
  transfer(host(src.data(), n), device(dst, n));
  EXPECT_TRUE(same(src.data(), dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 0u);
}

TEST_F(IpcPair, SmallDeviceMessagesAreStaged) {
  connect();
  for (std::size_t n : {1ul, 4095ul}) {
    void* src = gpu_.allocate(n);
    void* dst = gpu_.allocate(n);
    fill(src, n, static_cast<int>(n));
    Done sent;
    auto cookie = ep_[0]->offer(device(src, n), sent.completion());
    ASSERT_TRUE(cookie.ok());
    EXPECT_FALSE(is_ipc_cookie(*cookie)) << n << " bytes: under GPURUN_CUDA_IPC_MIN_SIZE";
    Done received;
    ASSERT_TRUE(ep_[1]->pull(*cookie, device(dst, n), received.completion()).ok());
    for (int i = 0; i < 1000 && !(sent.fired && received.fired); ++i) progress();
    ASSERT_TRUE(sent.fired && received.fired);
    EXPECT_TRUE(same(src, dst, n));
  }
  EXPECT_EQ(ipc_[1]->cache().entries(), 0u);
}

TEST_F(IpcPair, StagedDeviceToDeviceAcrossManyChunks) {
  set_knob("GPURUN_CUDA_IPC_HANDLES", "^legacy,vmm,pool");  // nothing may be shared
  connect();
  constexpr std::size_t n = 8192 * 9 + 77;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 5);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 0u);
}

TEST_F(IpcPair, VmmBufferPassesItsFdOnce) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 0, FakeKind::kVmm);
  void* dst = gpu_.allocate(n);
  fill(src, n, 6);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 1);
  fill(src, n, 7);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 1) << "the second transfer reuses the mapping";
  EXPECT_EQ(ipc_[1]->cache().stats().hits, 1u);
}

// VMM memory mapped inside a larger address reservation (an allocator that grows a segment):
// the mapping around the buffer is what is exported and mapped, not the reservation.
TEST_F(IpcPair, VmmMappingInsideALargerReservationGoesByIpc) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 0, FakeKind::kVmm);
  gpu_.reserve_around(src, 2 << 20);
  void* dst = gpu_.allocate(n);
  fill(src, n, 20);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 1);
  EXPECT_EQ(ipc_[1]->cache().entries(), 1u);
  int queries = gpu_.range_queries();
  fill(src, n, 22);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(gpu_.range_queries(), queries) << "a known export costs no range query";
}

// A buffer that runs from one mapping into the next cannot be mapped as one: it is staged.
TEST_F(IpcPair, BufferAcrossTwoMappingsIsStaged) {
  connect();
  constexpr std::size_t n = 65536;
  auto* src = static_cast<std::byte*>(gpu_.allocate(2 * n, 0, FakeKind::kVmm));
  gpu_.split_mapping(src, n);
  void* dst = gpu_.allocate(n);
  fill(src, 2 * n, 21);
  transfer(device(src + n / 2, n), device(dst, n));
  EXPECT_TRUE(same(src + n / 2, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 0);
  EXPECT_EQ(ipc_[1]->cache().entries(), 0u);
  EXPECT_EQ(ipc_[0]->refusal(1), std::nullopt);
}

TEST_F(IpcPair, VmmWithoutShareableHandleIsStaged) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 0, FakeKind::kVmmNoFd);
  void* dst = gpu_.allocate(n);
  fill(src, n, 8);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 0);
  EXPECT_EQ(ipc_[0]->refusal(1), std::nullopt) << "one buffer's allocator, not the peer";
}

// A driver that refuses a legacy handle as already mapped (a stale mapping of memory the peer
// freed, whose release notice was lost, overlaps it): the receiver closes the peer's unused
// mappings and opens the handle again, and the buffer still goes by IPC.
TEST_F(IpcPair, AlreadyMappedHandleIsOpenedAgainAfterTheStaleMappingsGo) {
  connect();
  constexpr std::size_t n = 65536;
  void* a = gpu_.allocate(n);
  void* b = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(a, n, 17);
  transfer(device(a, n), device(dst, n));
  ASSERT_EQ(ipc_[1]->cache().entries(), 1u);
  gpu_.fail_next_open(CUDA_ERROR_ALREADY_MAPPED);
  fill(b, n, 18);
  transfer(device(b, n), device(dst, n));
  EXPECT_TRUE(same(b, dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 1u) << "a's mapping closed, b's kept";
  fill(b, n, 19);
  transfer(device(b, n), device(dst, n));
  EXPECT_TRUE(same(b, dst, n));
  EXPECT_EQ(ipc_[1]->cache().stats().hits, 1u) << "b went by IPC and stayed mapped";
}

// A handle that cannot be exported (one buffer's allocation) stages that buffer alone: the
// peer keeps mapping the next ones.
TEST_F(IpcPair, AFailedExportStagesThatBufferOnly) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 0, FakeKind::kVmm);
  void* dst = gpu_.allocate(n);
  gpu_.fail_next_export(CUDA_ERROR_NOT_PERMITTED);
  fill(src, n, 15);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n)) << "staged";
  EXPECT_EQ(gpu_.fds_exported(), 0);
  EXPECT_EQ(ipc_[0]->refusal(1), std::nullopt) << "one buffer, not the peer";
  void* other = gpu_.allocate(n, 0, FakeKind::kVmm);
  fill(other, n, 16);
  transfer(device(other, n), device(dst, n));
  EXPECT_TRUE(same(other, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 1) << "the next buffer is mapped";
}

TEST_F(IpcPair, PoolBuffersAreImportedPerTransfer) {
  connect();
  constexpr std::size_t n = 65536;
  void* a = gpu_.allocate(n, 0, FakeKind::kPool);
  void* b = gpu_.allocate(n, 0, FakeKind::kPool);
  void* dst = gpu_.allocate(n);
  fill(a, n, 9);
  transfer(device(a, n), device(dst, n));
  EXPECT_TRUE(same(a, dst, n));
  EXPECT_EQ(gpu_.open_mappings(), 0) << "pool memory is not kept mapped";
  fill(b, n, 10);
  transfer(device(b, n), device(dst, n));
  EXPECT_TRUE(same(b, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 1) << "the pool's fd goes once";
  gpu_.release(a);
  gpu_.release(b);
  EXPECT_EQ(gpu_.bytes_in_use(), n) << "the owner's frees really free";
}

TEST_F(IpcPair, DefaultPoolIsStaged) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 0, FakeKind::kDefaultPool);
  void* dst = gpu_.allocate(n);
  fill(src, n, 11);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(gpu_.fds_exported(), 0);
}

TEST_F(IpcPair, NoPeerAccessMakesTheSenderStage) {
  connect();
  gpu_.set_peer_access(0, 1, false);
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 1);  // rank 0's buffer on GPU 1
  void* dst = gpu_.allocate(n, 0);  // rank 1 works on GPU 0
  fill(src, n, 12);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n)) << "refused, then staged";
  auto why = ipc_[0]->refusal(1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("cannot map"), std::string::npos) << *why;
  fill(src, n, 13);
  Done sent, received;
  auto cookie = ep_[0]->offer(device(src, n), sent.completion());
  ASSERT_TRUE(cookie.ok());
  EXPECT_FALSE(is_ipc_cookie(*cookie)) << "later offers are staged at once";
  ASSERT_TRUE(ep_[1]->pull(*cookie, device(dst, n), received.completion()).ok());
  for (int i = 0; i < 1000 && !(sent.fired && received.fired); ++i) progress();
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 0u);
}

TEST_F(IpcPair, PeerAccessBetweenGpusUsesIpc) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n, 1);
  void* dst = gpu_.allocate(n, 0);
  fill(src, n, 14);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 1u);
  EXPECT_EQ(ipc_[0]->refusal(1), std::nullopt);
}

TEST_F(IpcPair, PolicyRefusalStagesEverything) {
  connect();
  ipc_[0]->refuse(1, "peer access off between GPU 0 and GPU 3 (NVML: topology)");
  EXPECT_EQ(ipc_[0]->refusal(1), "peer access off between GPU 0 and GPU 3 (NVML: topology)");
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 15);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 0u);
}

TEST_F(IpcPair, FailedImportFallsBackForThatMessageOnly) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 16);
  gpu_.fail_next_open(CUDA_ERROR_TOO_MANY_PEERS);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(ipc_[0]->refusal(1), std::nullopt);
  fill(src, n, 17);
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
  EXPECT_EQ(ipc_[1]->cache().entries(), 1u) << "the next message goes by IPC again";
}

TEST_F(IpcPair, ReleaseNoticeUnmapsAFreedBuffer) {
  connect();
  constexpr std::size_t n = 65536;
  void* a = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  transfer(device(a, n), device(dst, n));
  gpu_.release(a);
  EXPECT_EQ(gpu_.bytes_in_use(), 2 * n) << "rank 1's mapping keeps freed memory allocated";
  void* b = gpu_.allocate(n);
  fill(b, n, 18);
  transfer(device(b, n), device(dst, n));  // rank 0 finds a gone and tells rank 1
  EXPECT_TRUE(same(b, dst, n));
  EXPECT_EQ(gpu_.bytes_in_use(), 2 * n) << "a's memory went back";
  EXPECT_EQ(ipc_[1]->cache().stats().releases, 1u);
  EXPECT_EQ(gpu_.open_mappings(), 1);
}

// Allocate, send, free, again and again: the memory in use stays flat (no mapping of a freed
// buffer outlives the next transfers).
TEST_F(IpcPair, ChurnKeepsMemoryFlat) {
  connect();
  constexpr std::size_t n = 65536;
  void* dst = gpu_.allocate(n);
  std::size_t most = 0;
  for (int i = 0; i < 2000; ++i) {
    FakeKind kind = i % 2 ? FakeKind::kLegacy : FakeKind::kVmm;
    void* src = gpu_.allocate(n, 0, kind);
    static_cast<char*>(src)[i % n] = static_cast<char>(i);
    transfer(device(src, n), device(dst, n));
    ASSERT_EQ(static_cast<char*>(dst)[i % n], static_cast<char>(i));
    gpu_.release(src);
    most = std::max(most, gpu_.bytes_in_use());
  }
  EXPECT_LE(most, 5 * n) << "freed buffers stay mapped";
  EXPECT_LE(ipc_[0]->exported_buffers(), 4u) << "the owner forgets freed buffers too";
}

TEST_F(IpcPair, CacheBoundHoldsForLiveBuffers) {
  set_knob("GPURUN_CUDA_IPC_CACHE_ENTRIES", "3");
  connect();
  constexpr std::size_t n = 16384;
  void* dst = gpu_.allocate(n);
  std::vector<void*> live;
  for (int i = 0; i < 10; ++i) {
    live.push_back(gpu_.allocate(n));
    fill(live.back(), n, i);
    transfer(device(live.back(), n), device(dst, n));
    EXPECT_TRUE(same(live.back(), dst, n));
    EXPECT_LE(gpu_.open_mappings(), 3);
  }
  EXPECT_EQ(ipc_[1]->cache().stats().evictions, 7u);
}

// Two pulls in flight with room for one mapping: the first one's mapping may not go while its
// copy runs.
TEST_F(IpcPair, MappingInUseIsNotEvicted) {
  set_knob("GPURUN_CUDA_IPC_CACHE_ENTRIES", "1");
  connect();
  constexpr std::size_t n = 65536;
  void* a = gpu_.allocate(n);
  void* b = gpu_.allocate(n);
  void* dst_a = gpu_.allocate(n);
  void* dst_b = gpu_.allocate(n);
  fill(a, n, 30);
  fill(b, n, 31);
  Done sent[2], received[2];
  auto cookie_a = ep_[0]->offer(device(a, n), sent[0].completion());
  auto cookie_b = ep_[0]->offer(device(b, n), sent[1].completion());
  ASSERT_TRUE(cookie_a.ok() && cookie_b.ok());
  ASSERT_TRUE(ep_[1]->pull(*cookie_a, device(dst_a, n), received[0].completion()).ok());
  ASSERT_TRUE(ep_[1]->pull(*cookie_b, device(dst_b, n), received[1].completion()).ok());
  for (int i = 0; i < 1000 && !(received[0].fired && received[1].fired); ++i) progress();
  ASSERT_TRUE(received[0].fired && received[1].fired);
  EXPECT_TRUE(same(a, dst_a, n));
  EXPECT_TRUE(same(b, dst_b, n));
  EXPECT_EQ(gpu_.copy_faults(), 0);
  for (int i = 0; i < 1000 && !(sent[0].fired && sent[1].fired); ++i) progress();
  EXPECT_LE(ipc_[1]->cache().entries(), 1u) << "the bound holds again once the copies ended";
}

TEST_F(IpcPair, TruncatedAndEmptyPulls) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 19);
  std::memset(dst, 0, n);
  transfer(device(src, n), device(dst, 1000));
  EXPECT_TRUE(same(src, dst, 1000));
  EXPECT_EQ(static_cast<char*>(dst)[1000], 0) << "only what the receiver asked for";
  transfer(device(src, n), device(dst, 0));
}

TEST_F(IpcPair, NonContiguousDeviceDataFailsLoudly) {
  connect();
  void* src = gpu_.allocate(65536);
  Data d = device(src, 65536);
  d.contiguous = nullptr;
  Done sent;
  auto cookie = ep_[0]->offer(d, sent.completion());
  ASSERT_FALSE(cookie.ok());
  EXPECT_EQ(cookie.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(cookie.status().message().find("non-contiguous"), std::string_view::npos);
}

TEST_F(IpcPair, StaleCookieIsAnError) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  Done sent;
  auto cookie = ep_[0]->offer(device(src, n), sent.completion());
  ASSERT_TRUE(cookie.ok());
  transport::BulkCookie wrong = make_cookie(cookie_slot(*cookie), cookie_generation(*cookie) + 1);
  Done received;
  Status st = ep_[1]->pull(wrong, device(dst, n), received.completion());
  EXPECT_EQ(st.code(), ErrorCode::kInternal);
  ASSERT_TRUE(ep_[1]->pull(*cookie, device(dst, n), received.completion()).ok());
  for (int i = 0; i < 1000 && !(sent.fired && received.fired); ++i) progress();
  EXPECT_TRUE(sent.fired && received.fired);
}

// The peer left without pulling (it finalized): its offers are dropped, never completed, and
// keep nothing busy; their slots serve later offers. Offers staged from the start ride on the
// shm endpoint, which forgets them too.
TEST_F(IpcPair, ForgottenOffersNeverCompleteAndKeepNothingBusy) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 21);
  Done by_ipc, staged;
  auto cookie = ep_[0]->offer(device(src, n), by_ipc.completion());
  ASSERT_TRUE(cookie.ok());
  EXPECT_TRUE(is_ipc_cookie(*cookie));
  auto small = ep_[0]->offer(device(src, 100), staged.completion());  // below the IPC minimum
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(is_ipc_cookie(*small));
  EXPECT_FALSE(ipc_[0]->quiescent());
  EXPECT_TRUE(ep_[0]->forget_offers());
  EXPECT_TRUE(ipc_[0]->quiescent());
  for (int i = 0; i < 1000; ++i) progress();
  EXPECT_FALSE(by_ipc.fired);
  EXPECT_FALSE(staged.fired);
  Done received;
  EXPECT_EQ(ep_[1]->pull(*cookie, device(dst, n), received.completion()).code(),
            ErrorCode::kInternal)
      << "the forgotten offer's slot has a new generation";
  transfer(device(src, n), device(dst, n));
  EXPECT_TRUE(same(src, dst, n));
}

// An offer the peer finished reading before it left, which this rank had not yet noticed
// (the slot says so; the peer's last packet comes after), completes as usual when the peer's
// offers are forgotten.
TEST_F(IpcPair, OfferReadBeforeThePeerLeftCompletes) {
  connect();
  constexpr std::size_t n = 65536;
  void* src = gpu_.allocate(n);
  void* dst = gpu_.allocate(n);
  fill(src, n, 22);
  Done sent, received;
  auto cookie = ep_[0]->offer(device(src, n), sent.completion());
  ASSERT_TRUE(cookie.ok());
  ASSERT_TRUE(ep_[1]->pull(*cookie, device(dst, n), received.completion()).ok());
  for (int i = 0; i < 1000 && !received.fired; ++i) {  // only the reader progresses
    shm_[1]->progress();
    ipc_[1]->progress();
  }
  ASSERT_TRUE(received.fired);
  EXPECT_FALSE(sent.fired);
  EXPECT_TRUE(ep_[0]->forget_offers());
  EXPECT_TRUE(sent.fired);
  EXPECT_TRUE(sent.status.ok()) << sent.status.to_string();
  EXPECT_TRUE(ipc_[0]->quiescent());
  EXPECT_TRUE(same(src, dst, n));
}

TEST_F(IpcPair, CopiesForEagerMessages) {
  connect();
  constexpr std::size_t n = 3000;
  void* dev = gpu_.allocate(n);
  std::vector<char> in(n), out(n);
  fill(in.data(), n, 22);
  ASSERT_TRUE(ipc_[0]->copy(dev, in.data(), n).ok());
  ASSERT_TRUE(ipc_[0]->copy(out.data(), dev, n).ok());
  EXPECT_EQ(in, out);
}

TEST_F(IpcPair, HostTrafficNeverTouchesCuda) {
  connect();
  constexpr std::size_t n = 100000;
  std::vector<char> src(n), dst(n);
  fill(src.data(), n, 20);
  transfer(host(src.data(), n), host(dst.data(), n));
  EXPECT_EQ(src, dst);
  EXPECT_EQ(driver_asks_, 0) << "no driver before a device buffer";
  EXPECT_EQ(gpu_.calls(), 0);
}

TEST_F(IpcPair, UnusableDriverFailsDeviceBuffersOnly) {
  connect(/*usable=*/false);
  constexpr std::size_t n = 100000;
  std::vector<char> src(n), dst(n);
  fill(src.data(), n, 21);
  transfer(host(src.data(), n), host(dst.data(), n));
  EXPECT_EQ(src, dst);
  Done sent;
  auto cookie = ep_[0]->offer(device(src.data(), n), sent.completion());
  ASSERT_FALSE(cookie.ok());
  EXPECT_NE(cookie.status().to_string().find("CUDA is not usable"), std::string::npos)
      << cookie.status().to_string();
}

}  // namespace
}  // namespace gpurun::cuda::ipc
