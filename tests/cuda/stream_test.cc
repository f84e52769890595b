// cuda::wrap_stream over a test double of the driver: a fake CUDA stream whose work (the
// test's own "kernels", stream memory operations, host functions) a worker thread runs in
// order. Checks that an enqueued operation's start word is written only after the stream's
// earlier work, that the stream's later work waits for the release word, the fallback to host
// functions where stream memory operations are refused, and the refusals.
#include "cuda/stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "tests/accel/serial_worker.h"

namespace gpurun::cuda {
namespace {

struct FakeStreamDriver {
  testing::SerialWorker stream;  // the fake stream
  bool memory_ops = true;        // false: cuStreamWrite/WaitValue32 answer CUDA_ERROR_NOT_SUPPORTED
  CUresult context_result = CUDA_SUCCESS;
  bool capturing = false;
  int host_functions = 0;
  static FakeStreamDriver* current;
};
FakeStreamDriver* FakeStreamDriver::current = nullptr;

const auto kContext = reinterpret_cast<CUcontext>(0x1000);
const auto kStream = reinterpret_cast<CUstream>(0x2000);

std::atomic<std::uint32_t>& word_at(CUdeviceptr address) {
  return *reinterpret_cast<std::atomic<std::uint32_t>*>(address);
}

DriverApi fake_api(bool with_memory_ops_entry_points = true) {
  DriverApi api{};
  api.get_error_name = [](CUresult, const char** s) {
    *s = "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
  };
  api.get_error_string = [](CUresult, const char** s) {
    *s = "fake";
    return CUDA_SUCCESS;
  };
  api.ctx_get_current = [](CUcontext* c) {
    *c = kContext;
    return CUDA_SUCCESS;
  };
  api.stream_get_ctx = [](CUstream, CUcontext* c) {
    *c = kContext;
    return FakeStreamDriver::current->context_result;
  };
  api.stream_is_capturing = [](CUstream, CUstreamCaptureStatus* status) {
    *status = FakeStreamDriver::current->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                   : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
  };
  api.mem_free_host = [](void* p) {
    std::free(p);
    return CUDA_SUCCESS;
  };
  if (!with_memory_ops_entry_points) return api;
  api.mem_host_alloc = [](void** p, std::size_t bytes, unsigned) {
    *p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    return CUDA_SUCCESS;
  };
  api.mem_host_get_device_pointer = [](CUdeviceptr* d, void* p, unsigned) {
    *d = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
  };
  api.stream_write_value32 = [](CUstream, CUdeviceptr address, cuuint32_t value, unsigned) {
    if (!FakeStreamDriver::current->memory_ops) return CUDA_ERROR_NOT_SUPPORTED;
    FakeStreamDriver::current->stream.push([address, value] { word_at(address) = value; });
    return CUDA_SUCCESS;
  };
  api.stream_wait_value32 = [](CUstream, CUdeviceptr address, cuuint32_t value, unsigned) {
    if (!FakeStreamDriver::current->memory_ops) return CUDA_ERROR_NOT_SUPPORTED;
    FakeStreamDriver::current->stream.push([address, value] {
      while (!accel::reached(word_at(address), value)) std::this_thread::yield();
    });
    return CUDA_SUCCESS;
  };
  api.launch_host_func = [](CUstream, CUhostFn fn, void* data) {
    ++FakeStreamDriver::current->host_functions;
    FakeStreamDriver::current->stream.push([fn, data] { fn(data); });
    return CUDA_SUCCESS;
  };
  return api;
}

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override { FakeStreamDriver::current = &driver_; }
  void TearDown() override { FakeStreamDriver::current = nullptr; }

  // Runs the protocol of one blocking enqueued operation between two pieces of the
  // application's work, and checks the order.
  void check_order(accel::Stream& stream, std::uint32_t point) {
    std::atomic<int> before{0}, after{0};
    driver_.stream.push([&before] { before = 1; });
    ASSERT_TRUE(stream.signal(point).ok());
    ASSERT_TRUE(stream.wait(point).ok());
    driver_.stream.push([&after] { after = 1; });
    while (!accel::reached(stream.started(), point)) std::this_thread::yield();
    EXPECT_EQ(before, 1) << "the start word came before the stream's earlier work";
    EXPECT_EQ(after, 0) << "the stream went past an unreleased wait";
    stream.release(point);
    driver_.stream.drain();
    EXPECT_EQ(after, 1);
  }

  FakeStreamDriver driver_;
};

TEST_F(StreamTest, StartWordFollowsEarlierWorkAndLaterWorkWaitsForRelease) {
  DriverApi api = fake_api();
  auto stream = wrap_stream(api, reinterpret_cast<std::uintptr_t>(kStream));
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  check_order(**stream, 1);
  check_order(**stream, 2);
  EXPECT_EQ(driver_.host_functions, 0);
  EXPECT_NE((*stream)->describe().find("stream memory operations"), std::string::npos);
}

TEST_F(StreamTest, HostFunctionsStandInWhereMemoryOperationsAreRefused) {
  DriverApi api = fake_api();
  driver_.memory_ops = false;
  auto stream = wrap_stream(api, reinterpret_cast<std::uintptr_t>(kStream));
  ASSERT_TRUE(stream.ok());
  check_order(**stream, 1);
  EXPECT_EQ(driver_.host_functions, 2);
  EXPECT_NE((*stream)->describe().find("host functions"), std::string::npos);
}

TEST_F(StreamTest, WordsCompareCyclically) {
  EXPECT_TRUE(accel::reached(0, 0xffffffffu));
  EXPECT_TRUE(accel::reached(5, 5));
  EXPECT_FALSE(accel::reached(0xffffffffu, 0));
  EXPECT_FALSE(accel::reached(4, 5));
  DriverApi api = fake_api();
  auto stream = wrap_stream(api, reinterpret_cast<std::uintptr_t>(kStream));
  ASSERT_TRUE(stream.ok());
  // As after 2^32 - 2 points: both words at 0xfffffffe.
  ASSERT_TRUE((*stream)->signal(0xfffffffeu).ok());
  driver_.stream.drain();
  (*stream)->release(0xfffffffeu);
  check_order(**stream, 0xffffffffu);
  check_order(**stream, 0);
}

TEST_F(StreamTest, RefusesUnknownStreamsAndDriversWithoutMemoryOperations) {
  DriverApi api = fake_api();
  driver_.context_result = CUDA_ERROR_INVALID_HANDLE;
  auto unknown = wrap_stream(api, reinterpret_cast<std::uintptr_t>(kStream));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kInvalidArgument);
  DriverApi old = fake_api(false);
  auto refused = wrap_stream(old, reinterpret_cast<std::uintptr_t>(kStream));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kUnsupported);
}

TEST_F(StreamTest, RefusesAStreamBeingCapturedIntoAGraph) {
  DriverApi api = fake_api();
  auto stream = wrap_stream(api, reinterpret_cast<std::uintptr_t>(kStream));
  ASSERT_TRUE(stream.ok());
  driver_.capturing = true;
  Status st = (*stream)->signal(1);
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find("graph"), std::string_view::npos);
  driver_.capturing = false;
  check_order(**stream, 1);
}

}  // namespace
}  // namespace gpurun::cuda
