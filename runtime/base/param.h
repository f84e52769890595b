// Knobs: every tunable of gpurun is a Param<T> declared once, in its module's params.cc, with a
// name (GPURUN_<MODULE>_<NOUN>), a default and one sentence of doc. `gpurun --info params`
// lists them all. Nothing else in the tree reads the environment.
//
// Value precedence: API/info hint > environment > parameter file (GPURUN_PARAM_FILE) > default.
// A Param resolves its value on first use and caches it; hot paths copy the value into their
// own state at setup. get() is thread-safe.
//
// Value syntax: sizes 64K/1M/2G, times 1.8us/10ms/2s, booleans 0/1/y/n/yes/no/true/false,
// enums by case-insensitive name, lists comma-separated with a leading ^ to exclude, and
// "auto" for Param<std::optional<T>> (nullopt means: let the heuristic decide).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::param {

enum class Source : std::uint8_t { kDefault, kFile, kEnv, kApi };
enum class Level : std::uint8_t { kBasic, kAdvanced };
// What a knob's value is, for interfaces that hand values out as numbers (MPI_T): a number of
// one of these C types, an index into the enumeration's names, or text (strings, lists,
// durations, and any knob that may be "auto").
enum class ValueKind : std::uint8_t { kBool, kInt, kInt64, kFloat, kSize, kEnum, kText };

std::string_view source_name(Source source);

struct Size {
  std::uint64_t bytes = 0;
  friend bool operator==(Size, Size) = default;
};
using Duration = std::chrono::nanoseconds;

struct List {
  std::vector<std::string> items;
  bool exclude = false;  // written with a leading ^
  friend bool operator==(const List&, const List&) = default;
  // True when `name` is selected: listed (or not listed, for an exclude list). Empty list
  // selects everything.
  bool selects(std::string_view name) const;
};

// Parsing and formatting per value type. Enums provide, by argument-dependent lookup,
//   std::span<const std::pair<std::string_view, E>> param_enum_names(E);
template <class T, class Enable = void>
struct Traits;

#define GPURUN_PARAM_TRAITS(T, type_name_text)          \
  template <>                                           \
  struct Traits<T> {                                    \
    static constexpr std::string_view kTypeName = type_name_text; \
    static Status parse(std::string_view text, T& out); \
    static std::string format(const T& value);          \
  }
GPURUN_PARAM_TRAITS(bool, "bool");
GPURUN_PARAM_TRAITS(int, "int");
GPURUN_PARAM_TRAITS(std::int64_t, "int");
GPURUN_PARAM_TRAITS(double, "float");
GPURUN_PARAM_TRAITS(std::string, "string");
GPURUN_PARAM_TRAITS(Size, "size");
GPURUN_PARAM_TRAITS(Duration, "time");
GPURUN_PARAM_TRAITS(List, "list");
#undef GPURUN_PARAM_TRAITS

Status parse_enum_name(std::string_view text, std::span<const std::string_view> names,
                       std::size_t& index);

template <class E>
struct Traits<E, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr std::string_view kTypeName = "enum";
  static Status parse(std::string_view text, E& out) {
    auto table = param_enum_names(E{});
    std::vector<std::string_view> names;
    for (const auto& entry : table) names.push_back(entry.first);
    std::size_t index = 0;
    GPURUN_TRY(parse_enum_name(text, names, index));
    out = table[index].second;
    return ok_status();
  }
  static std::string format(const E& value) {
    for (const auto& entry : param_enum_names(E{}))
      if (entry.second == value) return std::string(entry.first);
    return "?";
  }
  static std::string choices() {
    std::string out;
    for (const auto& entry : param_enum_names(E{})) {
      if (!out.empty()) out += "|";
      out += entry.first;
    }
    return out;
  }
};

template <class T>
struct Traits<std::optional<T>> {
  static constexpr std::string_view kTypeName = Traits<T>::kTypeName;
  static Status parse(std::string_view text, std::optional<T>& out);
  static std::string format(const std::optional<T>& value) {
    return value ? Traits<T>::format(*value) : "auto";
  }
};
bool is_auto(std::string_view text);
template <class T>
Status Traits<std::optional<T>>::parse(std::string_view text, std::optional<T>& out) {
  if (is_auto(text)) {
    out.reset();
    return ok_status();
  }
  T value{};
  GPURUN_TRY(Traits<T>::parse(text, value));
  out = std::move(value);
  return ok_status();
}

