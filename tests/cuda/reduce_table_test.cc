// Which (op, type) pairs the device reduces, checked against the host's definition without a
// GPU: every pair the standard defines has a device kernel unless the type has no device
// arithmetic (long double, binary128), and every pair it does not define is refused with the
// host's message.
#include <gtest/gtest.h>

#include <string>

#include "cuda/device.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::cuda {
namespace {

using core::BasicType;
using core::OpKind;

bool host_only(BasicType b) {
  return b == BasicType::kLongDouble || b == BasicType::kFloat128 ||
         b == BasicType::kLongDoubleComplex || b == BasicType::kFloat128Complex ||
         b == BasicType::kLongDoubleInt;
}

TEST(DeviceReduceTable, EveryDefinedPairHasAKernel) {
  int kernels = 0;
  for (int b = 1; b <= static_cast<int>(BasicType::kTwoDouble); ++b) {
    auto basic = static_cast<BasicType>(b);
    std::int64_t size = core::basic_size(basic);
    core::DatatypeRef type = core::Datatype::predefined(basic, size, "type" + std::to_string(b));
    for (int k = 0; k < static_cast<int>(OpKind::kReplace); ++k) {
      const core::Op& op = core::Op::predefined(static_cast<OpKind>(k));
      Status st = check_reduce(op, *type);
      SCOPED_TRACE(std::string(op.name()) + " on basic type " + std::to_string(b));
      if (!op.defined_for(*type)) {
        EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << st.to_string();
      } else if (host_only(basic)) {
        EXPECT_EQ(st.code(), ErrorCode::kUnsupported) << st.to_string();
        EXPECT_NE(st.message().find("no device arithmetic"), std::string::npos);
      } else {
        EXPECT_TRUE(st.ok()) << st.to_string();
        ++kernels;
      }
    }
  }
  // MAX, MIN, SUM, PROD on half and bfloat16 among them.
  EXPECT_GT(kernels, 100);
}

TEST(DeviceReduceTable, Bfloat16IsAFloatingPointType) {
  core::DatatypeRef bf16 = core::Datatype::predefined(BasicType::kBfloat16, 2, "MPIX_BFLOAT16");
  EXPECT_TRUE(check_reduce(core::Op::predefined(OpKind::kSum), *bf16).ok());
  EXPECT_TRUE(check_reduce(core::Op::predefined(OpKind::kMax), *bf16).ok());
  EXPECT_EQ(check_reduce(core::Op::predefined(OpKind::kBand), *bf16).code(),
            ErrorCode::kInvalidArgument);
}

TEST(DeviceReduceTable, UserOpsStayOnTheHost) {
  auto user = core::Op::user([](const void*, void*, std::int64_t, const core::Datatype&, void*) {},
                             nullptr, true);
  core::DatatypeRef f = core::Datatype::predefined(BasicType::kFloat, 4, "MPI_FLOAT");
  Status st = check_reduce(*user, *f);
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find("host"), std::string::npos);
}

}  // namespace
}  // namespace gpurun::cuda
