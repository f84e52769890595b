// The PMIx client bootstrap: used under gpurun, Slurm (srun --mpi=pmix) or any PMIx server.
#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/base/log.h"
#include "runtime/base/param.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/keys.h"

namespace gpurun::bootstrap {
namespace {

Status pmix_error(std::string_view what, pmix_status_t rc) {
  return Status(ErrorCode::kIo, std::string(what) + ": " + PMIx_Error_string(rc));
}

std::optional<std::int64_t> integer_of(const pmix_value_t& v) {
  switch (v.type) {
    case PMIX_UINT32: return v.data.uint32;
    case PMIX_UINT16: return v.data.uint16;
    case PMIX_UINT8: return v.data.uint8;
    case PMIX_UINT64: return static_cast<std::int64_t>(v.data.uint64);
    case PMIX_INT: return v.data.integer;
    case PMIX_INT32: return v.data.int32;
    case PMIX_INT16: return v.data.int16;
    case PMIX_INT64: return v.data.int64;
    case PMIX_PROC_RANK: return v.data.rank;
    case PMIX_SIZE: return static_cast<std::int64_t>(v.data.size);
    default: return std::nullopt;
  }
}

// FNV-1a: a stable short name for segments when the launcher gave no token.
std::string hash_hex(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<int> parse_rank_list(const char* text) {
  std::vector<int> ranks;
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    long r = std::strtol(p, &end, 10);
    if (end == p) break;
    ranks.push_back(static_cast<int>(r));
    p = (*end == ',') ? end + 1 : end;
  }
  return ranks;
}

class PmixClient final : public Bootstrap {
 public:
  Status init();
  Status put(std::string_view key, std::span<const std::byte> value) override;
  Status fence(bool collect_data) override;
  Result<std::vector<std::byte>> get(int rank, std::string_view key) override;
  void abort(int code, std::string_view message) override;
  Status finalize() override;
  ~PmixClient() override {
    if (initialized_) (void)finalize();
  }

 private:
  // Reads a key held locally (job or own-process data); never asks the server.
  pmix_value_t* lookup(const pmix_proc_t& proc, const char* key);
  std::optional<std::int64_t> lookup_int(const pmix_proc_t& proc, const char* key);
  std::optional<std::string> lookup_string(const pmix_proc_t& proc, const char* key);
  void read_job_info();
  void read_node_ids();

