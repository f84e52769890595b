#include "launcher/rankfile.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "launcher/cli.h"

namespace gpurun::launcher {
namespace {

// The blank-separated words of `line`, blanks around '=' dropped ("rank 0 = a" is "rank 0=a").
std::vector<std::string> words_of(std::string_view line) {
  std::string joined;
  for (std::size_t k = 0; k < line.size(); ++k) {
    if (line[k] != '=') {
      joined += line[k] == '\t' || line[k] == '\r' ? ' ' : line[k];
      continue;
    }
    while (joined.ends_with(' ')) joined.pop_back();
    joined += '=';
    while (k + 1 < line.size() && (line[k + 1] == ' ' || line[k + 1] == '\t')) ++k;
  }
  std::vector<std::string> words;
  std::istringstream in(joined);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

bool parse_int(std::string_view text, int& value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty() && value >= 0;
}

// `text` in quotes, then `why`.
std::string quoted(std::string_view text, std::string_view why) {
  std::string out = "'";
  out.append(text).append("' ").append(why);
  return out;
}

// "rank N=HOST slot=SLOTS" into `entry` and `rank`; an error text, empty when the line is fine.
std::string parse_line(std::string_view line, int& rank, RankfileEntry& entry) {
  std::vector<std::string> words = words_of(line);
  if (words.size() != 3 || words[0] != "rank")
    return quoted(line, "is not 'rank N=HOST slot=SLOTS'");
  std::size_t eq = words[1].find('=');
  if (eq == std::string::npos || !parse_int(std::string_view(words[1]).substr(0, eq), rank))
    return quoted(words[1], "is not N=HOST with a rank N");
  entry.host = words[1].substr(eq + 1);
  if (entry.host.empty()) return "rank " + std::to_string(rank) + " has no host";
  if (!words[2].starts_with("slot="))
    return quoted(words[2], "is not slot=SLOTS (cores: 0-3, socket:cores: 1:0-2)");
  entry.slots = words[2].substr(5);
  if (entry.slots.empty()) return "rank " + std::to_string(rank) + " has no slots";
  return {};
}

// The indices of a list such as "0-2,5" (each below `count`, `what` naming them in errors).
std::vector<int> indices_of(std::string_view list, int count, const std::string& what) {
  if (list == "*") {
    std::vector<int> all(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) all[static_cast<std::size_t>(i)] = i;
    return all;
  }
  std::vector<int> out;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t end = std::min(list.find(',', at), list.size());
    std::string_view item = list.substr(at, end - at);
    at = end + 1;
    std::size_t dash = item.find('-');
    int first = 0, last = 0;
    bool ok = dash == std::string_view::npos
                  ? parse_int(item, first) && parse_int(item, last)
                  : parse_int(item.substr(0, dash), first) &&
                        parse_int(item.substr(dash + 1), last) && first <= last;
    if (!ok) throw UsageError(quoted(item, "is not a " + what + " or a range"));
    if (last >= count)
      throw UsageError(what + " " + std::to_string(last) + " is not there: " +
                       std::to_string(count) + " " + what + (count == 1 ? "" : "s") + " here");
    for (int i = first; i <= last; ++i) out.push_back(i);
  }
  return out;
}

// The cores of package `socket` in logical order.
std::vector<const topo::Core*> cores_of_package(const topo::Topology& topology, int socket) {
  std::vector<const topo::Core*> out;
  for (const topo::Core& core : topology.cores())
    if (core.package == socket) out.push_back(&core);
  return out;
}

}  // namespace

Rankfile parse_rankfile_text(std::string_view text, const std::string& file) {
  std::map<int, RankfileEntry> by_rank;
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    line = line.substr(0, line.find('#'));
    if (words_of(line).empty()) continue;
    int rank = 0;
    RankfileEntry entry{.line = number};
    std::string error = parse_line(line, rank, entry);
    if (error.empty() && by_rank.contains(rank))
      error = "rank " + std::to_string(rank) + " again (line " +
              std::to_string(by_rank[rank].line) + " placed it)";
    if (!error.empty()) throw UsageError(file + ":" + std::to_string(number) + ": " + error);
    by_rank.emplace(rank, std::move(entry));
  }
  Rankfile rankfile{.path = file, .entries = {}};
  for (auto& [rank, entry] : by_rank) {
    if (rank != static_cast<int>(rankfile.entries.size()))
      throw UsageError(file + ": rank " + std::to_string(rankfile.entries.size()) +
                       " is missing (ranks are numbered from 0)");
    rankfile.entries.push_back(std::move(entry));
  }
  if (rankfile.entries.empty()) throw UsageError(file + ": places no rank");
  return rankfile;
}

