// Bootstrap: who am I in the job, who shares my host, and a key exchange with fences.
//
// Started by gpurun, Slurm or any PMIx server, a rank is a PMIx client; run alone it is a
// singleton of size 1 and nothing is exchanged. The data path never goes through here: it
// is used at start-up (endpoint exchange), for rare collective agreement and at the end.
//
// Thread-safety: put/fence/get may be called from any thread, but not concurrently with
// finalize(). fence() blocks until every rank of the job has entered it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::bootstrap {

enum class Launcher : std::uint8_t { kSingleton, kGpurun, kOtherPmix };

struct JobInfo {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::vector<int> local_ranks{0};  // job ranks on this host, ascending
  int node_id = 0;
  int num_nodes = 1;
  // node_id of every job rank (index: job rank) when the job spans several nodes and the
  // launcher gave each rank's PMIX_NODEID; empty otherwise.
  std::vector<int> node_ids;
  int universe_size = 1;
  int appnum = 0;
  std::string host;        // this host's name as the launcher knows it
  std::string leader_host;  // rank 0's host, when the launcher said; else empty
  std::string nspace;      // job identity ("singleton" alone)
  std::string job_dir;     // private per-job directory, empty when the launcher gave none
  std::string job_token;   // names the job's shared-memory segments; never empty
  std::optional<bool> oversubscribed;  // unset when the launcher did not say
  std::optional<int> cores;            // this host's cores the launcher may use (keys::kCores)
  std::string gpus;  // PCI bus ids of the GPUs gpurun gave this rank (keys::kGpus), or empty
  std::string copy;  // keys::kCopy: "pipeline", "cma", or empty when the launcher did not say
  std::size_t shm_eager = 0;  // keys::kShmEager: the shm eager limit gpurun measured; 0: none
  Launcher launcher = Launcher::kSingleton;
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  const JobInfo& job() const { return job_; }

  // Publishes `value` under `key` for the other ranks; visible to them after the next
  // fence(true) that this rank enters.
  virtual Status put(std::string_view key, std::span<const std::byte> value) = 0;
  // Blocks until every rank entered the fence; with collect_data, the values put before it
  // become readable with get().
  virtual Status fence(bool collect_data) = 0;
  // The value that `rank` put under `key`.
  virtual Result<std::vector<std::byte>> get(int rank, std::string_view key) = 0;
  // Asks the launcher to end the whole job, reporting `code` and `message`. Returns once the
  // request is delivered (or failed); the caller then exits.
  virtual void abort(int code, std::string_view message) = 0;
  virtual Status finalize() = 0;

 protected:
  JobInfo job_;
};

// Connects to the PMIx server when the process was started by one, else a singleton.
Result<std::unique_ptr<Bootstrap>> create();

// A singleton: rank 0 of 1, keys stay local.
std::unique_ptr<Bootstrap> create_singleton();

}  // namespace gpurun::bootstrap