class ParamBase {
 public:
  ParamBase(std::string_view name, std::string_view doc, Level level);
  virtual ~ParamBase();
  ParamBase(const ParamBase&) = delete;
  ParamBase& operator=(const ParamBase&) = delete;

  std::string_view name() const { return name_; }
  std::string_view doc() const { return doc_; }
  Level level() const { return level_; }
  Source source() const;
  virtual std::string_view type_name() const = 0;
  virtual ValueKind value_kind() const = 0;
  // The names an enumeration knob takes, in their order (empty for the others).
  virtual std::vector<std::string_view> choices() const { return {}; }
  virtual std::string value_string() const = 0;
  virtual std::string default_string() const = 0;
  // Sets the value from text (API or info hint). An unparsable text leaves the value as it was.
  Status set_from_string(std::string_view text, Source source = Source::kApi);

 protected:
  void ensure_resolved() const { std::call_once(resolved_, [this] { resolve(); }); }
  virtual Status parse_into(std::string_view text) = 0;
  mutable std::mutex mutex_;

 private:
  void resolve() const;
  std::string name_;
  std::string doc_;
  Level level_;
  mutable Source source_ = Source::kDefault;
  mutable std::once_flag resolved_;
};

template <class T>
class Param final : public ParamBase {
 public:
  Param(std::string_view name, T default_value, std::string_view doc,
        Level level = Level::kBasic)
      : ParamBase(name, doc, level), default_(default_value), value_(std::move(default_value)) {}

  const T& get() const {
    ensure_resolved();
    return value_;
  }
  const T& default_value() const { return default_; }
  std::string_view type_name() const override { return Traits<T>::kTypeName; }
  ValueKind value_kind() const override {
    if constexpr (std::is_same_v<T, bool>)
      return ValueKind::kBool;
    else if constexpr (std::is_same_v<T, int>)
      return ValueKind::kInt;
    else if constexpr (std::is_same_v<T, std::int64_t>)
      return ValueKind::kInt64;
    else if constexpr (std::is_same_v<T, double>)
      return ValueKind::kFloat;
    else if constexpr (std::is_same_v<T, Size>)
      return ValueKind::kSize;
    else if constexpr (std::is_enum_v<T>)
      return ValueKind::kEnum;
    else
      return ValueKind::kText;
  }
  std::vector<std::string_view> choices() const override {
    std::vector<std::string_view> names;
    if constexpr (std::is_enum_v<T>)
      for (const auto& entry : param_enum_names(T{})) names.push_back(entry.first);
    return names;
  }
  std::string value_string() const override { return Traits<T>::format(get()); }
  std::string default_string() const override { return Traits<T>::format(default_); }

 private:
  Status parse_into(std::string_view text) override {
    T parsed{};
    GPURUN_TRY(Traits<T>::parse(text, parsed));
    value_ = std::move(parsed);
    return ok_status();
  }
  T default_;
  T value_;
};

// Every registered knob, in registration order.
std::span<ParamBase* const> all();
ParamBase* find(std::string_view name);
// Writes the table that `gpurun --info params` shows: name, value, default, source, doc.
std::string format_table(std::span<ParamBase* const> params);
// Logs each knob whose value does not come from its default, with its source.
void log_non_default();
// Values set in the environment that look like knobs (GPURUN_*) but match none registered in
// this process, with the closest known name when there is one. `known_elsewhere` lists names
// registered by another component (the library, seen from the launcher).
std::vector<std::string> unknown_env_knobs(std::span<const std::string> known_elsewhere = {});

// Reads a variable that belongs to other software (PMIX_*, SLURM_*, CUDA_VISIBLE_DEVICES,
// PATH): the one place outside knob resolution where gpurun reads its environment.
std::optional<std::string> external_env(const char* name);

}  // namespace gpurun::param
