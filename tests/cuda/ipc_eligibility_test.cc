// Whether cuda_ipc can serve a peer, and why not, for the connect-time path choice.
#include <gtest/gtest.h>

#include "cuda/ipc/eligibility.h"
#include "tests/cuda/ipc_fake_driver.h"

namespace gpurun::cuda::ipc {
namespace {

using testing::FakeDriver;

ServeQuery usable(Driver* driver) {
  ServeQuery q;
  q.peer = 3;
  q.driver = driver;
  q.device = 0;
  q.peer_device = 0;
  return q;
}

bool mentions(const std::optional<std::string>& refusal, const std::string& text) {
  return refusal && refusal->find(text) != std::string::npos;
}

TEST(IpcEligibility, ServesRanksOnOneGpu) {
  FakeDriver gpu(2);
  EXPECT_EQ(serve_refusal(usable(&gpu)), std::nullopt);
  ServeQuery unknown = usable(&gpu);
  unknown.device = unknown.peer_device = -1;
  EXPECT_EQ(serve_refusal(unknown), std::nullopt) << "GPUs unknown: decided at the first message";
}

TEST(IpcEligibility, NeedsPeerAccessBetweenGpus) {
  FakeDriver gpu(2);
  ServeQuery q = usable(&gpu);
  q.peer_device = 1;
  EXPECT_EQ(serve_refusal(q), std::nullopt);
  gpu.set_peer_access(0, 1, false);
  auto refusal = serve_refusal(q);
  EXPECT_TRUE(mentions(refusal, "no peer access from GPU 0 to GPU 1 of rank 3")) << *refusal;
}

TEST(IpcEligibility, RefusesWithTheReason) {
  FakeDriver gpu(1);
  ServeQuery q = usable(&gpu);
  q.same_host = false;
  EXPECT_TRUE(mentions(serve_refusal(q), "another host"));
  q = usable(&gpu);
  q.disabled_by = "GPURUN_TRANSPORTS=^cuda_ipc";
  EXPECT_EQ(serve_refusal(q), "disabled by GPURUN_TRANSPORTS=^cuda_ipc");
  q = usable(nullptr);
  q.driver_problem = "no CUDA driver: libcuda.so.1 not found";
  EXPECT_TRUE(mentions(serve_refusal(q), "CUDA is not usable here: no CUDA driver"));
  q = usable(&gpu);
  q.peer_gpu_hidden = true;
  EXPECT_TRUE(mentions(serve_refusal(q), "CUDA_VISIBLE_DEVICES"));
}

TEST(IpcEligibility, FollowsThePathPolicy) {
  FakeDriver gpu(1);
  topo::PathChoice staged;
  staged.transport = "shm";
  staged.staged = true;
  staged.refused.push_back(
      topo::Refusal{"cuda_ipc", topo::PathClass::SYS, "disabled by GPURUN_TOPO_P2P=0"});
  ServeQuery q = usable(&gpu);
  q.device_path = &staged;
  EXPECT_EQ(serve_refusal(q), "disabled by GPURUN_TOPO_P2P=0");
  topo::PathChoice chosen;
  chosen.transport = "cuda_ipc";
  chosen.device_path = topo::PathClass::NVL;
  q.device_path = &chosen;
  EXPECT_EQ(serve_refusal(q), std::nullopt);
}

}  // namespace
}  // namespace gpurun::cuda::ipc
