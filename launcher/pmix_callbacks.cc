#include "launcher/pmix_callbacks.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace gpurun::launcher {
namespace {

std::atomic<EventQueue*> g_events{nullptr};
std::atomic<bool> g_across_hosts{false};

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

// Hands `data` to a PMIx modex callback (libpmix expects a buffer it may release through the
// callback, hence the copy).
void reply_modex(pmix_modex_cbfunc_t cbfunc, void* cbdata, pmix_status_t status,
                 const std::string& data) {
  char* copy = nullptr;
  if (!data.empty()) {
    copy = static_cast<char*>(std::malloc(data.size()));
    if (copy == nullptr) status = PMIX_ERR_NOMEM;
    if (copy != nullptr) std::memcpy(copy, data.data(), data.size());
  }
  cbfunc(status, copy, copy != nullptr ? data.size() : 0, cbdata, release_copy, copy);
}

// The participants of a fence as ranks (-1 for all), and how many fences with the same
// participants this host has seen before: every host sees a given set's fences in the same
// order, so (participants, sequence) names the fence job-wide. Called on libpmix's thread only.
std::uint32_t next_sequence(const std::vector<int>& participants) {
  static std::mutex mutex;
  static std::map<std::vector<int>, std::uint32_t> seen;
  std::lock_guard lock(mutex);
  return seen[participants]++;
}

// One host: libpmix has already gathered every participant's contribution, so the collective
// is complete; hand the data back. Across hosts, the main loop gathers the other hosts' data.
pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                       char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  std::string blob(data != nullptr ? data : "", data != nullptr ? ndata : 0);
  if (!g_across_hosts.load()) {
    reply_modex(cbfunc, cbdata, PMIX_SUCCESS, blob);
    return PMIX_SUCCESS;
  }
  std::vector<int> participants;
  for (size_t i = 0; i < nprocs; ++i)
    participants.push_back(procs[i].rank == PMIX_RANK_WILDCARD ? -1
                                                               : static_cast<int>(procs[i].rank));
  std::sort(participants.begin(), participants.end());
  std::uint32_t sequence = next_sequence(participants);
  post({.kind = RankEvent::Kind::kFence,
        .participants = std::move(participants),
        .sequence = sequence,
        .data = std::move(blob),
        .reply = [cbfunc, cbdata](int status, std::string all) {
          reply_modex(cbfunc, cbdata, status, all);
        }});
  return PMIX_SUCCESS;
}

// One host: every rank is local and libpmix answers from its own store, so a request that
// reaches the host is for data that does not exist. Across hosts: the main loop asks the host
// of the rank.
pmix_status_t on_direct_modex(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                              pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  if (!g_across_hosts.load()) return PMIX_ERR_NOT_FOUND;
  post({.kind = RankEvent::Kind::kModexAsk,
        .rank = static_cast<int>(proc->rank),
        .reply = [cbfunc, cbdata](int status, std::string all) {
          reply_modex(cbfunc, cbdata, status, all);
        }});
  return PMIX_SUCCESS;
}

}  // namespace

void install_callbacks_target(EventQueue* events, bool across_hosts) {
  g_across_hosts.store(across_hosts);
  g_events.store(events);
}

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
