#include "runtime/topo/cpu_set.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <utility>

namespace gpurun::topo {
namespace {

Status bad_list(std::string_view list) {
  std::string text = "'";
  text.append(list).append("' is not a CPU list (e.g. 0-3,8)");
  return Status(ErrorCode::kInvalidArgument, std::move(text));
}

bool parse_int(std::string_view text, int& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && out >= 0;
}

}  // namespace

CpuSet::CpuSet(std::vector<int> cpus) : cpus_(std::move(cpus)) {
  std::sort(cpus_.begin(), cpus_.end());
  cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
}

Result<CpuSet> CpuSet::parse(std::string_view list) {
  std::vector<int> cpus;
  std::string_view rest = list;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    auto dash = item.find('-');
    int first = 0;
    int last = 0;
    if (!parse_int(item.substr(0, dash), first)) return bad_list(list);
    last = first;
    if (dash != std::string_view::npos && !parse_int(item.substr(dash + 1), last))
      return bad_list(list);
    if (last < first) return bad_list(list);
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return CpuSet(std::move(cpus));
}

Result<CpuSet> CpuSet::of_calling_thread() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return errno_status("sched_getaffinity", errno);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask)) cpus.push_back(cpu);
  return CpuSet(std::move(cpus));
}

bool CpuSet::contains(int cpu) const { return std::binary_search(cpus_.begin(), cpus_.end(), cpu); }

CpuSet CpuSet::intersect(const CpuSet& other) const {
  std::vector<int> out;
  std::set_intersection(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(),
                        std::back_inserter(out));
  return CpuSet(std::move(out));
}

std::uint64_t CpuSet::key() const {
  if (cpus_.empty()) return 0;
  std::uint64_t key = 1469598103934665603ULL;  // FNV-1a over the CPU numbers
  for (int cpu : cpus_) key = (key ^ static_cast<std::uint64_t>(cpu + 1)) * 1099511628211ULL;
  return key | 1;
}

std::string CpuSet::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < cpus_.size();) {
    std::size_t j = i;
    while (j + 1 < cpus_.size() && cpus_[j + 1] == cpus_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus_[i]);
    if (j > i) out += '-' + std::to_string(cpus_[j]);
    i = j + 1;
  }
  return out;
}

Status CpuSet::to_cpu_set(cpu_set_t& out) const {
  CPU_ZERO(&out);
  for (int cpu : cpus_) {
    if (cpu >= CPU_SETSIZE)
      return Status(ErrorCode::kOutOfRange, "cpu " + std::to_string(cpu) + " beyond CPU_SETSIZE");
    CPU_SET(cpu, &out);
  }
  return ok_status();
}

}  // namespace gpurun::topo
