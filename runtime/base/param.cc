#include "runtime/base/param.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include "runtime/base/log.h"
#include "runtime/base/params.h"

extern char** environ;

namespace gpurun::param {
namespace {

std::vector<ParamBase*>& registry() {
  static std::vector<ParamBase*> params;
  return params;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

Status bad_value(std::string_view text, std::string_view expected) {
  return Status(ErrorCode::kInvalidArgument,
                std::string("'") + std::string(text) + "' is not " + std::string(expected));
}

// Parses a leading decimal number (with optional fraction) and returns the unit suffix.
Status parse_number_unit(std::string_view text, double& number, std::string& unit) {
  text = trim(text);
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                               text[end] == '.' || (end == 0 && text[end] == '-')))
    ++end;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, number);
  if (ec != std::errc() || ptr != text.data() + end || end == 0)
    return bad_value(text, "a number");
  unit = lower(trim(text.substr(end)));
  return ok_status();
}

// The parameter file: "NAME = value" lines, '#' starts a comment. Read once, on the first
// knob resolution, from the path in GPURUN_PARAM_FILE.
const std::map<std::string, std::string, std::less<>>& file_values() {
  static const auto values = [] {
    std::map<std::string, std::string, std::less<>> out;
    const std::string& path_text = param_file().get();
    if (path_text.empty()) return out;
    const char* path = path_text.c_str();
    std::ifstream in(path);
    if (!in) {
      GPURUN_LOG(warn, init, "cannot read parameter file %s", path);
      return out;
    }
    std::string line;
    while (std::getline(in, line)) {
      std::string_view view = trim(line.substr(0, line.find('#')));
      auto eq = view.find('=');
      if (view.empty() || eq == std::string_view::npos) continue;
      out.emplace(std::string(trim(view.substr(0, eq))), std::string(trim(view.substr(eq + 1))));
    }
    return out;
  }();
  return values;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view source_name(Source source) {
  switch (source) {
    case Source::kDefault: return "default";
    case Source::kFile: return "file";
    case Source::kEnv: return "env";
    case Source::kApi: return "api";
  }
  return "?";
}

bool List::selects(std::string_view name) const {
  if (items.empty()) return true;
  bool listed = std::any_of(items.begin(), items.end(),
                            [&](const std::string& item) { return lower(item) == lower(name); });
  return exclude ? !listed : listed;
}

bool is_auto(std::string_view text) { return lower(trim(text)) == "auto"; }

Status parse_enum_name(std::string_view text, std::span<const std::string_view> names,
                       std::size_t& index) {
  std::string wanted = lower(trim(text));
  std::string choices;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (lower(names[i]) == wanted) {
      index = i;
      return ok_status();
    }
    choices += std::string(i ? "|" : "") + std::string(names[i]);
  }
  return bad_value(text, "one of " + choices);
}

Status Traits<bool>::parse(std::string_view text, bool& out) {
  std::string v = lower(trim(text));
  if (v == "1" || v == "y" || v == "yes" || v == "true" || v == "on") {
    out = true;
  } else if (v == "0" || v == "n" || v == "no" || v == "false" || v == "off") {
    out = false;
  } else {
    return bad_value(text, "a boolean (0/1/y/n)");
  }
  return ok_status();
}
std::string Traits<bool>::format(const bool& value) { return value ? "1" : "0"; }

Status Traits<std::int64_t>::parse(std::string_view text, std::int64_t& out) {
  text = trim(text);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr != text.data() + text.size()) return bad_value(text, "an integer");
  return ok_status();
}
std::string Traits<std::int64_t>::format(const std::int64_t& value) {
  return std::to_string(value);
}

Status Traits<int>::parse(std::string_view text, int& out) {
  std::int64_t wide = 0;
  GPURUN_TRY(Traits<std::int64_t>::parse(text, wide));
  if (wide < INT32_MIN || wide > INT32_MAX) return bad_value(text, "a 32-bit integer");
  out = static_cast<int>(wide);
  return ok_status();
}
std::string Traits<int>::format(const int& value) { return std::to_string(value); }

