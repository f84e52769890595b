// Run with the toolkit's stub on LD_LIBRARY_PATH as libcuda.so.1 (tests/cuda/CMakeLists.txt
// does): the process driver, loaded by name as in production, finds the stub and says so, and
// gpurun stays on host paths.
#include <gtest/gtest.h>

#include <string>

#include "cuda/accelerator.h"
#include "cuda/device.h"
#include "cuda/driver.h"
#include "cuda/state.h"

namespace gpurun::cuda {
namespace {

TEST(StubOnLibraryPath, ProcessDriverReportsTheStub) {
  const Driver& driver = Driver::process();
  EXPECT_EQ(driver.availability(), Availability::kStub) << driver.reason();
  EXPECT_NE(driver.reason().find("stub library"), std::string::npos) << driver.reason();
  EXPECT_EQ(driver.calls_made(), 1);
  EXPECT_FALSE(usable());
  EXPECT_EQ(State::get(), nullptr);
  EXPECT_EQ(create_accelerator({}), nullptr);
  EXPECT_NE(device_work_status().message().find("stub library"), std::string::npos);
}

}  // namespace
}  // namespace gpurun::cuda
