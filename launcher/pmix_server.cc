#include "launcher/pmix_server.h"

#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "launcher/pmix_callbacks.h"
#include "launcher/pmix_info.h"

namespace gpurun::launcher {
namespace {

// Waits for `count` libpmix completion callbacks and keeps the first error.
class Latch {
 public:
  explicit Latch(int count) : count_(count) {}
  static void done(pmix_status_t status, void* cbdata) {
    auto* self = static_cast<Latch*>(cbdata);
    std::lock_guard lock(self->mutex_);
    if (status != PMIX_SUCCESS && self->status_ == PMIX_SUCCESS) self->status_ = status;
    if (--self->count_ == 0) self->cv_.notify_all();
  }
  // Accounts for a call that completed (or failed) without calling back.
  void immediate(pmix_status_t status) {
    done(status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : status, this);
  }
  pmix_status_t wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return count_ == 0; });
    return status_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_;
  pmix_status_t status_ = PMIX_SUCCESS;
};

void check(pmix_status_t status, const char* what) {
  if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED)
    throw std::runtime_error(std::string(what) + ": " + PMIx_Error_string(status));
}

}  // namespace

PmixServer::PmixServer(const std::string& tmpdir, const topo::Topology& topology,
                       EventQueue& events, const std::string& nspace, bool across_hosts)
    : nspace_(nspace.empty() ? "gpurun." + std::to_string(getpid()) : nspace) {
  install_callbacks_target(&events, across_hosts);
  pmix_server_module_t module = server_module();
  InfoList info;
  info.add_string(PMIX_SERVER_TMPDIR, tmpdir);
  info.add_string(PMIX_SYSTEM_TMPDIR, tmpdir);
  info.add_bool(PMIX_SERVER_TOOL_SUPPORT, false);
  info.add_bool(PMIX_SERVER_SYSTEM_SUPPORT, false);
  // Ranks that want the topology load it themselves; sharing it costs a shared-memory
  // segment per job that nobody reads.
  info.add_bool(PMIX_SERVER_SHARE_TOPOLOGY, false);
  pmix_topology_t topo{.source = const_cast<char*>("hwloc"), .topology = topology.hwloc_handle()};
  info.add_topology(PMIX_TOPOLOGY2, &topo);
  check(PMIx_server_init(&module, info.data(), info.size()), "PMIx_server_init");
}

PmixServer::~PmixServer() {
  install_callbacks_target(nullptr);
  if (!abandoned_) PMIx_server_finalize();
}

void PmixServer::register_job(const JobLayout& job) {
  pmix_nspace_t nspace;
  PMIX_LOAD_NSPACE(nspace, nspace_.c_str());
  InfoList info = job_info(nspace_, job);
  const std::vector<int>& local = job.map.nodes[static_cast<std::size_t>(job.node)].ranks;
  auto nlocal = static_cast<int>(local.size());
  Latch registered(1);
  pmix_status_t rc = PMIx_server_register_nspace(nspace, nlocal, info.data(), info.size(),
                                                 Latch::done, &registered);
  if (rc != PMIX_SUCCESS) registered.immediate(rc);
  check(registered.wait(), "PMIx_server_register_nspace");
  Latch clients(nlocal);
  for (int rank : local) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace, static_cast<pmix_rank_t>(rank));
    pmix_status_t rc =
        PMIx_server_register_client(&proc, getuid(), getgid(), nullptr, Latch::done, &clients);
    if (rc != PMIX_SUCCESS) clients.immediate(rc);
  }
  check(clients.wait(), "PMIx_server_register_client");
}

std::vector<std::string> PmixServer::rank_environment(int rank,
                                                      const std::vector<std::string>& env) {
  // libpmix appends to a malloc'd, NULL-terminated array (it may realloc it).
  auto** array = static_cast<char**>(std::calloc(env.size() + 1, sizeof(char*)));
  for (std::size_t i = 0; i < env.size(); ++i) array[i] = strdup(env[i].c_str());
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), static_cast<pmix_rank_t>(rank));
  pmix_status_t rc = PMIx_server_setup_fork(&proc, &array);
  std::vector<std::string> out;
  for (char** e = array; *e != nullptr; ++e) {
    out.emplace_back(*e);
    std::free(*e);
  }
  std::free(array);
  check(rc, "PMIx_server_setup_fork");
  return out;
}

namespace {

struct ModexRequest {
  std::function<void(int, std::string)> done;
};

// libpmix keeps `data`: it is copied before this returns.
void modex_served(pmix_status_t status, char* data, size_t ndata, void* cbdata) {
  std::unique_ptr<ModexRequest> request(static_cast<ModexRequest*>(cbdata));
  std::string blob(data != nullptr ? data : "", data != nullptr ? ndata : 0);
  request->done(status, std::move(blob));
}

}  // namespace

void PmixServer::request_modex(int rank, std::function<void(int, std::string)> done) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), static_cast<pmix_rank_t>(rank));
  auto* request = new ModexRequest{std::move(done)};
  pmix_status_t rc = PMIx_server_dmodex_request(&proc, modex_served, request);
  if (rc != PMIX_SUCCESS) {
    std::unique_ptr<ModexRequest> failed(request);
    failed->done(rc, "");
  }
}

}  // namespace gpurun::launcher
