// NVML loaded at run time: where it is absent (or is not NVML), gpurun says so at once and
// keeps what it knew.
#include "runtime/topo/nvml.h"

#include <gtest/gtest.h>

#include "tests/topo/fixtures.h"

namespace gpurun::topo {
namespace {

TEST(Nvml, AbsentLibraryIsNotFound) {
  auto report = nvml::query("libnvidia-ml-gpurun-absent.so.1");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(report.status().message().find("libnvidia-ml-gpurun-absent.so.1"), std::string::npos);
}

TEST(Nvml, ALibraryThatIsNotNvmlIsUnsupported) {
  auto report = nvml::query("libm.so.6");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(report.status().message().find("nvmlInit_v2"), std::string::npos);
}

// The real library name: on this project's machines there is none (no NVIDIA driver); where
// there is, it must answer for every GPU it lists with a normalized bus id.
TEST(Nvml, SystemLibraryAnswersOrIsAbsent) {
  auto report = nvml::query("libnvidia-ml.so.1");
  if (!report.ok()) {
    EXPECT_EQ(report.status().code(), ErrorCode::kNotFound) << report.status().to_string();
    return;
  }
  for (const nvml::Device& device : report->devices)
    EXPECT_EQ(normalize_bus_id(device.bus_id), device.bus_id);
  EXPECT_EQ(report->p2p.size(), report->devices.size() * report->devices.size());
}

TEST(Nvml, FailedUpdateKeepsTheLinksOfTheFile) {
  Topology t = load_fixture(kPcie);
  Status status = t.update_links_from_nvml("libnvidia-ml-gpurun-absent.so.1");
  EXPECT_EQ(status.code(), ErrorCode::kNotFound);
  EXPECT_EQ(t.p2p(0, 2), P2pStatus::kTopology);
  EXPECT_EQ(t.p2p(0, 1), P2pStatus::kOk);
  EXPECT_EQ(t.link_source(), "file");
}

}  // namespace
}  // namespace gpurun::topo
