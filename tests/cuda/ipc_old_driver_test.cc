// Run with tests/cuda/fake_cuda12_driver.c as libcuda.so.1 on LD_LIBRARY_PATH (ipc.cmake): a
// driver older than the toolkit the library was built with. Its entry points must be looked up
// at its own CUDA version, or cuGetProcAddress finds none of them.
#include <gtest/gtest.h>

#include "cuda/ipc/driver.h"

namespace gpurun::cuda::ipc {
namespace {

TEST(IpcOlderDriver, EntryPointsAreFoundAtTheDriversVersion) {
  auto driver = system_driver();
  // The loader counts the devices through the looked-up cuDeviceGetCount: "no CUDA device"
  // when the lookups failed.
  ASSERT_TRUE(driver.ok()) << driver.status().to_string();
  EXPECT_NE((*driver)->error_string(CUDA_ERROR_INVALID_VALUE).find("fake CUDA 12.4"),
            std::string::npos);
}

}  // namespace
}  // namespace gpurun::cuda::ipc