Rankfile read_rankfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--rankfile " + path + ": cannot read it: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return parse_rankfile_text(text.str(), path);
}

JobMap map_rankfile(const Rankfile& rankfile, const std::vector<HostSpec>& listed, int np) {
  auto count = static_cast<int>(rankfile.entries.size());
  if (np == 0) np = count;
  if (np > count)
    throw UsageError(rankfile.path + " places " + std::to_string(count) + " ranks, not the " +
                     std::to_string(np) + " of -np");
  std::vector<HostSpec> hosts = listed;
  std::vector<int> host_of;
  for (int rank = 0; rank < np; ++rank) {
    const RankfileEntry& entry = rankfile.entries[static_cast<std::size_t>(rank)];
    std::string where = rankfile.path + ":" + std::to_string(entry.line) + ": ";
    int index = -1;
    if (entry.host.starts_with("+n")) {
      if (!parse_int(std::string_view(entry.host).substr(2), index) ||
          index >= static_cast<int>(listed.size()))
        throw UsageError(where + entry.host + ": the job's hosts (-H, --hostfile) are " +
                         std::to_string(listed.size()) + ", numbered from +n0");
    } else {
      HostSpec host{.name = entry.host, .local = is_local_host(entry.host)};
      auto same = std::find_if(hosts.begin(), hosts.end(), [&](const HostSpec& h) {
        return h.name == host.name || (h.local && host.local);
      });
      if (same == hosts.end()) same = hosts.insert(hosts.end(), host);
      index = static_cast<int>(same - hosts.begin());
    }
    host_of.push_back(index);
  }
  return map_onto(hosts, host_of);
}

topo::CpuSet slot_cpus(const topo::Topology& topology, std::string_view slots) {
  std::vector<const topo::Core*> chosen;
  for (std::size_t at = 0; at <= slots.size();) {
    std::size_t end = std::min(slots.find(';', at), slots.size());
    std::string_view group = slots.substr(at, end - at);
    at = end + 1;
    std::size_t colon = group.find(':');
    if (colon == std::string_view::npos) {
      for (int core : indices_of(group, topology.num_cores(), "core"))
        chosen.push_back(&topology.cores()[static_cast<std::size_t>(core)]);
      continue;
    }
    int sockets = std::max(1, topology.num_packages());  // cores outside any package: in 0
    for (int socket : indices_of(group.substr(0, colon), sockets, "socket")) {
      std::vector<const topo::Core*> cores = cores_of_package(topology, socket);
      std::string what = "core of socket " + std::to_string(socket);
      for (int core : indices_of(group.substr(colon + 1), static_cast<int>(cores.size()), what))
        chosen.push_back(cores[static_cast<std::size_t>(core)]);
    }
  }
  std::vector<int> pus;
  for (const topo::Core* core : chosen)
    pus.insert(pus.end(), core->pus.cpus().begin(), core->pus.cpus().end());
  return topo::CpuSet(std::move(pus));
}

void bind_to_slots(Plan& plan, const std::vector<int>& ranks,
                   const std::vector<std::string>& slots) {
  if (slots.empty()) return;
  for (std::size_t i = 0; i < ranks.size() && i < plan.placement.ranks.size(); ++i) {
    const std::string& spec = slots[static_cast<std::size_t>(ranks[i])];
    try {
      plan.placement.ranks[i].cpus = slot_cpus(plan.topology, spec);
    } catch (const UsageError& e) {
      throw UsageError("--rankfile: rank " + std::to_string(ranks[i]) + " slot=" + spec + ": " +
                       e.what());
    }
  }
}

}  // namespace gpurun::launcher
