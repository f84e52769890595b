// Run with the driver stub on LD_LIBRARY_PATH as libcuda.so.1 (ipc.cmake sets it up): a driver
// library that loads but whose cuInit fails (CUDA_ERROR_STUB_LIBRARY). The loader must report
// it, and the transport must keep host traffic going and refuse device buffers cleanly.
#include <gtest/gtest.h>

#include "cuda/ipc/cuda_ipc_transport.h"

namespace gpurun::cuda::ipc {
namespace {

TEST(IpcDriverStub, CuInitFailureIsReported) {
  auto driver = system_driver();
  ASSERT_FALSE(driver.ok()) << "the stub must not pass for a driver";
  EXPECT_EQ(driver.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(driver.status().message().find("cuInit failed"), std::string_view::npos)
      << driver.status().to_string();
}

TEST(IpcDriverStub, GpuResourcesAreRefusedWithTheReason) {
  Gpu gpu(system_driver);
  Status st = gpu.ready(nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.to_string().find("cuInit failed"), std::string::npos) << st.to_string();
  EXPECT_FALSE(gpu.is_ready());
}

}  // namespace
}  // namespace gpurun::cuda::ipc
