// CUDA_VISIBLE_DEVICES read as CUDA reads it.
#include "runtime/topo/visibility.h"

#include <gtest/gtest.h>

#include "tests/topo/fixtures.h"

namespace gpurun::topo {
namespace {

std::vector<int> hidden(const Topology& t, std::string_view value) {
  auto out = hidden_gpus(t, value);
  EXPECT_TRUE(out.ok()) << value << ": " << out.status().to_string();
  return out.ok() ? *out : std::vector<int>{-1};
}

TEST(Visibility, IndicesInPciOrder) {
  Topology t = load_fixture(kDgx);
  EXPECT_EQ(hidden(t, "0,3"), (std::vector<int>{1, 2, 4, 5, 6, 7}));
  EXPECT_EQ(hidden(t, "7,6,5,4,3,2,1,0"), (std::vector<int>{}));
  EXPECT_EQ(hidden(t, ""), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // As in CUDA, the list ends at the first entry that names no GPU.
  EXPECT_EQ(hidden(t, "1,9,2"), (std::vector<int>{0, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(hidden(t, "-1"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Visibility, UuidsAndPrefixes) {
  Topology t = load_fixture(kDgx);
  EXPECT_EQ(hidden(t, "GPU-0d6a5f21-7c1e-4b7a-9e35-4f1c2a0b0002"),
            (std::vector<int>{0, 1, 3, 4, 5, 6, 7}));
  EXPECT_EQ(hidden(t, "GPU-0d6a5f21-7c1e-4b7a-9e35-4f1c2a0b0006,5"),
            (std::vector<int>{0, 1, 2, 3, 4, 7}));
}

TEST(Visibility, UnmappableEntriesAreUnsupported) {
  Topology no_uuids = load_fixture(kGpuNic);
  auto by_uuid = hidden_gpus(no_uuids, "GPU-0d6a5f21");
  ASSERT_FALSE(by_uuid.ok());
  EXPECT_EQ(by_uuid.status().code(), ErrorCode::kUnsupported);
  Topology t = load_fixture(kDgx);
  auto mig = hidden_gpus(t, "MIG-4f1c2a0b-0000-0000-0000-000000000000");
  ASSERT_FALSE(mig.ok());
  EXPECT_EQ(mig.status().code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace gpurun::topo
