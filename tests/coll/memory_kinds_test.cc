// Which values of mpi_assert_memory_alloc_kinds (and of GPURUN_ASSERT_MEMORY_ALLOC_KINDS) make a
// process assert device memory only on a communicator (api/memory_kinds.h).
#include "api/memory_kinds.h"

#include <gtest/gtest.h>

#include "cuda/accelerator.h"
#include "runtime/base/param.h"

namespace gpurun::api {
namespace {

TEST(MemoryKinds, OnlyListsOfDeviceKindsAssertDeviceMemoryOnly) {
  for (const char* yes : {"cuda:device", "cuda:managed", "cuda:device,cuda:managed",
                          " CUDA:Device , cuda:managed ", "cuda:device,cuda:device"})
    EXPECT_TRUE(lists_device_kinds_only(yes)) << yes;
  // "cuda" alone includes cuda:host; system and mpi are host memory; the empty list names no
  // kind; a kind gpurun does not move (rocm) is no assertion it can use.
  for (const char* no : {"", " ", "cuda", "cuda:host", "system", "system,cuda:device",
                         "cuda:device,mpi", "cuda:device,", ",cuda:device", "cuda:devices",
                         "rocm:device", "cuda:device;cuda:managed"})
    EXPECT_FALSE(lists_device_kinds_only(no)) << no;
}

TEST(MemoryKinds, TheInfoKeyWinsOverTheKnob) {
  param::ParamBase* knob = param::find("GPURUN_ASSERT_MEMORY_ALLOC_KINDS");
  ASSERT_NE(knob, nullptr);
  core::Info hints;
  EXPECT_FALSE(asserts_device_only(nullptr));
  EXPECT_FALSE(asserts_device_only(&hints));
  ASSERT_TRUE(knob->set_from_string("cuda:device").ok());
  EXPECT_TRUE(asserts_device_only(nullptr));
  EXPECT_TRUE(asserts_device_only(&hints));  // the key is not set: the knob says
  hints.set("mpi_assert_memory_alloc_kinds", "system,mpi");
  EXPECT_FALSE(asserts_device_only(&hints));
  ASSERT_TRUE(knob->set_from_string("").ok());
  hints.set("mpi_assert_memory_alloc_kinds", "cuda:device");
  EXPECT_TRUE(asserts_device_only(&hints));
}

// What MPI_Comm_get_info reports under mpi_memory_alloc_kinds: the host kinds, and the CUDA
// kinds exactly where CUDA is usable (never in CI, which has no GPU).
TEST(MemoryKinds, SupportedKindsFollowCuda) {
  std::string kinds = supported_kinds();
  EXPECT_EQ(kinds.rfind("mpi,system", 0), 0u) << kinds;
  EXPECT_EQ(kinds.find("cuda:device") != std::string::npos, cuda::usable()) << kinds;
}

}  // namespace
}  // namespace gpurun::api
