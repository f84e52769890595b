// gpurun as a PMIx server (libpmix) for the ranks of one job on this host.
//
// libpmix runs its own progress thread: the module callbacks (abort, fence, client
// connected/finalized) run there and only push RankEvents to the EventQueue, which the main
// loop drains. All public methods are called from the main thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "launcher/events.h"
#include "launcher/mapping.h"
#include "runtime/topo/topology.h"

namespace gpurun::launcher {

// The job as one host's PMIx server registers it: every node and rank (the global map), and
// this node's own keys.
struct JobLayout {
  JobMap map;
  int node = 0;  // this host's node id in `map`
  std::string jobdir;
  std::string token;
  bool oversubscribed = false;
  int cores = 0;  // cores the ranks of this host are placed on (0: not known)
  std::string copy;  // keys::kCopy: "pipeline", "cma", or empty when not known
  std::size_t shm_eager = 0;  // keys::kShmEager; 0: not known
  // The ranks of each program, in rank order (launcher/apps.h); empty: one program of all.
  std::vector<int> app_sizes;
  // Per local rank, in the order of map.nodes[node].ranks (empty, or one entry per local rank;
  // an empty string: none): the keys::kGpus and keys::kNic values of runtime/bootstrap/keys.h.
  std::vector<std::string> rank_gpus;
  std::vector<std::string> rank_nics;
};

class PmixServer {
 public:
  // Starts the server with its rendezvous in `tmpdir` (which must exist and be private),
  // handing libpmix gpurun's topology so that it does not discover its own (a full hwloc
  // discovery with I/O devices is most of PMIx_server_init's time). `topology` must outlive
  // the server. Throws std::runtime_error naming the failing call.
  // `nspace`: the job's namespace (a job across hosts has the same on every host); empty:
  // "gpurun.<pid>". `across_hosts`: fences and direct modex requests go to the main loop.
  PmixServer(const std::string& tmpdir, const topo::Topology& topology, EventQueue& events,
             const std::string& nspace = "", bool across_hosts = false);
  // PMIx_server_finalize, unless abandon() was called.
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Registers the job's namespace (job-level and per-rank keys, see keys.h) and every rank of
  // this host as a client, and waits until libpmix has taken them.
  void register_job(const JobLayout& job);
  // `env` plus the variables rank `rank` needs to connect (PMIX_NAMESPACE, PMIX_RANK, the
  // server URI...), ready to give to execve.
  std::vector<std::string> rank_environment(int rank, const std::vector<std::string>& env);
  // Asks libpmix for the data that local rank `rank` committed (for another host's direct
  // modex); `done` runs on libpmix's thread, once it has the data (it waits for the commit).
  void request_modex(int rank, std::function<void(int status, std::string data)> done);
  const std::string& nspace() const { return nspace_; }
  // After ranks were killed, PMIx 4.2's PMIx_server_finalize sometimes destructs an object it
  // never constructed and crashes (about 1 job in 30 here). The job is over and gpurun is
  // about to _exit, which releases the same resources: skip the finalize then.
  void abandon() { abandoned_ = true; }

 private:
  std::string nspace_;
  bool abandoned_ = false;
};

}  // namespace gpurun::launcher
