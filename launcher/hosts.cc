#include "launcher/hosts.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "launcher/cli.h"

namespace gpurun::launcher {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return name.front() != '-';
}

// A positive slot count, or 0 when `text` is none.
int slot_count(std::string_view text) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || n <= 0) return 0;
  return n;
}

// "name" or "name:slots"; returns an error message, empty when it parsed.
std::string parse_entry(std::string_view entry, HostSpec& host) {
  auto colon = entry.find(':');
  std::string_view name = entry.substr(0, colon);
  if (!valid_name(name))
    return std::string("'") + std::string(name) +
           "' is not a host name (letters, digits, '.', '-', '_')";
  host.name = std::string(name);
  host.slots = 1;
  if (colon != std::string_view::npos) {
    host.slots = slot_count(entry.substr(colon + 1));
    if (host.slots == 0)
      return std::string("'") + std::string(entry) +
             "': the slots after ':' must be a positive number";
  }
  return "";
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// One hostfile line without its comment; returns an error message, empty when it parsed.
std::string parse_hostfile_line(std::string_view line, HostSpec& host) {
  std::vector<std::string_view> words = split_words(line);
  if (std::string error = parse_entry(words[0], host); !error.empty()) return error;
  bool slots_given = words[0].find(':') != std::string_view::npos;
  for (std::size_t w = 1; w < words.size(); ++w) {
    std::string_view word = words[w];
    bool max = word.starts_with("max_slots=");
    if (!max && !word.starts_with("slots="))
      return "unknown field '" + std::string(word) + "' (a line is: host slots=N [max_slots=M])";
    if (max ? host.max_slots > 0 : slots_given)
      return "the " + std::string(max ? "max_slots" : "slots") + " of " + host.name +
             " are given twice";
    int count = slot_count(word.substr(max ? 10 : 6));
    if (count == 0)
      return std::string("'") + std::string(word) + "': " + (max ? "max_slots" : "slots") +
             " must be a positive number";
    (max ? host.max_slots : host.slots) = count;
    slots_given = slots_given || !max;
  }
  if (host.max_slots > 0 && host.max_slots < host.slots)
    return "max_slots=" + std::to_string(host.max_slots) +
           " is below slots=" + std::to_string(host.slots);
  return "";
}

std::vector<std::string> local_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ifa_addr->sa_family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    else if (a->ifa_addr->sa_family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, text,
                sizeof text);
    if (text[0] != '\0') out.emplace_back(text);
  }
  freeifaddrs(list);
  return out;
}

}  // namespace

std::vector<HostSpec> parse_host_list(std::string_view text) {
  std::vector<HostSpec> hosts;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    std::string_view entry = text.substr(start, comma - start);
    HostSpec host;
    if (std::string error = parse_entry(entry, host); !error.empty())
      throw UsageError("-H " + std::string(text) + ": " + error);
    hosts.push_back(std::move(host));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return hosts;
}

std::vector<HostSpec> parse_hostfile_text(std::string_view text, const std::string& file) {
  std::vector<HostSpec> hosts;
  int number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    std::string_view line = text.substr(start, end - start);
    start = end == std::string_view::npos ? text.size() : end + 1;
    ++number;
    line = line.substr(0, line.find('#'));
    if (split_words(line).empty()) continue;
    HostSpec host;
    if (std::string error = parse_hostfile_line(line, host); !error.empty())
      throw UsageError(file + ":" + std::to_string(number) + ": " + error);
    hosts.push_back(std::move(host));
  }
  if (hosts.empty()) throw UsageError(file + ": names no host");
  return hosts;
}

std::vector<HostSpec> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--hostfile " + path + ": cannot read it: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return parse_hostfile_text(text.str(), path);
}

std::vector<HostSpec> merge_hosts(std::vector<HostSpec> hosts) {
  std::vector<HostSpec> out;
  for (HostSpec& host : hosts) {
    host.local = host.local || is_local_host(host.name);
    HostSpec* same = nullptr;
    for (HostSpec& seen : out)
      if (seen.name == host.name || (seen.local && host.local)) same = &seen;
    if (same != nullptr) {
      same->slots += host.slots;
      same->max_slots = same->max_slots > 0 && host.max_slots > 0
                            ? same->max_slots + host.max_slots
                            : 0;  // a limit on only one of the entries is none for the host
    } else {
      out.push_back(std::move(host));
    }
  }
  return out;
}

bool is_local_host(std::string_view name) {
  if (name == "localhost" || name == "127.0.0.1" || name == "::1") return true;
  char own[256] = {};
  gethostname(own, sizeof own - 1);
  std::string_view full(own);
  if (name == full || name == full.substr(0, full.find('.'))) return true;
  for (const std::string& address : local_addresses())
    if (name == address) return true;
  return false;
}

}  // namespace gpurun::launcher
