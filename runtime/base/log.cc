#include "runtime/base/log.h"

#include <unistd.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/base/params.h"

namespace gpurun::log {

std::atomic<std::uint8_t> g_threshold[static_cast<int>(Subsys::kCount)] = {
    static_cast<std::uint8_t>(Level::warn), static_cast<std::uint8_t>(Level::warn),
    static_cast<std::uint8_t>(Level::warn), static_cast<std::uint8_t>(Level::warn),
    static_cast<std::uint8_t>(Level::warn), static_cast<std::uint8_t>(Level::warn),
    static_cast<std::uint8_t>(Level::warn), static_cast<std::uint8_t>(Level::warn)};

namespace {
constexpr std::array<std::string_view, static_cast<int>(Subsys::kCount)> kSubsysNames = {
    "init", "topo", "transport", "pml", "coll", "cuda", "launcher", "io"};
constexpr std::array<std::string_view, 6> kLevelNames = {"none",  "error", "warn",
                                                         "info",  "debug", "trace"};
std::atomic<int> g_rank{-1};

bool parse_level(std::string_view text, Level& out) {
  for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
    if (text == kLevelNames[i]) {
      out = static_cast<Level>(i);
      return true;
    }
  }
  return false;
}

int subsys_index(std::string_view text) {
  for (std::size_t i = 0; i < kSubsysNames.size(); ++i)
    if (text == kSubsysNames[i]) return static_cast<int>(i);
  return -1;
}

const char* host_name() {
  static const std::string host = [] {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return std::string(buf);
  }();
  return host.c_str();
}
}  // namespace

std::string_view subsys_name(Subsys subsys) { return kSubsysNames[static_cast<int>(subsys)]; }
std::string_view level_name(Level level) { return kLevelNames[static_cast<int>(level)]; }

void set_rank(int rank) { g_rank.store(rank, std::memory_order_relaxed); }

void configure() {
  // GPURUN_LOG_LEVEL: "<level>[,<subsys>:<level>...]"; the first bare level applies to all.
  std::array<Level, static_cast<int>(Subsys::kCount)> levels;
  levels.fill(Level::warn);
  for (const std::string& item : params::log_level().get().items) {
    auto colon = item.find(':');
    Level level{};
    if (colon == std::string::npos) {
      if (parse_level(item, level)) levels.fill(level);
      else std::fprintf(stderr, "gpurun: GPURUN_LOG_LEVEL: unknown level '%s'\n", item.c_str());
      continue;
    }
    int index = subsys_index(std::string_view(item).substr(0, colon));
    if (index < 0 || !parse_level(std::string_view(item).substr(colon + 1), level)) {
      std::fprintf(stderr, "gpurun: GPURUN_LOG_LEVEL: cannot read '%s'\n", item.c_str());
      continue;
    }
    levels[index] = level;
  }
  const auto& subsystems = params::log_subsys().get();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    // Errors always show; the subsystem filter hides the chattier levels.
    Level level = levels[i];
    if (!subsystems.selects(kSubsysNames[i]) && level > Level::warn) level = Level::warn;
    g_threshold[i].store(static_cast<std::uint8_t>(level), std::memory_order_relaxed);
  }
}

void write(Level level, Subsys subsys, const char* fmt, ...) {
  char line[2048];
  int rank = g_rank.load(std::memory_order_relaxed);
  int n;
  if (rank >= 0) {
    n = std::snprintf(line, sizeof line, "[%s:%d:%d] %s %s: ", host_name(),
                      static_cast<int>(getpid()), rank, kLevelNames[static_cast<int>(level)].data(),
                      kSubsysNames[static_cast<int>(subsys)].data());
  } else {
    n = std::snprintf(line, sizeof line, "[%s:%d] %s %s: ", host_name(),
                      static_cast<int>(getpid()), kLevelNames[static_cast<int>(level)].data(),
                      kSubsysNames[static_cast<int>(subsys)].data());
  }
  va_list args;
  va_start(args, fmt);
  int m = std::vsnprintf(line + n, sizeof line - n - 1, fmt, args);
  va_end(args);
  std::size_t len = std::min(sizeof line - 2, static_cast<std::size_t>(n + std::max(m, 0)));
  line[len++] = '\n';
  // One write(2) per line keeps lines whole when ranks share a terminal.
  ssize_t rc = ::write(STDERR_FILENO, line, len);
  (void)rc;
}

}  // namespace gpurun::log
