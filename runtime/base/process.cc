#include "runtime/base/process.h"

#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpurun {

std::optional<unsigned long long> process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  std::size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long ticks = 0;
  if (!(fields >> ticks)) return std::nullopt;
  return ticks;
}

std::string pid_scope() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string boot;
  std::error_code ec;
  std::string ns = std::filesystem::read_symlink("/proc/self/ns/pid", ec).string();
  if (!std::getline(in, boot) || boot.empty() || ec || ns.empty()) return "unknown";
  return boot + "/" + ns;
}

bool process_gone(pid_t pid, unsigned long long started) {
  auto now = process_start_time(pid);
  if (now) return *now != started;
  return kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace gpurun