  pmix_proc_t me_{};
  pmix_proc_t wildcard_{};
  bool initialized_ = false;
};

Status PmixClient::init() {
  pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
  if (rc != PMIX_SUCCESS) return pmix_error("cannot connect to the PMIx server", rc);
  initialized_ = true;
  PMIX_LOAD_PROCID(&wildcard_, me_.nspace, PMIX_RANK_WILDCARD);
  read_job_info();
  return ok_status();
}

pmix_value_t* PmixClient::lookup(const pmix_proc_t& proc, const char* key) {
  pmix_info_t optional;
  bool yes = true;
  PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, &yes, PMIX_BOOL);
  pmix_value_t* value = nullptr;
  pmix_status_t rc = PMIx_Get(&proc, key, &optional, 1, &value);
  PMIX_INFO_DESTRUCT(&optional);
  return rc == PMIX_SUCCESS ? value : nullptr;
}

std::optional<std::int64_t> PmixClient::lookup_int(const pmix_proc_t& proc, const char* key) {
  pmix_value_t* value = lookup(proc, key);
  if (value == nullptr) return std::nullopt;
  auto out = integer_of(*value);
  PMIX_VALUE_RELEASE(value);
  return out;
}

std::optional<std::string> PmixClient::lookup_string(const pmix_proc_t& proc, const char* key) {
  pmix_value_t* value = lookup(proc, key);
  if (value == nullptr) return std::nullopt;
  std::optional<std::string> out;
  if (value->type == PMIX_STRING && value->data.string != nullptr) out = value->data.string;
  PMIX_VALUE_RELEASE(value);
  return out;
}

void PmixClient::read_job_info() {
  job_.rank = static_cast<int>(me_.rank);
  job_.nspace = me_.nspace;
  job_.size = static_cast<int>(lookup_int(wildcard_, PMIX_JOB_SIZE).value_or(1));
  job_.universe_size =
      static_cast<int>(lookup_int(wildcard_, PMIX_UNIV_SIZE).value_or(job_.size));
  job_.num_nodes = static_cast<int>(lookup_int(wildcard_, PMIX_NUM_NODES).value_or(1));
  // Per process: the program of a job of several (launcher/apps.h); the job's as a fallback.
  job_.appnum = static_cast<int>(
      lookup_int(me_, PMIX_APPNUM).value_or(lookup_int(wildcard_, PMIX_APPNUM).value_or(0)));
  job_.local_rank = static_cast<int>(lookup_int(me_, PMIX_LOCAL_RANK).value_or(0));
  job_.node_id = static_cast<int>(lookup_int(me_, PMIX_NODEID).value_or(0));
  if (auto peers = lookup_string(wildcard_, PMIX_LOCAL_PEERS)) {
    job_.local_ranks = parse_rank_list(peers->c_str());
  }
  if (job_.local_ranks.empty()) job_.local_ranks = {job_.rank};
  job_.local_size = static_cast<int>(
      lookup_int(wildcard_, PMIX_LOCAL_SIZE).value_or(static_cast<int>(job_.local_ranks.size())));
  // After the local peers: libpmix's PMIx_Resolve_peers of a node named as this process's
  // system host name replaces the job's local peers by that node's ranks, which are another
  // host's where hosts share one system name (containers or namespaces of one machine, as the
  // test hosts are, beside the machine's own name for gpurun's host).
  read_node_ids();
  job_.host = lookup_string(me_, PMIX_HOSTNAME).value_or("");
  if (job_.host.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    job_.host = host;
  }
  pmix_proc_t first;
  PMIX_LOAD_PROCID(&first, me_.nspace, 0);
  job_.leader_host = job_.rank == 0 ? job_.host : lookup_string(first, PMIX_HOSTNAME).value_or("");
  auto job_dir = lookup_string(wildcard_, keys::kJobDir);
  job_.launcher = job_dir ? Launcher::kGpurun : Launcher::kOtherPmix;
  job_.job_dir = job_dir.value_or("");
  job_.job_token = lookup_string(wildcard_, keys::kJobToken)
                       .value_or(hash_hex(job_.nspace + "/" + std::to_string(job_.node_id)));
  job_.gpus = lookup_string(me_, keys::kGpus).value_or("");
  job_.copy = lookup_string(wildcard_, keys::kCopy).value_or("");
  job_.shm_eager = static_cast<std::size_t>(lookup_int(wildcard_, keys::kShmEager).value_or(0));
  if (pmix_value_t* v = lookup(wildcard_, keys::kOversubscribed)) {
    if (v->type == PMIX_BOOL) job_.oversubscribed = v->data.flag;
    PMIX_VALUE_RELEASE(v);
  }
  if (pmix_value_t* v = lookup(wildcard_, keys::kCores)) {
    if (v->type == PMIX_UINT32) job_.cores = static_cast<int>(v->data.uint32);
    PMIX_VALUE_RELEASE(v);
  }
}

// Which node each rank runs on, for the hierarchical collectives: the job's nodes
// (PMIx_Resolve_nodes) and the ranks on each (PMIx_Resolve_peers), from the node and process
// maps of the job data; a rank's id is its node's place in the list, the same on every rank.
// All or nothing.
void PmixClient::read_node_ids() {
  if (job_.num_nodes <= 1) return;
  char* names = nullptr;
  if (PMIx_Resolve_nodes(me_.nspace, &names) != PMIX_SUCCESS || names == nullptr) return;
  std::string list(names);
  std::free(names);
  std::vector<int> ids(static_cast<std::size_t>(job_.size), -1);
  int node = 0;
  for (std::size_t at = 0; at <= list.size(); ++node) {
    std::size_t end = std::min(list.find(',', at), list.size());
    std::string name = list.substr(at, end - at);
    at = end + 1;
    pmix_proc_t* procs = nullptr;
    std::size_t n = 0;
    if (PMIx_Resolve_peers(name.c_str(), me_.nspace, &procs, &n) != PMIX_SUCCESS) return;
    for (std::size_t i = 0; i < n; ++i)
      if (procs[i].rank < static_cast<pmix_rank_t>(job_.size)) ids[procs[i].rank] = node;
    if (procs != nullptr) PMIX_PROC_FREE(procs, n);
  }
  if (std::find(ids.begin(), ids.end(), -1) != ids.end()) return;
  job_.node_ids = std::move(ids);
}

Status PmixClient::put(std::string_view key, std::span<const std::byte> value) {
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  // PMIx copies the value; it does not keep our pointer.
  v.data.bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(value.data()));
  v.data.bo.size = value.size();
  std::string k(key);
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v);
  if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Put " + k, rc);
  return ok_status();
}

