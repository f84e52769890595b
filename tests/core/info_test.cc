#include "runtime/core/info.h"

#include <gtest/gtest.h>

namespace gpurun::core {
namespace {

TEST(Info, KeepsFirstSetOrderAndReplacesInPlace) {
  Info info;
  info.set("b", "1");
  info.set("a", "2");
  info.set("b", "3");
  ASSERT_EQ(info.size(), 2);
  EXPECT_EQ(info.key(0), "b");
  EXPECT_EQ(info.value(0), "3");
  EXPECT_EQ(info.key(1), "a");
  ASSERT_NE(info.get("a"), nullptr);
  EXPECT_EQ(*info.get("a"), "2");
  EXPECT_EQ(info.get("c"), nullptr);
  EXPECT_TRUE(info.erase("b"));
  EXPECT_FALSE(info.erase("b"));
  EXPECT_EQ(info.size(), 1);
  EXPECT_EQ(info.key(0), "a");
}

}  // namespace
}  // namespace gpurun::core
