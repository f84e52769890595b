#include "runtime/core/info.h"

#include <gtest/gtest.h>

#include <cstring>

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

TEST(InfoHex, EncodesBytesInMemoryOrderAndDecodesEitherCase) {
  const unsigned char bytes[4] = {0x12, 0xab, 0x00, 0xff};
  EXPECT_EQ(encode_hex(bytes, 4), "12ab00ff");
  unsigned char back[4] = {};
  ASSERT_TRUE(decode_hex("12AB00ff", back, 4));
  EXPECT_EQ(std::memcmp(back, bytes, 4), 0);
  EXPECT_FALSE(decode_hex("12ab00f", back, 4)) << "an odd number of digits";
  EXPECT_FALSE(decode_hex("12ab00ff00", back, 4)) << "more bytes than asked";
  EXPECT_FALSE(decode_hex("12zz00ff", back, 4)) << "not a digit";
  void* pointer = reinterpret_cast<void*>(0x1234);
  void* decoded = nullptr;
  ASSERT_TRUE(decode_hex(encode_hex(&pointer, sizeof pointer), &decoded, sizeof decoded));
  EXPECT_EQ(decoded, pointer);
}

}  // namespace
}  // namespace gpurun::core