Status Traits<double>::parse(std::string_view text, double& out) {
  std::string unit;
  GPURUN_TRY(parse_number_unit(text, out, unit));
  if (!unit.empty()) return bad_value(text, "a number");
  return ok_status();
}
std::string Traits<double>::format(const double& value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

Status Traits<std::string>::parse(std::string_view text, std::string& out) {
  out = std::string(text);
  return ok_status();
}
std::string Traits<std::string>::format(const std::string& value) { return value; }

Status Traits<Size>::parse(std::string_view text, Size& out) {
  double number = 0;
  std::string unit;
  GPURUN_TRY(parse_number_unit(text, number, unit));
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();
  static const std::map<std::string, double, std::less<>> kUnits = {
      {"", 1.0}, {"k", 1024.0}, {"m", 1048576.0}, {"g", 1073741824.0}, {"t", 1099511627776.0}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end() || number < 0) return bad_value(text, "a size (e.g. 64K, 1M)");
  out.bytes = static_cast<std::uint64_t>(std::llround(number * it->second));
  return ok_status();
}
std::string Traits<Size>::format(const Size& value) {
  static const char* kSuffix[] = {"", "K", "M", "G", "T"};
  std::uint64_t v = value.bytes;
  int unit = 0;
  while (v != 0 && v % 1024 == 0 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  return std::to_string(v) + kSuffix[unit];
}

Status Traits<Duration>::parse(std::string_view text, Duration& out) {
  double number = 0;
  std::string unit;
  GPURUN_TRY(parse_number_unit(text, number, unit));
  static const std::map<std::string, double, std::less<>> kUnits = {
      {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1e9}, {"m", 60e9}, {"min", 60e9}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end() || number < 0) return bad_value(text, "a time (e.g. 1.8us, 10ms, 2s)");
  out = Duration(static_cast<std::int64_t>(std::llround(number * it->second)));
  return ok_status();
}
std::string Traits<Duration>::format(const Duration& value) {
  auto ns = value.count();
  char buf[32];
  if (ns % 1000000000 == 0) {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(ns / 1000000000));
  } else if (ns >= 1000000) {
    std::snprintf(buf, sizeof buf, "%gms", static_cast<double>(ns) / 1e6);
  } else if (ns >= 1000) {
    std::snprintf(buf, sizeof buf, "%gus", static_cast<double>(ns) / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%lldns", static_cast<long long>(ns));
  }
  return buf;
}

Status Traits<List>::parse(std::string_view text, List& out) {
  text = trim(text);
  out = List{};
  if (!text.empty() && text.front() == '^') {
    out.exclude = true;
    text.remove_prefix(1);
  }
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    if (!item.empty()) out.items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return ok_status();
}
std::string Traits<List>::format(const List& value) {
  std::string out = value.exclude ? "^" : "";
  for (std::size_t i = 0; i < value.items.size(); ++i) out += (i ? "," : "") + value.items[i];
  return out;
}

ParamBase::ParamBase(std::string_view name, std::string_view doc, Level level)
    : name_(name), doc_(doc), level_(level) {
  registry().push_back(this);
}

ParamBase::~ParamBase() {
  auto& params = registry();
  params.erase(std::remove(params.begin(), params.end(), this), params.end());
}

Source ParamBase::source() const {
  ensure_resolved();
  std::lock_guard lock(mutex_);
  return source_;
}

Status ParamBase::set_from_string(std::string_view text, Source source) {
  ensure_resolved();
  std::lock_guard lock(mutex_);
  Status st = parse_into(text);
  if (!st.ok()) return st.prepend(name_);
  source_ = source;
  return ok_status();
}

void ParamBase::resolve() const {
  auto* self = const_cast<ParamBase*>(this);
  const char* env = std::getenv(name_.c_str());
  if (env != nullptr) {
    Status st = self->parse_into(env);
    if (st.ok()) {
      source_ = Source::kEnv;
      return;
    }
    GPURUN_LOG(warn, init, "ignoring %s: %s", name_.c_str(), st.to_string().c_str());
  }
  if (this == &param_file()) return;  // the file cannot name itself
  const auto& file = file_values();
  auto it = file.find(name_);
  if (it != file.end()) {
    Status st = self->parse_into(it->second);
    if (st.ok()) {
      source_ = Source::kFile;
      return;
    }
    GPURUN_LOG(warn, init, "ignoring %s from the parameter file: %s", name_.c_str(),
               st.to_string().c_str());
  }
}

std::span<ParamBase* const> all() { return registry(); }

ParamBase* find(std::string_view name) {
  for (ParamBase* p : registry())
    if (p->name() == name) return p;
  return nullptr;
}

std::string format_table(std::span<ParamBase* const> params) {
  std::vector<ParamBase*> sorted(params.begin(), params.end());
  std::sort(sorted.begin(), sorted.end(),
            [](ParamBase* a, ParamBase* b) { return a->name() < b->name(); });
  std::size_t width = 4;
  for (ParamBase* p : sorted) width = std::max(width, p->name().size());
  auto column = [](std::string text, std::size_t w) {
    if (text.size() < w) text.resize(w, ' ');
    return text + "  ";
  };
  std::string out = column("knob", width) + column("value", 11) + column("default", 11) +
                    column("source", 7) + "doc\n";
  for (ParamBase* p : sorted) {
    out += column(std::string(p->name()), width) + column(p->value_string(), 11) +
           column(p->default_string(), 11) + column(std::string(source_name(p->source())), 7) +
           std::string(p->doc()) + "\n";
  }
  return out;
}

void log_non_default() {
  for (ParamBase* p : registry()) {
    if (p->source() == Source::kDefault) continue;
    GPURUN_LOG(info, init, "knob %s value %s from %s", std::string(p->name()).c_str(),
               p->value_string().c_str(), std::string(source_name(p->source())).c_str());
  }
}

std::vector<std::string> unknown_env_knobs(std::span<const std::string> known_elsewhere) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("GPURUN_")) continue;
    std::string name(entry.substr(0, entry.find('=')));
    if (find(name) != nullptr) continue;
    if (std::find(known_elsewhere.begin(), known_elsewhere.end(), name) != known_elsewhere.end())
      continue;
    std::string best;
    std::size_t best_distance = 4;  // suggest only near misses
    auto consider = [&](std::string_view candidate) {
      std::size_t d = edit_distance(name, candidate);
      if (d < best_distance) {
        best_distance = d;
        best = std::string(candidate);
      }
    };
    for (ParamBase* p : registry()) consider(p->name());
    for (const std::string& known : known_elsewhere) consider(known);
    out.push_back(best.empty() ? name : name + " (did you mean " + best + "?)");
  }
  return out;
}

std::optional<std::string> external_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace gpurun::param
