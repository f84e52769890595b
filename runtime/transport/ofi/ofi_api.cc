#include "runtime/transport/ofi/ofi_api.h"

#include <dlfcn.h>
#include <sched.h>

#include <mutex>
#include <string>

#include "runtime/transport/ofi/params.h"

namespace gpurun::transport::ofi {
namespace {

OfiApi g_api;
const OfiApi* g_loaded = nullptr;

template <class F>
void bind(void* library, const char* name, F& out, std::string& missing) {
  out = reinterpret_cast<F>(dlsym(library, name));
  if (out == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

Status load(const std::string& path) {
  // Provider libraries may move the process between CPUs while they load: keep the binding
  // the launcher gave it.
  cpu_set_t cpus;
  bool bound = sched_getaffinity(0, sizeof cpus, &cpus) == 0;
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (bound) sched_setaffinity(0, sizeof cpus, &cpus);
  if (library == nullptr)
    return Status(ErrorCode::kUnsupported, "cannot load libfabric (" + path + "): " + dlerror());
  std::string missing;
  bind(library, "fi_getinfo", g_api.getinfo, missing);
  bind(library, "fi_freeinfo", g_api.freeinfo, missing);
  bind(library, "fi_dupinfo", g_api.dupinfo, missing);
  bind(library, "fi_fabric", g_api.fabric, missing);
  bind(library, "fi_strerror", g_api.strerror, missing);
  if (!missing.empty()) return Status(ErrorCode::kUnsupported, path + " lacks " + missing);
  g_loaded = &g_api;
  return ok_status();
}

}  // namespace

Result<const OfiApi*> load_api() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] { status = load(params::library().get()); });
  if (!status.ok()) return status;
  return g_loaded;
}

const OfiApi& api() { return *g_loaded; }

}  // namespace gpurun::transport::ofi
