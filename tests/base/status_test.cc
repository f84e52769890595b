#include "runtime/base/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace gpurun {
namespace {

Status fail_if(bool fail) {
  if (fail) return Status(ErrorCode::kInvalidArgument, "bad input");
  return ok_status();
}

Result<int> half(int x) {
  if (x % 2 != 0) return Status(ErrorCode::kInvalidArgument, "odd");
  return x / 2;
}

Status chain(int x, int& out) {
  GPURUN_TRY(fail_if(x < 0));
  GPURUN_ASSIGN_OR_RETURN(int h, half(x));
  GPURUN_ASSIGN_OR_RETURN(out, half(h));
  return ok_status();
}

TEST(Status, ImmediateCodesNeedNoMessage) {
  Status s(ErrorCode::kNoResource);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kNoResource);
  EXPECT_EQ(s.message(), "");
  Status moved = std::move(s);
  EXPECT_EQ(moved.code(), ErrorCode::kNoResource);
  EXPECT_EQ(moved.to_string(), "no resource");
  moved.prepend("ring");
  EXPECT_EQ(moved.message(), "ring: no resource");
}

TEST(Status, OkIsEmpty) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kOk);
  EXPECT_EQ(sizeof(Status), sizeof(void*));
}

TEST(Status, CarriesCodeMessageAndErrno) {
  Status s = errno_status("open /x", ENOENT);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kIo);
  EXPECT_EQ(s.sys_errno(), ENOENT);
  EXPECT_NE(s.to_string().find("open /x: No such file"), std::string::npos);
  s.prepend("loading");
  EXPECT_EQ(s.message(), "loading: open /x");
  Status copy = s;
  EXPECT_EQ(copy.message(), s.message());
}

TEST(Status, TryAndAssignPropagate) {
  int out = 0;
  EXPECT_TRUE(chain(8, out).ok());
  EXPECT_EQ(out, 2);
  Status neg = chain(-1, out);
  EXPECT_EQ(neg.message(), "bad input");
  Status odd = chain(6, out);  // 6 -> 3 -> odd
  EXPECT_EQ(odd.message(), "odd");
  EXPECT_EQ(out, 2);  // outputs are set only on success
}

}  // namespace
}  // namespace gpurun
