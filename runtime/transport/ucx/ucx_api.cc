#include "runtime/transport/ucx/ucx_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "runtime/transport/ucx/params.h"

namespace gpurun::transport::ucx {
namespace {

UcxApi g_api;
const UcxApi* g_loaded = nullptr;

template <class F>
bool bind(void* library, const char* name, F& out, std::string& missing) {
  out = reinterpret_cast<F>(dlsym(library, name));
  if (out == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
  return out != nullptr;
}

Status load(const std::string& path) {
  // RTLD_LOCAL: UCX's symbols stay out of the application's namespace.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr)
    return Status(ErrorCode::kUnsupported, "cannot load UCX (" + path + "): " + dlerror());
  std::string missing;
  UcxApi& a = g_api;
  bind(library, "ucp_config_read", a.config_read, missing);
  bind(library, "ucp_config_modify", a.config_modify, missing);
  bind(library, "ucp_config_release", a.config_release, missing);
  bind(library, "ucp_init_version", a.init_version, missing);
  bind(library, "ucp_cleanup", a.cleanup, missing);
  bind(library, "ucp_context_query", a.context_query, missing);
  bind(library, "ucp_worker_create", a.worker_create, missing);
  bind(library, "ucp_worker_destroy", a.worker_destroy, missing);
  bind(library, "ucp_worker_query", a.worker_query, missing);
  bind(library, "ucp_worker_set_am_recv_handler", a.worker_set_am_recv_handler, missing);
  bind(library, "ucp_worker_get_address", a.worker_get_address, missing);
  bind(library, "ucp_worker_release_address", a.worker_release_address, missing);
  bind(library, "ucp_worker_progress", a.worker_progress, missing);
  bind(library, "ucp_worker_flush_nbx", a.worker_flush_nbx, missing);
  bind(library, "ucp_dt_create_generic", a.dt_create_generic, missing);
  bind(library, "ucp_dt_destroy", a.dt_destroy, missing);
  bind(library, "ucp_ep_create", a.ep_create, missing);
  bind(library, "ucp_ep_close_nbx", a.ep_close_nbx, missing);
  bind(library, "ucp_am_send_nbx", a.am_send_nbx, missing);
  bind(library, "ucp_am_recv_data_nbx", a.am_recv_data_nbx, missing);
  bind(library, "ucp_am_data_release", a.am_data_release, missing);
  bind(library, "ucp_tag_send_nbx", a.tag_send_nbx, missing);
  bind(library, "ucp_tag_recv_nbx", a.tag_recv_nbx, missing);
  bind(library, "ucp_tag_probe_nb", a.tag_probe_nb, missing);
  bind(library, "ucp_tag_msg_recv_nbx", a.tag_msg_recv_nbx, missing);
  bind(library, "ucp_request_cancel", a.request_cancel, missing);
  bind(library, "ucp_request_free", a.request_free, missing);
  bind(library, "ucp_request_check_status", a.request_check_status, missing);
  bind(library, "ucs_status_string", a.status_string, missing);
  if (!missing.empty())  // an older UCX than the one gpurun was built with (1.13 API)
    return Status(ErrorCode::kUnsupported, path + " lacks " + missing + " (UCX 1.13 or newer)");
  g_loaded = &g_api;
  return ok_status();
}

}  // namespace

Result<const UcxApi*> load_api() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] { status = load(params::library().get()); });
  if (!status.ok()) return status;
  return g_loaded;
}

const UcxApi& api() { return *g_loaded; }

}  // namespace gpurun::transport::ucx
