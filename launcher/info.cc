#include "launcher/info.h"

#include <dlfcn.h>
#include <hwloc.h>
#include <pmix.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>

#include "gpurun/build_config.h"
#include "launcher/environment.h"
#include "runtime/base/param.h"

namespace gpurun::launcher {
namespace {

using InfoFn = char* (*)(const char*);

// libmpi.so.12 beside gpurun (launcher/environment.h, library_dir).
std::string library_path() {
  std::string dir = library_dir();
  return dir.empty() ? "libmpi.so.12" : dir + "/libmpi.so.12";
}

// The library's gpurun_info(), or nullptr with the reason in `error`. The library stays
// loaded until gpurun exits.
InfoFn load_library_info(std::string& error) {
  std::string path = library_path();
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    error = "cannot load " + path + ": " + (reason ? reason : "unknown error");
    return nullptr;
  }
  auto fn = reinterpret_cast<InfoFn>(dlsym(handle, "gpurun_info"));
  if (fn == nullptr) error = path + " has no gpurun_info()";
  return fn;
}

// Calls gpurun_info(topic); nullopt for an unknown topic.
std::optional<std::string> library_info(InfoFn fn, const char* topic) {
  char* text = fn(topic);
  if (text == nullptr) return std::nullopt;
  std::string out(text);
  std::free(text);
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// The launcher's own knobs, less those the library lists too (the shared base knobs).
std::vector<param::ParamBase*> launcher_only(const std::vector<std::string>& library_names) {
  std::vector<param::ParamBase*> out;
  for (param::ParamBase* p : param::all()) {
    bool shared = false;
    for (const std::string& name : library_names) shared |= (p->name() == name);
    if (!shared) out.push_back(p);
  }
  return out;
}

// What api/info_hook.cc answers for this build, when the library cannot be asked.
std::vector<topo::TransportInfo> configured_transports() {
  using topo::Reach;
  std::vector<topo::TransportInfo> out = {
      {.name = "self", .reach = Reach::kSelf, .host_memory = true, .device_memory = true},
      {.name = "shm", .reach = Reach::kHost, .host_memory = true}};
  if (GPURUN_HAVE_CUDA)
    out.push_back(
        {.name = "cuda_ipc", .reach = Reach::kHost, .host_memory = false, .device_memory = true});
  if (GPURUN_HAVE_UCX)
    out.push_back(
        {.name = "ucx", .reach = Reach::kNetwork, .host_memory = true, .device_memory = true});
  if (GPURUN_HAVE_OFI)
    out.push_back(
        {.name = "ofi", .reach = Reach::kNetwork, .host_memory = true, .device_memory = true});
  return out;
}

}  // namespace

std::vector<topo::TransportInfo> build_transports(std::string& source) {
  std::string error;
  if (InfoFn fn = load_library_info(error)) {
    if (std::optional<std::string> text = library_info(fn, "transports")) {
      auto parsed = topo::parse_transports(*text);
      if (parsed.ok()) {
        source = library_path();
        return *parsed;
      }
      error = "its transport list is unreadable: " + parsed.status().to_string();
    } else {
      error = library_path() + " does not list its transports";
    }
  }
  source = "the build configuration (" + error + ")";
  return configured_transports();
}

std::string version_text() {
  return std::string("gpurun ") + GPURUN_VERSION + " (PMIx " + PMIx_Get_version() + ", hwloc " +
         HWLOC_VERSION + ")\n";
}

int print_info(const std::string& topic) {
  std::string error;
  InfoFn fn = load_library_info(error);
  if (topic == "params") {
    std::vector<std::string> library_names;
    std::optional<std::string> library_table;
    if (fn != nullptr) {
      library_names = split_lines(library_info(fn, "param-names").value_or(""));
      library_table = library_info(fn, "params");
    }
    std::printf("launcher knobs:\n%s", param::format_table(launcher_only(library_names)).c_str());
    if (library_table) {
      std::printf("\nlibrary knobs:\n%s", library_table->c_str());
    } else {
      std::fprintf(stderr, "gpurun: %s; showing the launcher's knobs only\n",
                   error.empty() ? "the library lists no knobs" : error.c_str());
    }
    return 0;
  }
  if (fn == nullptr) {
    std::fprintf(stderr, "gpurun: --info %s needs the library: %s\n", topic.c_str(), error.c_str());
    return 2;
  }
  std::optional<std::string> text = library_info(fn, topic.c_str());
  if (!text) {
    std::fprintf(stderr, "gpurun: unknown --info topic '%s' (try: params)\n", topic.c_str());
    return 2;
  }
  std::printf("%s", text->c_str());
  return 0;
}

void warn_unknown_knobs() {
  if (param::unknown_env_knobs().empty()) return;  // no need to load the library
  std::string error;
  std::vector<std::string> library_names;
  if (InfoFn fn = load_library_info(error))
    library_names = split_lines(library_info(fn, "param-names").value_or(""));
  for (const std::string& unknown : param::unknown_env_knobs(library_names))
    std::fprintf(stderr, "gpurun: warning: %s in the environment is not a gpurun knob\n",
                 unknown.c_str());
}

}  // namespace gpurun::launcher
