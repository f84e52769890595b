#include "coll/selector.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

std::string registered_names(Collective collective) {
  std::string names;
  for (const Algorithm* a : Registry::of(collective))
    names += (names.empty() ? "" : ", ") + std::string(a->name);
  return names.empty() ? "none" : names;
}

bool once(std::uint32_t& mask, Collective collective) {
  std::uint32_t bit = 1u << static_cast<unsigned>(collective);
  bool first = (mask & bit) == 0;
  mask |= bit;
  return first;
}

}  // namespace

std::vector<Candidate> Selector::candidates(Collective collective, const CommShape& shape) {
  std::vector<Candidate> out;
  std::string forced = lower(forced_ != nullptr ? forced_(collective) : "");
  if (!forced.empty() && forced != "auto") {
    const Algorithm* a = Registry::find(collective, forced);
    if (a != nullptr) {
      out.push_back(Candidate{a, 0, std::numeric_limits<std::int64_t>::max(), true});
    } else if (once(warned_unknown_, collective)) {
      GPURUN_LOG(warn, coll,
                 "GPURUN_COLL_%s_ALGO names no %.*s algorithm \"%s\" (registered: %s); using the "
                 "tuning table",
                 upper(collective_name(collective)).c_str(),
                 static_cast<int>(collective_name(collective).size()),
                 collective_name(collective).data(), forced.c_str(),
                 registered_names(collective).c_str());
    }
  }
  if (table_ != nullptr) {
    for (const Rule& r : table_->rules(collective))
      if (r.matches_comm(shape))
        out.push_back(Candidate{r.algorithm, r.min_bytes, r.max_bytes, false, r.memory});
  }
  return out;
}

Result<const Algorithm*> Selector::pick(std::span<const Candidate> candidates, const Args& args,
                                        std::int64_t bytes, const Algorithm* instead_of) {
  auto left_out = [&](const Algorithm& a, const Args& call) {
    bool same_fallback = instead_of != nullptr && instead_of->falls_back != nullptr &&
                         a.falls_back == instead_of->falls_back;
    return &a == instead_of || same_fallback || coll::left_out(a, call);
  };
  const Algorithm* refused_forced = nullptr;
  for (const Candidate& c : candidates) {
    if (bytes < c.min_bytes || bytes > c.max_bytes || !memory_matches(c.memory, args.memory))
      continue;
    if (!left_out(*c.algorithm, args) &&
        (c.algorithm->usable == nullptr || c.algorithm->usable(args))) {
      if (refused_forced != nullptr && once(warned_forced_, args.collective)) {
        GPURUN_LOG(warn, coll,
                   "%.*s algorithm %.*s (forced by knob) cannot run this call (%d ranks, %lld "
                   "bytes); using %.*s from the tuning table",
                   static_cast<int>(collective_name(args.collective).size()),
                   collective_name(args.collective).data(),
                   static_cast<int>(refused_forced->name.size()), refused_forced->name.data(),
                   args.comm->size(), static_cast<long long>(bytes),
                   static_cast<int>(c.algorithm->name.size()), c.algorithm->name.data());
      }
      return c.algorithm;
    }
    if (c.forced && c.algorithm != instead_of) refused_forced = c.algorithm;
  }
  for (const Algorithm* a : Registry::of(args.collective)) {
    if (left_out(*a, args) || (a->usable != nullptr && !a->usable(args))) continue;
    // A fallback chosen ahead (instead_of) warns when a call runs it, by the caller's select.
    if (instead_of == nullptr && once(warned_table_, args.collective)) {
      GPURUN_LOG(warn, coll,
                 "the tuning table has no algorithm that can run %.*s on %d ranks with %lld "
                 "bytes; using %.*s",
                 static_cast<int>(collective_name(args.collective).size()),
                 collective_name(args.collective).data(), args.comm->size(),
                 static_cast<long long>(bytes), static_cast<int>(a->name.size()), a->name.data());
    }
    return a;
  }
  return Status(ErrorCode::kUnsupported,
                "no collective algorithm can run this call (registered for " +
                    std::string(collective_name(args.collective)) + ": " +
                    registered_names(args.collective) + ")");
}

std::string describe_algorithms() {
  std::string out;
  for (int i = 0; i < static_cast<int>(Collective::kCount); ++i) {
    auto c = static_cast<Collective>(i);
    for (const Algorithm* a : Registry::of(c)) {
      std::string line = std::string(collective_name(c));
      line.resize(std::max<std::size_t>(line.size() + 1, 22), ' ');
      line += std::string(a->name);
      line.resize(std::max<std::size_t>(line.size() + 1, 44), ' ');
      out += line + std::string(a->summary) + "\n";
    }
  }
  return out;
}

}  // namespace gpurun::coll