Status PmixClient::fence(bool collect_data) {
  if (collect_data) {
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Commit", rc);
  }
  pmix_info_t info;
  bool yes = true;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(&wildcard_, 1, collect_data ? &info : nullptr,
                                collect_data ? 1 : 0);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Fence", rc);
  return ok_status();
}

Result<std::vector<std::byte>> PmixClient::get(int rank, std::string_view key) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, me_.nspace, static_cast<pmix_rank_t>(rank));
  std::string k(key);
  pmix_value_t* value = nullptr;
  pmix_status_t rc = PMIx_Get(&proc, k.c_str(), nullptr, 0, &value);
  if (rc != PMIX_SUCCESS) {
    return Status(ErrorCode::kNotFound, "PMIx_Get " + k + " of rank " + std::to_string(rank) +
                                            ": " + PMIx_Error_string(rc));
  }
  std::vector<std::byte> out;
  if (value->type == PMIX_BYTE_OBJECT) {
    auto* bytes = reinterpret_cast<const std::byte*>(value->data.bo.bytes);
    out.assign(bytes, bytes + value->data.bo.size);
  }
  PMIX_VALUE_RELEASE(value);
  return out;
}

void PmixClient::abort(int code, std::string_view message) {
  std::string msg(message);
  pmix_status_t rc = PMIx_Abort(code, msg.c_str(), nullptr, 0);
  if (rc != PMIX_SUCCESS) GPURUN_LOG(warn, init, "PMIx_Abort: %s", PMIx_Error_string(rc));
}

Status PmixClient::finalize() {
  if (!initialized_) return ok_status();
  initialized_ = false;
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Finalize", rc);
  return ok_status();
}

}  // namespace

namespace {

// Why a process without PMIx must not run alone: a launcher started it as one of several
// ranks, which alone would each give wrong answers. "" when nothing says so.
std::string started_without_pmix() {
  // A launcher that speaks PMI-1 or PMI-2 only (MPICH's mpiexec.hydra, srun --mpi=pmi2).
  auto size = param::external_env("PMI_SIZE");
  if (size && !size->empty() && *size != "1") {
    return "this process was started as one of " + *size +
           " by a launcher that speaks PMI-1 or PMI-2 (PMI_SIZE is set: MPICH's mpiexec.hydra, "
           "srun --mpi=pmi2), and gpurun's library speaks PMIx only; start the job with gpurun "
           "(or with a PMIx launcher: srun --mpi=pmix, Open MPI's mpirun)";
  }
  // srun without an MPI plugin (--mpi=none, or a cluster whose MpiDefault is none).
  auto tasks = param::external_env("SLURM_STEP_NUM_TASKS");
  if (tasks && !tasks->empty() && *tasks != "1" && param::external_env("SLURM_PROCID")) {
    return "this process was started by srun as one of " + *tasks +
           " tasks without PMIx; start the job with srun --mpi=pmix (or with gpurun)";
  }
  return "";
}

}  // namespace

Result<std::unique_ptr<Bootstrap>> create() {
  if (!param::external_env("PMIX_NAMESPACE")) {
    if (std::string why = started_without_pmix(); !why.empty())
      return Status(ErrorCode::kUnsupported, std::move(why));
    return create_singleton();
  }
  auto client = std::make_unique<PmixClient>();
  GPURUN_TRY(client->init());
  return std::unique_ptr<Bootstrap>(std::move(client));
}

}  // namespace gpurun::bootstrap
