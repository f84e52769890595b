// The real driver loader on a machine without a usable driver: it must say so, never crash.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "cuda/ipc/driver.h"

namespace gpurun::cuda::ipc {
namespace {

TEST(IpcDriver, ReportsAMissingDriver) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib != nullptr) {
    dlclose(lib);
    GTEST_SKIP() << "a CUDA driver library is installed here";
  }
  auto driver = system_driver();
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(driver.status().message().find("no CUDA driver"), std::string_view::npos)
      << driver.status().to_string();
  EXPECT_EQ(system_driver().status().code(), ErrorCode::kUnsupported) << "the same answer again";
}

}  // namespace
}  // namespace gpurun::cuda::ipc
