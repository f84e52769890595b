// The tuning table's memory condition ("memory": "host" / "device"), checked per call, and the
// built-in table's rule that sends allreduce on device buffers to device_ring.
#include <gtest/gtest.h>

#include <string>

#include "coll/selector.h"
#include "coll/tuning.h"

namespace gpurun::coll {
namespace {

constexpr Collective kTest = Collective::kNeighborAlltoallw;
Result<std::unique_ptr<Operation>> no_create(const Args&) {
  return Status(ErrorCode::kUnsupported, "test algorithm");
}
bool anywhere(const Args&) { return true; }

}  // namespace
}  // namespace gpurun::coll

GPURUN_REGISTER_ALGORITHM(test_mem_a, .name = "a", .collective = gpurun::coll::kTest,
                          .usable = gpurun::coll::anywhere, .create = gpurun::coll::no_create,
                          .summary = "test")
GPURUN_REGISTER_ALGORITHM(test_mem_b, .name = "b", .collective = gpurun::coll::kTest,
                          .usable = gpurun::coll::anywhere, .create = gpurun::coll::no_create,
                          .summary = "test")

namespace gpurun::coll {
namespace {

std::string table(const std::string& rules) {
  return R"({"version": 1, "collectives": {"neighbor_alltoallw": [)" + rules + "]}}";
}

std::string picked(const TuningTable& t, accel::MemoryKind memory) {
  Selector s(&t, nullptr);
  core::Communicator comm(core::Group::identity(2), 0, 7);
  Args args;
  args.collective = kTest;
  args.comm = &comm;
  args.memory = memory;
  auto candidates = s.candidates(kTest, CommShape{.ranks = 2});
  auto a = s.pick(candidates, args, 64);
  return a.ok() ? std::string(a.value()->name) : a.status().to_string();
}

TEST(MemoryCondition, RulesMatchTheCallsMemoryKind) {
  auto t = TuningTable::parse(
      table(R"({"algorithm": "a", "memory": "device"}, {"algorithm": "b", "memory": "host"},
               {"algorithm": "a"})"),
      "test");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->rules(kTest)[0].memory, MemoryCondition::kDevice);
  EXPECT_EQ(t->rules(kTest)[1].memory, MemoryCondition::kHost);
  EXPECT_EQ(t->rules(kTest)[2].memory, MemoryCondition::kAny);
  EXPECT_EQ(picked(*t, accel::MemoryKind::kHost), "b");
  EXPECT_EQ(picked(*t, accel::MemoryKind::kCudaDevice), "a");
  EXPECT_EQ(picked(*t, accel::MemoryKind::kCudaManaged), "a");  // managed counts as device
  auto host_first = TuningTable::parse(
      table(R"({"algorithm": "b", "memory": "host"}, {"algorithm": "a"})"), "test");
  ASSERT_TRUE(host_first.ok());
  EXPECT_EQ(picked(*host_first, accel::MemoryKind::kCudaDevice), "a");
  EXPECT_EQ(picked(*host_first, accel::MemoryKind::kHost), "b");
}

TEST(MemoryCondition, BadValuesAreRejected) {
  for (const char* bad : {R"("gpu")", "1", "true", R"("Device ")"}) {
    auto t = TuningTable::parse(table(std::string(R"({"algorithm": "a", "memory": )") + bad + "}"),
                                "t.json");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().to_string().find("neighbor_alltoallw[0].memory"), std::string::npos)
        << t.status().to_string();
    EXPECT_NE(t.status().to_string().find("\"device\""), std::string::npos);
  }
}

TEST(MemoryCondition, BuiltInTableSendsDeviceAllreduceToDeviceRing) {
  auto t = TuningTable::built_in();
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  auto rules = t->rules(Collective::kAllreduce);
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(rules[0].algorithm->name, "device_ring");
  EXPECT_EQ(rules[0].memory, MemoryCondition::kDevice);
  // No host rule before it, and device_ring itself refuses host buffers.
  core::Communicator comm(core::Group::identity(2), 0, 7);
  Args host;
  host.collective = Collective::kAllreduce;
  host.comm = &comm;
  EXPECT_FALSE(rules[0].algorithm->usable(host));
}

}  // namespace
}  // namespace gpurun::coll
