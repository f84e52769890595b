// Device buffers through the pml without a GPU: a test double of the accelerator calls a
// region "device memory" and keeps it unreadable (PROT_NONE) except inside its own copy(). Any
// layer that touched device memory directly instead of through the accelerator would crash.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "pml/pml.h"
#include "runtime/core/datatype_build.h"
#include "runtime/transport/shm/shm_transport.h"

namespace gpurun::pml {
namespace {

class FakeDevice final : public accel::Accelerator {
 public:
  explicit FakeDevice(std::size_t bytes) : size_(bytes) {
    base_ = static_cast<std::byte*>(
        mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  ~FakeDevice() override { munmap(base_, size_); }
  const char* name() const override { return "fake"; }
  bool usable() const override { return true; }
  accel::MemoryInfo query(const void* p) const override {
    auto* b = static_cast<const std::byte*>(p);
    if (b >= base_ && b < base_ + size_) return {accel::MemoryKind::kCudaDevice, 0};
    return {};
  }
  Status copy(void* dst, const void* src, std::size_t n) override {
    mprotect(base_, size_, PROT_READ | PROT_WRITE);
    std::memcpy(dst, src, n);
    mprotect(base_, size_, PROT_NONE);
    ++copies;
    return ok_status();
  }
  std::byte* at(std::size_t offset) { return base_ + offset; }
  // Host-side view of device bytes, for checking results.
  std::vector<std::byte> read(std::size_t offset, std::size_t n) {
    std::vector<std::byte> out(n);
    (void)copy(out.data(), at(offset), n);
    return out;
  }
  void write(std::size_t offset, const std::vector<std::byte>& data) {
    (void)copy(at(offset), data.data(), data.size());
  }
  int copies = 0;

 private:
  std::byte* base_;
  std::size_t size_;
};

const core::Datatype* bytes() {
  static auto type = core::Datatype::predefined(core::BasicType::kUint8, 1, "byte");
  return type.get();
}

std::vector<std::byte> pattern(std::size_t size, int seed) {
  std::vector<std::byte> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::byte>((i * 7 + seed) & 0xff);
  return out;
}

// Two ranks over shm, in this process, both using the fake device.
struct Pair {
  FakeDevice device{8 << 20};
  std::unique_ptr<Pml> pml[2];
  std::unique_ptr<transport::shm::ShmTransport> shm[2];
  std::unique_ptr<core::Communicator> comm[2];
  Pair() {
    for (int r = 0; r < 2; ++r) {
      pml[r] = std::make_unique<Pml>(r, 2);
      pml[r]->set_accelerator(&device);
      shm[r] = transport::shm::ShmTransport::create(
                   {r, {0, 1}, "memtest" + std::to_string(getpid())}, pml[r]->handler())
                   .value();
      pml[r]->add_transport(shm[r].get());
      comm[r] = std::make_unique<core::Communicator>(core::Group::identity(2), r, 0);
    }
    for (int r = 0; r < 2; ++r)
      pml[r]->set_route(1 - r, shm[r]->connect(1 - r, shm[1 - r]->address()).value(), 16384,
                        "shm");
  }
  bool run_until(core::Request* a, core::Request* b) {
    for (long i = 0; i < 10'000'000 && !(a->complete() && b->complete()); ++i) {
      pml[0]->progress();
      pml[1]->progress();
    }
    return a->complete() && b->complete();
  }
};

struct Case {
  std::size_t size;
  bool send_on_device;
  bool recv_on_device;
};

class PmlDeviceMemory : public ::testing::TestWithParam<Case> {};

TEST_P(PmlDeviceMemory, MovesThroughTheAcceleratorOnly) {
  Case c = GetParam();
  Pair pair;
  auto data = pattern(c.size, 5);
  std::vector<std::byte> host_src = data, host_dst(c.size);
  void* src = host_src.data();
  void* dst = host_dst.data();
  if (c.send_on_device) {
    pair.device.write(0, data);
    src = pair.device.at(0);
  }
  if (c.recv_on_device) dst = pair.device.at(4 << 20);
  auto kind = [](bool device) {
    return device ? accel::MemoryKind::kCudaDevice : accel::MemoryKind::kHost;
  };
  core::Request s, r;
  auto n = static_cast<std::int64_t>(c.size);
  ASSERT_TRUE(pair.pml[1]->irecv({pair.comm[1].get(), dst, n, bytes(), 0, 1, Channel::kUser,
                                  kind(c.recv_on_device)}, &r).ok());
  ASSERT_TRUE(pair.pml[0]->isend({pair.comm[0].get(), src, n, bytes(), 1, 1,
                                  SendMode::kStandard, Channel::kUser, kind(c.send_on_device)},
                                 &s).ok());
  ASSERT_TRUE(pair.run_until(&s, &r));
  EXPECT_EQ(r.status.error, ErrorCode::kOk);
  EXPECT_EQ(r.status.bytes, c.size);
  auto got = c.recv_on_device ? pair.device.read(4 << 20, c.size) : host_dst;
  EXPECT_EQ(got, data);
  EXPECT_GT(pair.device.copies, 0);
}

INSTANTIATE_TEST_SUITE_P(
    EagerAndStaged, PmlDeviceMemory,
    ::testing::Values(Case{8, true, true}, Case{8, true, false}, Case{8, false, true},
                      Case{1 << 20, true, true}, Case{1 << 20, true, false},
                      Case{1 << 20, false, true}, Case{100000, true, true}));

TEST(PmlDeviceMemoryLimits, StridedDeviceDataIsRefusedClearly) {
  Pair pair;
  core::DatatypeRef vector;  // two blocks of 4 bytes, 8 apart
  {
    auto built = core::make_vector(2, 4, 8, *bytes());
    ASSERT_TRUE(built.ok());
    vector = std::move(built).value();
    vector->commit();
  }
  core::Request s;
  Status st = pair.pml[0]->isend({pair.comm[0].get(), pair.device.at(0), 1, vector.get(), 1, 1,
                                  SendMode::kStandard, Channel::kUser,
                                  accel::MemoryKind::kCudaDevice},
                                 &s);
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find("device memory"), std::string_view::npos) << st.message();
}

}  // namespace
}  // namespace gpurun::pml
