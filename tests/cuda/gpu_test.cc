// On a GPU (label gpu; skipped without one): the reduction and pack kernels against the host
// implementations, memory kinds of every allocator, copies, and laziness (no context before
// a device buffer).
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/accelerator.h"
#include "cuda/device.h"
#include "cuda/state.h"
#include "runtime/core/datatype.h"
#include "runtime/core/datatype_build.h"
#include "runtime/core/op.h"
#include "tests/core/datatype_test_util.h"

namespace gpurun::cuda {
namespace {

using core::BasicType;
using core::OpKind;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!usable()) GTEST_SKIP() << "no usable CUDA device: " << unusable_reason();
    if (!State::get()->driver().kernels_usable())
      GTEST_SKIP() << "the driver is older than the toolkit: kernels cannot run";
  }
};

struct DeviceBuffer {
  explicit DeviceBuffer(std::size_t n) : size(n) { EXPECT_EQ(cudaMalloc(&ptr, n), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(ptr); }
  void* ptr = nullptr;
  std::size_t size;
};

// Random operands: bytes 0 to 3 everywhere (never a NaN or infinity in any type, many ties for
// MIN, MAX and the pairs), then, where elements are one after the other, numbers with more
// bits for the floating-point types (finite: NaN bit patterns differ between the host's and the
// device's conversions).
std::vector<std::byte> operands(BasicType basic, std::size_t bytes, bool contiguous,
                                std::mt19937& rng) {
  std::vector<std::byte> v(bytes);
  for (std::byte& x : v) x = static_cast<std::byte>(rng() % 4);
  if (!contiguous) return v;
  auto sign = [&] { return (rng() & 1) ? 0x8000u : 0u; };
  for (std::size_t at = 0; at < bytes;) {
    if (basic == BasicType::kFloat || basic == BasicType::kFloatComplex) {
      if (at + 4 > bytes) break;
      float f = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 7.0f;
      std::memcpy(&v[at], &f, 4);
      at += 4;
    } else if (basic == BasicType::kDouble || basic == BasicType::kDoubleComplex) {
      if (at + 8 > bytes) break;
      double d = static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 3.0;
      std::memcpy(&v[at], &d, 8);
      at += 8;
    } else if (basic == BasicType::kFloat16 || basic == BasicType::kBfloat16) {
      if (at + 2 > bytes) break;
      unsigned limit = basic == BasicType::kFloat16 ? 0x7800u : 0x7f00u;  // finite
      auto h = static_cast<std::uint16_t>((rng() % limit) | sign());
      std::memcpy(&v[at], &h, 2);
      at += 2;
    } else {
      break;
    }
  }
  return v;
}

// One (op, type, count) on the device and on the host, compared bit for bit.
void compare(const core::Op& op, const core::Datatype& type, std::int64_t count,
             std::mt19937& rng) {
  auto bytes = static_cast<std::size_t>(count * type.extent());
  std::vector<std::byte> in = operands(type.basic(), bytes, type.contiguous(), rng);
  std::vector<std::byte> inout = operands(type.basic(), bytes, type.contiguous(), rng);
  DeviceBuffer din(in.size()), dinout(inout.size());
  CUDA_OK(cudaMemcpy(din.ptr, in.data(), in.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dinout.ptr, inout.data(), inout.size(), cudaMemcpyHostToDevice));
  Status st = reduce_on_device(
      ReduceArgs{.op = &op, .in = din.ptr, .inout = dinout.ptr, .count = count, .type = &type});
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_TRUE(op.apply(in.data(), inout.data(), count, type).ok());
  std::vector<std::byte> got(inout.size());
  CUDA_OK(cudaMemcpy(got.data(), dinout.ptr, got.size(), cudaMemcpyDeviceToHost));
  ASSERT_EQ(got, inout) << op.name() << " on " << type.name() << " x " << count;
}

TEST_F(Gpu, EveryReductionKernelMatchesTheHost) {
  std::mt19937 rng(7);
  for (int b = 1; b <= static_cast<int>(BasicType::kTwoDouble); ++b) {
    auto basic = static_cast<BasicType>(b);
    if (core::is_pair(basic)) continue;  // below, in their C layout
    core::DatatypeRef type = core::Datatype::predefined(basic, core::basic_size(basic),
                                                        std::string("t") + std::to_string(b));
    for (int k = 0; k < static_cast<int>(OpKind::kReplace); ++k) {
      const core::Op& op = core::Op::predefined(static_cast<OpKind>(k));
      if (!check_reduce(op, *type).ok()) continue;
      compare(op, *type, 1, rng);
      compare(op, *type, 1000003, rng);  // many blocks, a ragged tail
    }
  }
}

// Operands that do not start on a multiple of their element's size (doubles from byte 4 of a
// device buffer): the kernels would fault on such loads; the result must still match the host.
TEST_F(Gpu, MisalignedOperandsMatchTheHost) {
  const core::Op& sum = core::Op::predefined(OpKind::kSum);
  for (BasicType basic : {BasicType::kDouble, BasicType::kFloatComplex, BasicType::kInt64}) {
    core::DatatypeRef type =
        core::Datatype::predefined(basic, core::basic_size(basic), "misaligned");
    constexpr std::int64_t count = 4099;
    auto bytes = static_cast<std::size_t>(count * type->size());
    std::mt19937 rng(9);
    std::vector<std::byte> in = operands(basic, bytes, true, rng);
    std::vector<std::byte> inout = operands(basic, bytes, true, rng);
    DeviceBuffer din(bytes + 8), dinout(bytes + 8);
    auto* at_in = static_cast<std::byte*>(din.ptr) + 4;
    auto* at_inout = static_cast<std::byte*>(dinout.ptr) + 4;
    CUDA_OK(cudaMemcpy(at_in, in.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(at_inout, inout.data(), bytes, cudaMemcpyHostToDevice));
    Status st = reduce_on_device(
        ReduceArgs{.op = &sum, .in = at_in, .inout = at_inout, .count = count, .type = type.get()});
    ASSERT_TRUE(st.ok()) << st.to_string();
    ASSERT_TRUE(sum.apply(in.data(), inout.data(), count, *type).ok());
    std::vector<std::byte> got(bytes);
    CUDA_OK(cudaMemcpy(got.data(), at_inout, bytes, cudaMemcpyDeviceToHost));
    ASSERT_EQ(got, inout) << type->name();
  }
}

TEST_F(Gpu, PairsInTheirCStructLayout) {
  std::mt19937 rng(8);
  struct PairType {
    BasicType basic;
    BasicType value;
    std::int64_t index_at;
  };
  const PairType pairs[] = {{BasicType::kDoubleInt, BasicType::kDouble, 8},
                            {BasicType::kShortInt, BasicType::kInt16, 4},
                            {BasicType::kLongInt, BasicType::kInt64, 8},
                            {BasicType::kTwoInt, BasicType::kInt32, 4},
                            {BasicType::kFloatInt, BasicType::kFloat, 4}};
  for (const PairType& p : pairs) {
    core::DatatypeRef value = core::Datatype::predefined(p.value, core::basic_size(p.value), "v");
    core::DatatypeRef index = core::Datatype::predefined(BasicType::kInt32, 4, "MPI_INT");
    const std::int64_t lengths[] = {1, 1};
    const std::int64_t disps[] = {0, p.index_at};
    const core::Datatype* types[] = {value.get(), index.get()};
    core::DatatypeRef t = std::move(core::make_struct(lengths, disps, types).value());
    t->mark_predefined(p.basic, "pair");
    for (OpKind k : {OpKind::kMinloc, OpKind::kMaxloc})
      compare(core::Op::predefined(k), *t, 4097, rng);
  }
}

TEST_F(Gpu, StridedLayoutsReduceThroughScratch) {
  std::mt19937 rng(9);
  namespace tu = core::testing_util;
  tu::Typed f = tu::basic(BasicType::kFloat, 4);
  tu::Typed v = tu::vector(33, 3, 5, f);
  v.type->commit();
  compare(core::Op::predefined(OpKind::kSum), *v.type, 257, rng);
  compare(core::Op::predefined(OpKind::kMax), *v.type, 1, rng);
  compare(core::Op::predefined(OpKind::kReplace), *v.type, 17, rng);
}

TEST_F(Gpu, PackKernelsMatchTheHost) {
  std::mt19937 rng(10);
  namespace tu = core::testing_util;
  for (int n = 0; n < 60; ++n) {
    tu::Typed t = tu::random_type(rng, 3);
    t.type->commit();
    const core::Datatype& type = *t.type;
    if (type.size() == 0 || type.true_lb() < 0 || type.extent() <= 0) continue;
    std::int64_t count = 1 + static_cast<std::int64_t>(rng() % 9);
    std::size_t span =
        static_cast<std::size_t>((count - 1) * type.extent() + type.true_lb() + type.true_extent());
    std::vector<std::byte> host(span);
    for (std::byte& x : host) x = static_cast<std::byte>(rng());
    DeviceBuffer dev(span);
    CUDA_OK(cudaMemcpy(dev.ptr, host.data(), span, cudaMemcpyHostToDevice));
    std::size_t total = static_cast<std::size_t>(count * type.size());
    std::vector<std::byte> want(total), got(total);
    type.pack(host.data(), count, 0, want.data(), total);
    // Into pageable host memory (through scratch), then a window into device memory.
    Result<std::size_t> r = pack(PackArgs{.type = &type,
                                          .typed = dev.ptr,
                                          .count = count,
                                          .offset = 0,
                                          .length = total,
                                          .packed = got.data()});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(*r, total);
    ASSERT_EQ(got, want) << "type " << n;
    std::size_t offset = total / 3;
    DeviceBuffer packed(total);
    r = pack(PackArgs{.type = &type,
                      .typed = dev.ptr,
                      .count = count,
                      .offset = offset,
                      .length = total,
                      .packed = packed.ptr});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(*r, total - offset);
    std::vector<std::byte> part(total - offset);
    CUDA_OK(cudaMemcpy(part.data(), packed.ptr, part.size(), cudaMemcpyDeviceToHost));
    ASSERT_EQ(0, std::memcmp(part.data(), want.data() + offset, part.size())) << "type " << n;
    // Unpack the whole stream into a zeroed device buffer; compare with the host's unpack.
    CUDA_OK(cudaMemset(dev.ptr, 0, span));
    std::vector<std::byte> expect(span, std::byte{0});
    type.unpack(expect.data(), count, 0, want.data(), total);
    r = unpack(PackArgs{.type = &type,
                        .typed = dev.ptr,
                        .count = count,
                        .offset = 0,
                        .length = total,
                        .packed = want.data()});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    std::vector<std::byte> back(span);
    CUDA_OK(cudaMemcpy(back.data(), dev.ptr, span, cudaMemcpyDeviceToHost));
    ASSERT_EQ(back, expect) << "type " << n;
  }
}

TEST_F(Gpu, MemoryKindsOfEveryAllocator) {
  std::unique_ptr<accel::Accelerator> acc = create_accelerator({});
  ASSERT_NE(acc, nullptr);
  void *dev = nullptr, *managed = nullptr, *pinned = nullptr, *pool = nullptr;
  CUDA_OK(cudaMalloc(&dev, 1 << 20));
  CUDA_OK(cudaMallocManaged(&managed, 1 << 20));
  CUDA_OK(cudaMallocHost(&pinned, 1 << 20));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_OK(cudaMallocAsync(&pool, 1 << 20, s));
  CUDA_OK(cudaStreamSynchronize(s));
  std::vector<char> pageable(1 << 20);
  int device = 0;
  CUDA_OK(cudaGetDevice(&device));
  EXPECT_EQ(acc->query(dev).kind, accel::MemoryKind::kCudaDevice);
  EXPECT_EQ(acc->query(static_cast<char*>(dev) + 4096).device, device);
  EXPECT_EQ(acc->query(managed).kind, accel::MemoryKind::kCudaManaged);
  EXPECT_EQ(acc->query(pool).kind, accel::MemoryKind::kCudaDevice);
  EXPECT_EQ(acc->query(pinned).kind, accel::MemoryKind::kHost);
  EXPECT_EQ(acc->query(pageable.data()).kind, accel::MemoryKind::kHost);
  // Copies of every direction through the accelerator.
  std::vector<char> src(1 << 20), dst(1 << 20);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(acc->copy(dev, src.data(), src.size()).ok());
  ASSERT_TRUE(acc->copy(pool, dev, src.size()).ok());
  ASSERT_TRUE(acc->copy(managed, pool, src.size()).ok());
  ASSERT_TRUE(acc->copy(pinned, managed, src.size()).ok());
  ASSERT_TRUE(acc->copy(dst.data(), pinned, src.size()).ok());
  EXPECT_EQ(dst, src);
  CUDA_OK(cudaFreeAsync(pool, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaStreamDestroy(s));
  cudaFree(dev);
  cudaFree(managed);
  cudaFreeHost(pinned);
}

TEST_F(Gpu, FreedAndReallocatedRangesAreNotTrusted) {
  MemoryMap& map = State::get()->memory();
  for (int i = 0; i < 200; ++i) {
    void* p = nullptr;
    CUDA_OK(cudaMalloc(&p, 3 << 20));
    PointerInfo info = map.classify(p);
    ASSERT_EQ(info.kind, PointerKind::kDevice);
    ASSERT_EQ(info.allocation.base, reinterpret_cast<std::uintptr_t>(p));
    ASSERT_GE(info.allocation.size, std::size_t{3} << 20);
    CUDA_OK(cudaFree(p));
    void* h = nullptr;
    CUDA_OK(cudaMallocHost(&h, 3 << 20));  // may land where the device memory was
    ASSERT_NE(map.classify(h).kind, PointerKind::kDevice);
    cudaFreeHost(h);
  }
  EXPECT_LE(map.ranges().size(), map.ranges().capacity());
}

// Run in its own process (CTest runs each test alone): nothing before it touched CUDA.
TEST_F(Gpu, NoContextBeforeADeviceBuffer) {
  const DriverApi& api = State::get()->api();
  int local = 0;
  std::vector<char> heap(1 << 16);
  (void)State::get()->memory().query(&local);
  (void)State::get()->memory().query(heap.data());
  for (int d = 0; d < State::get()->driver().device_count(); ++d) {
    CUdevice dev = 0;
    ASSERT_EQ(api.device_get(&dev, d), CUDA_SUCCESS);
    unsigned flags = 0;
    int active = 1;
    ASSERT_EQ(api.primary_ctx_get_state(dev, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 0) << "device " << d << " has a context although no buffer needed one";
  }
}

}  // namespace
}  // namespace gpurun::cuda
