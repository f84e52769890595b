#include "runtime/base/param.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "runtime/base/params.h"

namespace gpurun::param {

enum class Color : std::uint8_t { kAuto, kRed, kGreen };
std::span<const std::pair<std::string_view, Color>> param_enum_names(Color) {
  static constexpr std::pair<std::string_view, Color> kNames[] = {
      {"auto", Color::kAuto}, {"red", Color::kRed}, {"green", Color::kGreen}};
  return kNames;
}

namespace {

template <class T>
T parsed(std::string_view text) {
  T value{};
  Status st = Traits<T>::parse(text, value);
  EXPECT_TRUE(st.ok()) << text << ": " << st.to_string();
  return value;
}

template <class T>
bool rejects(std::string_view text) {
  T value{};
  return !Traits<T>::parse(text, value).ok();
}

TEST(ParamTraits, Sizes) {
  EXPECT_EQ(parsed<Size>("64K").bytes, 65536u);
  EXPECT_EQ(parsed<Size>("1M").bytes, 1048576u);
  EXPECT_EQ(parsed<Size>("1MiB").bytes, 1048576u);
  EXPECT_EQ(parsed<Size>("2g").bytes, 2ull << 30);
  EXPECT_EQ(parsed<Size>("4096").bytes, 4096u);
  EXPECT_TRUE(rejects<Size>("12Q"));
  EXPECT_TRUE(rejects<Size>("-1K"));
  EXPECT_EQ(Traits<Size>::format(Size{65536}), "64K");
  EXPECT_EQ(Traits<Size>::format(Size{1000}), "1000");
}

TEST(ParamTraits, Durations) {
  EXPECT_EQ(parsed<Duration>("1.8us").count(), 1800);
  EXPECT_EQ(parsed<Duration>("10ms").count(), 10'000'000);
  EXPECT_EQ(parsed<Duration>("2s").count(), 2'000'000'000);
  EXPECT_EQ(parsed<Duration>("3").count(), 3'000'000'000);
  EXPECT_TRUE(rejects<Duration>("5 parsecs"));
  EXPECT_EQ(Traits<Duration>::format(Duration(1800)), "1.8us");
}

TEST(ParamTraits, BoolsEnumsListsAuto) {
  EXPECT_TRUE(parsed<bool>("y"));
  EXPECT_TRUE(parsed<bool>("1"));
  EXPECT_FALSE(parsed<bool>("No"));
  EXPECT_TRUE(rejects<bool>("maybe"));
  EXPECT_EQ(parsed<Color>("GREEN"), Color::kGreen);
  EXPECT_TRUE(rejects<Color>("blue"));
  List l = parsed<List>("^tcp, shm");
  EXPECT_TRUE(l.exclude);
  ASSERT_EQ(l.items.size(), 2u);
  EXPECT_EQ(l.items[1], "shm");
  EXPECT_FALSE(l.selects("tcp"));
  EXPECT_TRUE(l.selects("ucx"));
  EXPECT_TRUE(List{}.selects("anything"));
  EXPECT_FALSE(parsed<std::optional<Size>>("auto").has_value());
  EXPECT_EQ(parsed<std::optional<Size>>("8K")->bytes, 8192u);
  EXPECT_EQ(parsed<int>("-42"), -42);
  EXPECT_TRUE(rejects<int>("4x"));
  EXPECT_TRUE(rejects<int>("99999999999"));
}

TEST(Param, PrecedenceEnvOverDefaultApiOverEnv) {
  setenv("GPURUN_TEST_PRECEDENCE", "7", 1);
  Param<int> p("GPURUN_TEST_PRECEDENCE", 3, "test knob");
  EXPECT_EQ(p.get(), 7);
  EXPECT_EQ(p.source(), Source::kEnv);
  ASSERT_TRUE(p.set_from_string("9").ok());
  EXPECT_EQ(p.get(), 9);
  EXPECT_EQ(p.source(), Source::kApi);
  EXPECT_FALSE(p.set_from_string("nine").ok());
  EXPECT_EQ(p.get(), 9);  // an unparsable value changes nothing
  unsetenv("GPURUN_TEST_PRECEDENCE");
}

TEST(Param, BadEnvValueKeepsDefault) {
  setenv("GPURUN_TEST_BADENV", "lots", 1);
  Param<Size> p("GPURUN_TEST_BADENV", Size{4096}, "test knob");
  EXPECT_EQ(p.get().bytes, 4096u);
  EXPECT_EQ(p.source(), Source::kDefault);
  unsetenv("GPURUN_TEST_BADENV");
}

TEST(Param, RegistryListsAndFormats) {
  Param<bool> p("GPURUN_TEST_LISTED", true, "a listed knob");
  EXPECT_EQ(find("GPURUN_TEST_LISTED"), &p);
  std::string table = format_table(all());
  EXPECT_NE(table.find("GPURUN_TEST_LISTED"), std::string::npos);
  EXPECT_NE(table.find("a listed knob"), std::string::npos);
  EXPECT_NE(table.find("GPURUN_LOG_LEVEL"), std::string::npos);
}

TEST(Param, ValueKindsAndChoices) {
  Param<bool> b("GPURUN_TEST_KIND_BOOL", true, "doc");
  Param<int> i("GPURUN_TEST_KIND_INT", 1, "doc");
  Param<std::int64_t> l("GPURUN_TEST_KIND_INT64", 1, "doc");
  Param<double> d("GPURUN_TEST_KIND_FLOAT", 0.5, "doc");
  Param<Size> s("GPURUN_TEST_KIND_SIZE", Size{8}, "doc");
  Param<Color> c("GPURUN_TEST_KIND_ENUM", Color::kRed, "doc");
  Param<std::optional<Size>> a("GPURUN_TEST_KIND_AUTO", std::nullopt, "doc");
  Param<Duration> t("GPURUN_TEST_KIND_TIME", Duration(5), "doc");
  EXPECT_EQ(b.value_kind(), ValueKind::kBool);
  EXPECT_EQ(i.value_kind(), ValueKind::kInt);
  EXPECT_EQ(l.value_kind(), ValueKind::kInt64);
  EXPECT_EQ(d.value_kind(), ValueKind::kFloat);
  EXPECT_EQ(s.value_kind(), ValueKind::kSize);
  EXPECT_EQ(c.value_kind(), ValueKind::kEnum);
  EXPECT_EQ(a.value_kind(), ValueKind::kText);  // may be "auto"
  EXPECT_EQ(t.value_kind(), ValueKind::kText);
  EXPECT_EQ(c.choices(), (std::vector<std::string_view>{"auto", "red", "green"}));
  EXPECT_TRUE(s.choices().empty());
}

TEST(Param, UnknownEnvKnobsAreReportedWithSuggestion) {
  Param<int> p("GPURUN_TEST_EAGER_LIMIT", 1, "doc");
  setenv("GPURUN_TEST_EAGER_LIMT", "5", 1);
  auto unknown = unknown_env_knobs();
  unsetenv("GPURUN_TEST_EAGER_LIMT");
  bool found = false;
  for (const auto& u : unknown)
    if (u.find("GPURUN_TEST_EAGER_LIMT (did you mean GPURUN_TEST_EAGER_LIMIT?)") == 0) found = true;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace gpurun::param
