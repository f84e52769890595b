// The info handle table and MPI_INFO_ENV.
#include "api/info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "api/call.h"
#include "api/state.h"

namespace gpurun::api {
namespace {

struct InfoEntry {
  std::unique_ptr<core::Info> info;
};

ObjectTable<InfoEntry>& infos() {
  static auto* table = new ObjectTable<InfoEntry>();
  return *table;
}

// The command line of this process, from /proc (MPI_Init's argc/argv may be null).
std::vector<std::string> command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

// What the standard's MPI_INFO_ENV keys say about this process, as far as it is known: the
// job's keys only once MPI is initialized.
void fill_env(core::Info& info) {
  std::vector<std::string> args = command_line();
  if (!args.empty()) info.set("command", args[0]);
  std::string rest;
  for (std::size_t i = 1; i < args.size(); ++i) rest += (i > 1 ? " " : "") + args[i];
  if (args.size() > 1) info.set("argv", rest);
  struct utsname u;
  if (uname(&u) == 0) info.set("arch", u.machine);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) info.set("wdir", cwd);
  if (phase() == Phase::kInitialized) {
    const bootstrap::JobInfo& job = state().bootstrap->job();
    info.set("maxprocs", std::to_string(job.size));
    info.set("host", job.host);
    info.set("thread_level", thread_level_name(state().thread_level));
  }
}

core::Info* env_info() {
  static auto* info = new core::Info();
  static bool with_job = false;
  if (info->empty() || (!with_job && phase() == Phase::kInitialized)) {
    *info = core::Info();
    fill_env(*info);
    with_job = phase() == Phase::kInitialized;
  }
  return info;
}

}  // namespace

core::Info* find_info(MPI_Info handle) {
  if (handle == MPI_INFO_ENV) return env_info();
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kInfo)
    return nullptr;
  InfoEntry* e = infos().find(handle_index(handle));
  return e ? e->info.get() : nullptr;
}

MPI_Info new_info_handle(std::unique_ptr<core::Info> info) {
  std::uint32_t index = infos().insert(std::make_unique<InfoEntry>(InfoEntry{std::move(info)}));
  if (index == ObjectTable<InfoEntry>::kFull) return MPI_INFO_NULL;
  return make_handle(HandleKind::kIndirect, ObjectType::kInfo, index);
}

void free_info_handle(MPI_Info handle) { infos().release(handle_index(handle)); }

std::unique_ptr<core::Info> env_info_copy() { return std::make_unique<core::Info>(*env_info()); }

}  // namespace gpurun::api
