// Reading the selection table (see tuning.h). nlohmann-json is used without exceptions: a SAX
// pass finds syntax errors (with their line and column), then the checked document is walked
// with type tests before every access.
#include "coll/tuning.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/base/param.h"

namespace gpurun::coll {
namespace {

using nlohmann::json;

// Accepts every event and keeps the first syntax error.
struct SyntaxCheck {
  std::string error;
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const json::string_t&) { return true; }
  bool string(json::string_t&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(json::string_t&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    error = ex.what();
    return false;
  }
};

class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  Status fail(const std::string& where, const std::string& what) const {
    return Status(ErrorCode::kInvalidArgument,
                  "tuning table " + std::string(origin_) + ": " + where + ": " + what);
  }

  Status bytes(const json& v, const std::string& where, std::int64_t* out) const {
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      *out = v.get<std::int64_t>();
      return ok_status();
    }
    if (v.is_string()) {
      param::Size size;
      if (param::Traits<param::Size>::parse(v.get<std::string>(), size).ok()) {
        *out = static_cast<std::int64_t>(size.bytes);
        return ok_status();
      }
    }
    return fail(where, "expected a size in bytes (a number, or a string like \"64K\")");
  }

  Status ranks(const json& v, const std::string& where, int* out) const {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max())
      return fail(where, "expected a number of ranks (a positive integer)");
    *out = static_cast<int>(v.get<std::int64_t>());
    return ok_status();
  }

  Status algorithm(Collective c, const json& v, const std::string& where,
                   const Algorithm** out) const {
    if (!v.is_string()) return fail(where, "expected an algorithm name (a string)");
    const Algorithm* a = Registry::find(c, v.get<std::string>());
    if (a == nullptr) {
      std::string known;
      for (const Algorithm* k : Registry::of(c))
        known += (known.empty() ? "" : ", ") + std::string(k->name);
      return fail(where, "no algorithm \"" + v.get<std::string>() + "\" for " +
                             std::string(collective_name(c)) +
                             " (registered: " + (known.empty() ? "none" : known) + ")");
    }
    *out = a;
    return ok_status();
  }

  Status field(Collective c, const std::string& key, const json& v, const std::string& where,
               Rule* rule) const {
    std::string at = where + "." + key;
    if (key == "algorithm") return algorithm(c, v, at, &rule->algorithm);
    if (key == "min_bytes") return bytes(v, at, &rule->min_bytes);
    if (key == "max_bytes") return bytes(v, at, &rule->max_bytes);
    if (key == "min_ranks") return ranks(v, at, &rule->min_ranks);
    if (key == "max_ranks") return ranks(v, at, &rule->max_ranks);
    if (key == "min_nodes") return ranks(v, at, &rule->min_nodes);
    if (key == "max_nodes") return ranks(v, at, &rule->max_nodes);
    if (key == "min_ranks_per_node") return ranks(v, at, &rule->min_ranks_per_node);
    if (key == "max_ranks_per_node") return ranks(v, at, &rule->max_ranks_per_node);
    if (key == "one_host") {
      if (!v.is_boolean()) return fail(at, "expected true or false");
      rule->one_host = v.get<bool>();
      return ok_status();
    }
    if (key == "memory") return memory(v, at, &rule->memory);
    if (key == "copy") {
      rule->copy = v.is_string() ? topo::parse_host_copy(v.get<std::string>()) : std::nullopt;
      return rule->copy ? ok_status() : fail(at, "expected \"pipeline\" or \"cma\"");
    }
    if (key == "comment") return ok_status();
    return fail(at,
                "unknown key (known: algorithm, min_bytes, max_bytes, min_ranks, "
                "max_ranks, min_nodes, max_nodes, min_ranks_per_node, max_ranks_per_node, "
                "one_host, copy, memory, comment)");
  }

  Status memory(const json& v, const std::string& at, MemoryCondition* out) const {
    std::string name = v.is_string() ? v.get<std::string>() : "";
    if (name == "host") {
      *out = MemoryCondition::kHost;
    } else if (name == "device") {
      *out = MemoryCondition::kDevice;
    } else {
      return fail(at, "expected \"host\" or \"device\"");
    }
    return ok_status();
  }

  Result<Rule> rule(Collective c, const json& v, const std::string& where) const {
    if (!v.is_object()) return fail(where, "expected a rule (an object)");
    Rule rule;
    for (const auto& [key, value] : v.items()) GPURUN_TRY(field(c, key, value, where, &rule));
    if (rule.algorithm == nullptr) return fail(where, "the rule names no \"algorithm\"");
    if (rule.min_bytes > rule.max_bytes) return fail(where, "min_bytes is above max_bytes");
    if (rule.min_ranks > rule.max_ranks) return fail(where, "min_ranks is above max_ranks");
    if (rule.min_nodes > rule.max_nodes) return fail(where, "min_nodes is above max_nodes");
    if (rule.min_ranks_per_node > rule.max_ranks_per_node)
      return fail(where, "min_ranks_per_node is above max_ranks_per_node");
    return rule;
  }

 private:
  std::string_view origin_;
};

}  // namespace

Result<TuningTable> TuningTable::parse(std::string_view text, std::string_view origin) {
  Reader reader(origin);
  SyntaxCheck check;
  if (!json::sax_parse(text, &check)) return reader.fail("syntax", check.error);
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return reader.fail("top level", "expected an object");
  for (const auto& [key, value] : doc.items()) {
    if (key != "version" && key != "collectives" && key != "comment")
      return reader.fail(key, "unknown key (known: version, collectives, comment)");
  }
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer() || version->get<int>() != 1)
    return reader.fail("version", "expected \"version\": 1");
  auto collectives = doc.find("collectives");
  if (collectives == doc.end() || !collectives->is_object())
    return reader.fail("collectives", "expected an object of rule lists by collective");
  TuningTable table;
  for (const auto& [name, rules] : collectives->items()) {
    std::optional<Collective> c = collective_of(name);
    std::string where = "collectives." + name;
    if (!c) return reader.fail(where, "not a collective (e.g. allreduce, bcast, alltoallv)");
    if (!rules.is_array()) return reader.fail(where, "expected a list of rules");
    for (std::size_t i = 0; i < rules.size(); ++i) {
      GPURUN_ASSIGN_OR_RETURN(Rule rule,
                              reader.rule(*c, rules[i], where + "[" + std::to_string(i) + "]"));
      table.rules_[static_cast<std::size_t>(*c)].push_back(rule);
    }
  }
  return table;
}

Result<TuningTable> TuningTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status(ErrorCode::kNotFound,
                  "cannot read the tuning table " + path +
                      " (GPURUN_COLL_TUNING_FILE): check the path, or unset the knob to use "
                      "the built-in table");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

Result<TuningTable> TuningTable::built_in() {
  return parse(built_in_tuning_json(), "built-in table (coll/tuning.json)");
}

}  // namespace gpurun::coll
