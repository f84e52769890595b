#include "launcher/pmix_callbacks.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace gpurun::launcher {
namespace {

std::atomic<EventQueue*> g_events{nullptr};

void post(RankEvent event) {
  if (EventQueue* events = g_events.load()) events->push(std::move(event));
}

pmix_status_t on_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  post({.kind = RankEvent::Kind::kConnected, .rank = static_cast<int>(proc->rank)});
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t on_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  post({.kind = RankEvent::Kind::kFinalized, .rank = static_cast<int>(proc->rank)});
  return PMIX_OPERATION_SUCCEEDED;
}

// The event is queued before libpmix answers the rank, so it is always seen before the
// rank's exit (which follows the answer): the report says MPI_Abort, not "exit code".
pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char message[],
                       pmix_proc_t[], size_t, pmix_op_cbfunc_t, void*) {
  post({.kind = RankEvent::Kind::kAbort,
        .rank = static_cast<int>(proc->rank),
        .code = status,
        .message = message != nullptr ? message : ""});
  return PMIX_OPERATION_SUCCEEDED;
}

void release_copy(void* cbdata) { std::free(cbdata); }

// One host: libpmix has already gathered every participant's contribution, so the collective
// is complete; hand the data back (libpmix expects a buffer it may release through the
// callback, hence the copy).
pmix_status_t on_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char* data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  char* copy = nullptr;
  if (ndata > 0) {
    copy = static_cast<char*>(std::malloc(ndata));
    if (copy == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(copy, data, ndata);
  }
  cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
  return PMIX_SUCCESS;
}

// Every rank of a one-host job is local: libpmix answers from its own store, so a request
// that reaches the host is for data that does not exist.
pmix_status_t on_direct_modex(const pmix_proc_t*, const pmix_info_t[], size_t, pmix_modex_cbfunc_t,
                              void*) {
  return PMIX_ERR_NOT_FOUND;
}

}  // namespace

void install_callbacks_target(EventQueue* events) { g_events.store(events); }

pmix_server_module_t server_module() {
  pmix_server_module_t module;
  std::memset(&module, 0, sizeof module);
  module.client_connected = on_connected;
  module.client_finalized = on_finalized;
  module.abort = on_abort;
  module.fence_nb = on_fence;
  module.direct_modex = on_direct_modex;
  return module;
}

}  // namespace gpurun::launcher
