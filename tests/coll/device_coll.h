// The fixture of the tests of collectives on device memory without a GPU: ranks of one
// process (coll_job.h) whose "device memory" is the fenced test double's (fenced_device.h).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "coll/device_steps.h"
#include "coll/engine.h"
#include "coll/staging.h"
#include "coll_job.h"
#include "fenced_device.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::coll::testing_util {

inline const core::Datatype& int_type() {
  static auto type = core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT");
  return *type;
}
inline const core::Op& sum() { return core::Op::predefined(core::OpKind::kSum); }

class DeviceCollTest : public ::testing::Test {
 protected:
  ~DeviceCollTest() override {
    release_staging_blocks();
    release_device_scratch();  // before the double that allocated them goes
  }

  // Args of rank r on device memory of the double (host memory with `on_device` false); more
  // than one host, so the shared-memory algorithms (which need arenas) stay out and the pml
  // algorithms run. With `one_host_device_only`: one host, on a communicator whose members
  // all asserted device memory only (Args::device_only), which leaves them out too.
  Args args(Job& job, int r, Collective c, bool on_device = true) {
    Args a = job.args(r, c, 7);
    a.memory = on_device ? accel::MemoryKind::kCudaDevice : accel::MemoryKind::kHost;
    a.accelerator = &device;
    a.one_host = one_host_device_only;
    a.device_only = one_host_device_only;
    job.pml(r).set_accelerator(&device);
    return a;
  }
  void run(Job& job, const std::vector<Args>& args) {
    std::vector<std::unique_ptr<Operation>> ops(args.size());
    for (std::size_t r = 0; r < args.size(); ++r) {
      auto made = create(args[r]);
      ASSERT_TRUE(made.ok()) << made.status().to_string();
      ops[r] = std::move(made).value();
    }
    ASSERT_TRUE(job.run(ops));
    for (auto& op : ops) EXPECT_TRUE(op->status().ok()) << op->status().to_string();
  }

  FencedDevice device;
  bool one_host_device_only = false;
};

}  // namespace gpurun::coll::testing_util
