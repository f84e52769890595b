// The pack kernels' data and arithmetic, run on the host: flattening a type into runs, finding
// a window's runs, clipping each run to the window (kernels::run_span, which the kernels
// share). Checked against core::Datatype::pack/unpack on nested random types, whole buffers
// and random windows.
#include "cuda/device_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "tests/core/datatype_test_util.h"

namespace gpurun::cuda {
namespace {

using core::Datatype;
using core::DatatypeRef;
namespace tu = core::testing_util;

// Moves [offset, offset + length) of the stream of `count` elements at `typed` the kernels'
// way, on the host.
void move_like_kernels(const FlatLayout& flat, bool pack, std::byte* typed, std::int64_t count,
                       std::int64_t offset, std::int64_t length, std::byte* packed) {
  RunWindow w = window(flat, offset, length);
  kernels::PackLaunch launch{.pack = pack,
                             .runs_per_element = static_cast<std::int64_t>(flat.runs.size()),
                             .size = flat.size,
                             .extent = flat.extent,
                             .typed = reinterpret_cast<std::uintptr_t>(typed),
                             .packed = reinterpret_cast<std::uintptr_t>(packed),
                             .first_run = w.first,
                             .run_count = w.count,
                             .offset = offset,
                             .length = length};
  ASSERT_LE(w.first + w.count, count * launch.runs_per_element);
  move_on_host(flat, launch);
}

struct Buffer {
  std::vector<std::byte> bytes;
  std::byte* origin;  // where element 0 starts (lb may be negative)
};

Buffer typed_buffer(const Datatype& t, std::int64_t count, std::mt19937& rng) {
  // Element k spans [k * extent + true_lb, k * extent + true_lb + true_extent).
  std::int64_t span = (count - 1) * t.extent();
  std::int64_t lo = t.true_lb() + std::min<std::int64_t>(0, span);
  std::int64_t hi = t.true_lb() + t.true_extent() + std::max<std::int64_t>(0, span);
  Buffer b{std::vector<std::byte>(static_cast<std::size_t>(hi - lo)), nullptr};
  for (std::byte& x : b.bytes) x = static_cast<std::byte>(rng());
  b.origin = b.bytes.data() - lo;
  return b;
}

void check_type(const Datatype& t, std::int64_t count, std::mt19937& rng) {
  Result<FlatLayout> flat = flatten(t, std::int64_t{1} << 22);
  ASSERT_TRUE(flat.ok()) << flat.status().to_string();
  std::int64_t total = count * t.size();
  if (total == 0) return;
  Buffer src = typed_buffer(t, count, rng);
  std::vector<std::byte> want(static_cast<std::size_t>(total));
  t.pack(src.origin, count, 0, want.data(), want.size());
  // The whole stream, then random windows.
  std::vector<std::byte> got(want.size());
  move_like_kernels(*flat, true, src.origin, count, 0, total, got.data());
  ASSERT_EQ(got, want);
  for (int k = 0; k < 8; ++k) {
    std::int64_t offset = static_cast<std::int64_t>(rng() % total);
    std::int64_t length = 1 + static_cast<std::int64_t>(rng() % (total - offset));
    std::vector<std::byte> part(static_cast<std::size_t>(length));
    move_like_kernels(*flat, true, src.origin, count, offset, length, part.data());
    ASSERT_EQ(0, std::memcmp(part.data(), want.data() + offset, part.size()))
        << "window " << offset << "+" << length;
  }
  // Unpack a window into a copy and compare with the engine's unpack.
  Buffer a = typed_buffer(t, count, rng);
  Buffer b{a.bytes, nullptr};
  b.origin = b.bytes.data() + (a.origin - a.bytes.data());
  std::int64_t offset = total / 3;
  std::int64_t length = total - offset;
  t.unpack(a.origin, count, static_cast<std::size_t>(offset), want.data() + offset,
           static_cast<std::size_t>(length));
  move_like_kernels(*flat, false, b.origin, count, offset, length, want.data() + offset);
  ASSERT_EQ(a.bytes, b.bytes);
}

TEST(DeviceLayout, VectorOfDoublesIsOneRunPerBlock) {
  tu::Typed d = tu::basic(core::BasicType::kDouble, 8);
  tu::Typed v = tu::vector(4, 2, 5, d);
  v.type->commit();
  Result<FlatLayout> flat = flatten(*v.type, 100);
  ASSERT_TRUE(flat.ok());
  ASSERT_EQ(flat->runs.size(), 4u);
  EXPECT_EQ(flat->runs[1].disp, 40);
  EXPECT_EQ(flat->runs[1].start, 16);
  EXPECT_EQ(flat->runs[1].bytes, 16);
  std::mt19937 rng(1);
  check_type(*v.type, 7, rng);
}

TEST(DeviceLayout, StructWithGapsAndResizedExtent) {
  tu::Typed i = tu::basic(core::BasicType::kInt32, 4);
  tu::Typed c = tu::basic(core::BasicType::kChar, 1);
  tu::Typed d = tu::basic(core::BasicType::kDouble, 8);
  tu::Typed s = tu::structure({1, 3, 2}, {0, 5, 16}, {&i, &c, &d});
  tu::Typed r = tu::resized(s, -8, 48);
  r.type->commit();
  std::mt19937 rng(2);
  check_type(*r.type, 5, rng);
}

TEST(DeviceLayout, RandomNestedTypesMatchTheEngine) {
  std::mt19937 rng(1234);
  for (int n = 0; n < 200; ++n) {
    tu::Typed t = tu::random_type(rng, 4);
    t.type->commit();
    if (t.type->size() == 0 || t.type->block_count() > 100000) continue;
    SCOPED_TRACE("type " + std::to_string(n));
    check_type(*t.type, 1 + static_cast<std::int64_t>(rng() % 5), rng);
    if (HasFatalFailure()) return;
  }
}

TEST(DeviceLayout, TooManyRunsIsUnsupported) {
  tu::Typed d = tu::basic(core::BasicType::kDouble, 8);
  tu::Typed v = tu::vector(1000, 1, 2, d);
  v.type->commit();
  Result<FlatLayout> flat = flatten(*v.type, 999);
  ASSERT_FALSE(flat.ok());
  EXPECT_EQ(flat.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(flat.status().message().find("GPURUN_CUDA_PACK_MAX_RUNS"), std::string::npos);
}

TEST(DeviceLayout, UncommittedTypeIsRefused) {
  tu::Typed d = tu::basic(core::BasicType::kDouble, 8);
  tu::Typed v = tu::vector(3, 1, 2, d);
  EXPECT_EQ(flatten(*v.type, 100).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpurun::cuda
