// Loading the CUDA driver where it cannot be used: no library, GPURUN_CUDA=off, the toolkit's
// stub. Each says why, and hands out no entry points (no CUDA call can follow).
#include "cuda/driver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda/accelerator.h"
#include "cuda/device.h"
#include "cuda/state.h"
#include "cuda/support.h"

namespace gpurun::cuda {
namespace {

TEST(Driver, MissingLibraryIsNoDriverAndMakesNoCall) {
  Driver driver(DriverOptions{.mode = Mode::kAuto, .library = "libcuda-gpurun-absent.so.1"});
  EXPECT_FALSE(driver.usable());
  EXPECT_EQ(driver.availability(), Availability::kNoDriver);
  EXPECT_NE(driver.reason().find("no driver"), std::string::npos) << driver.reason();
  EXPECT_NE(driver.reason().find("libcuda-gpurun-absent.so.1"), std::string::npos);
  EXPECT_EQ(driver.api(), nullptr);
  EXPECT_EQ(driver.calls_made(), 0);
  EXPECT_FALSE(driver.loaded());
}

TEST(Driver, OffLoadsNothing) {
  Driver driver(DriverOptions{.mode = Mode::kOff, .library = GPURUN_TEST_CUDA_STUB});
  EXPECT_EQ(driver.availability(), Availability::kDisabled);
  EXPECT_NE(driver.reason().find("GPURUN_CUDA=off"), std::string::npos) << driver.reason();
  EXPECT_FALSE(driver.loaded());
  EXPECT_EQ(driver.calls_made(), 0);
  EXPECT_EQ(driver.api(), nullptr);
}

TEST(Driver, ToolkitStubIsRefusedAfterCuInitAlone) {
  Driver driver(DriverOptions{.mode = Mode::kAuto, .library = GPURUN_TEST_CUDA_STUB});
  EXPECT_TRUE(driver.loaded());
  EXPECT_EQ(driver.availability(), Availability::kStub);
  EXPECT_NE(driver.reason().find("stub library"), std::string::npos) << driver.reason();
  EXPECT_EQ(driver.calls_made(), 1);  // cuInit, and nothing after it
  EXPECT_EQ(driver.api(), nullptr);
  EXPECT_FALSE(driver.kernels_usable());
}

// The kernels need a driver of the toolkit's major version: an older minor one will do.
TEST(Driver, KernelsRunOnDriversOfTheToolkitsMajorVersion) {
  EXPECT_TRUE(Driver::kernels_run_on(CUDA_VERSION));
  EXPECT_TRUE(Driver::kernels_run_on(CUDA_VERSION / 1000 * 1000));  // x.0
  EXPECT_TRUE(Driver::kernels_run_on(CUDA_VERSION + 1000));
  EXPECT_FALSE(Driver::kernels_run_on(CUDA_VERSION / 1000 * 1000 - 10));  // the last minor before
  EXPECT_FALSE(Driver::kernels_run_on(0));                                // unknown
}

TEST(Driver, OnDoesNotMakeAStubUsable) {
  Driver driver(DriverOptions{.mode = Mode::kOn, .library = GPURUN_TEST_CUDA_STUB});
  EXPECT_EQ(driver.availability(), Availability::kStub);
}

// The process driver on this machine: whatever it found, an unusable one leaves no state and
// makes device work fail with kUnsupported and the reason (on a GPU machine it is usable).
TEST(ProcessDriver, UnusableMeansNoStateAndRefusedDeviceWork) {
  const Driver& driver = Driver::process();
  EXPECT_EQ(usable(), driver.usable());
  if (driver.usable()) GTEST_SKIP() << "a usable CUDA driver is present";
  EXPECT_FALSE(driver.reason().empty());
  EXPECT_EQ(unusable_reason(), driver.reason());
  EXPECT_EQ(State::get(), nullptr);
  EXPECT_EQ(create_accelerator({}), nullptr);
  Status st = device_work_status();
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find(driver.reason()), std::string::npos) << st.to_string();
  Result<std::size_t> packed = pack(PackArgs{});
  EXPECT_FALSE(packed.ok());
  support::declare(support::Family::kPointToPoint, support::Path::kNative, "test");
  EXPECT_EQ(support::path(support::Family::kPointToPoint).path, support::Path::kRefused);
  support::reset();
}

}  // namespace
}  // namespace gpurun::cuda
