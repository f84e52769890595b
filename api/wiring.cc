#include "api/wiring.h"

#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/cuda_ipc_wiring.h"
#include "api/memory.h"
#include "api/net_wiring.h"
#include "coll/engine.h"
#include "coll/shm/arena.h"
#include "cuda/accelerator.h"
#include "cuda/device.h"
#include "cuda/support.h"
#include "pml/params.h"
#include "runtime/accel/accelerator.h"
#include "runtime/base/log.h"
#include "runtime/progress/progress.h"
#include "runtime/topo/params.h"
#include "runtime/transport/params.h"
#include "runtime/transport/self/self_transport.h"
#include "runtime/transport/shm/params.h"
#include "runtime/transport/shm/shm_transport.h"

namespace gpurun::api {
namespace {

constexpr char kShmAddressKey[] = "gpurun.shm";
// Eager limit on self with no knob, and on shm where a copy pipeline between cores is as fast as
// CMA: messages up to 16K go in one packet through the ring; above that the fragment pipeline
// (copy-in and copy-out at once) is faster than two serial copies.
constexpr std::size_t kShmEagerLimit = 16 * 1024;
// Where CMA wins (topo::HostCopy::kCma), rendezvous by CMA may be faster from 16K: on a 2-core
// Intel Xeon, osu_latency -np 2 16K took 4.4 us in one packet against 2.7 us by CMA, and osu_bibw
// 16K ran at 7.4 against 12.3 GB/s; at 8K an earlier session found one packet's bandwidth better
// (osu_bw 6.5-6.8 against 5.7 GB/s), a later one CMA's in everything (osu_latency 1.22 against
// 2.29 us, osu_bw 11.9 against 7.4 GB/s; 5 interleaved runs each), so the probe decides. On a
// 2-core AMD EPYC whose copy probe also said cma, one packet won at 16K: osu_latency 1.17 against
// 2.85 us, osu_bw 24.5 against 6.4 GB/s. gpurun's copy probe times both at 16K and at 8K and
// says which limit (keys::kShmEager; on the Xeon 4K, runtime/topo/copy_probe.h); where it did
// not, topo::kShmEagerWhereCmaWins.

std::size_t eager_limit_for(const transport::Transport& t, std::size_t auto_limit) {
  auto knob = pml::params::eager_limit().get();
  std::size_t limit = knob ? static_cast<std::size_t>(knob->bytes) : auto_limit;
  return std::min(limit, t.caps().max_packet);
}

// pml::params::stream_eager_limit: where large messages move by CMA, twice the eager limit.
std::size_t stream_eager_limit_for(const transport::shm::ShmTransport& shm, std::size_t eager) {
  auto knob = pml::params::stream_eager_limit().get();
  std::size_t limit = shm.cma_enabled() ? 2 * eager : 0;
  if (knob) limit = static_cast<std::size_t>(knob->bytes);
  return limit > eager ? std::min(limit, shm.caps().max_packet) : 0;
}

int progress_thunk(void* pml) { return static_cast<pml::Pml*>(pml)->progress(); }

// Whether this host runs more ranks than this process may use cores: the launcher says so;
// other launchers are judged from the CPUs this process may run on.
bool oversubscribed(const bootstrap::JobInfo& job) {
  if (job.oversubscribed) return *job.oversubscribed;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
  return job.local_size > CPU_COUNT(&set);
}

Status connect_shm(ProcessState& s, transport::shm::ShmTransport& shm, const CudaIpcWiring& ipc,
                   std::optional<topo::HostCopy> copy, std::vector<bool>& routed) {
  const bootstrap::JobInfo& job = s.bootstrap->job();
  std::size_t auto_limit = kShmEagerLimit;
  if (shm.cma_enabled() && job.shm_eager > 0)
    auto_limit = job.shm_eager;
  else if (copy == topo::HostCopy::kCma)
    auto_limit = topo::kShmEagerWhereCmaWins;
  std::size_t limit = eager_limit_for(shm, auto_limit);
  std::size_t stream_limit = stream_eager_limit_for(shm, limit);
  for (int peer : job.local_ranks) {
    if (peer == job.rank) continue;
    GPURUN_ASSIGN_OR_RETURN(auto address, s.bootstrap->get(peer, kShmAddressKey));
    GPURUN_ASSIGN_OR_RETURN(transport::Endpoint * ep, shm.connect(peer, address));
    s.pml->set_route(peer, ep, limit, "shm");
    s.pml->set_stream_eager_limit(peer, stream_limit);
    // The shared-memory collectives ring it when they post a flag the peer may sleep on.
    coll::shm::set_doorbell(peer, static_cast<transport::shm::ShmEndpoint*>(ep)->peer_doorbell());
    connect_cuda_ipc(s, ipc, peer, ep);
    routed[peer] = true;
    GPURUN_LOG(info, transport,
               "peer %d via shm path host (eager up to %zu bytes, %zu while streaming)", peer,
               limit, std::max(limit, stream_limit));
  }
  return ok_status();
}

// What the pml, MPI_Reduce_local and MPI_Pack/MPI_Unpack do with device buffers
// (MPIX_Query_cuda_path). Collectives are not declared: the query answers them itself, from the
// device algorithms registered in coll (native) or host staging (staged).
void declare_cuda_paths() {
  using cuda::support::Family;
  using cuda::support::Path;
  cuda::support::declare(Family::kPointToPoint, Path::kStaged,
                         "contiguous device data staged through host memory by accelerator "
                         "copies; non-contiguous datatypes in device memory are refused");
  // api/device_local.h: the accelerator's kernels, else host staging.
  Status kernels = cuda::device_work_status();
  if (!kernels.ok()) {
    std::string why = "staged through host memory: " + std::string(kernels.message());
    cuda::support::declare(Family::kReduceLocal, Path::kStaged, why);
    cuda::support::declare(Family::kPack, Path::kStaged, why);
    return;
  }
  cuda::support::declare(Family::kReduceLocal, Path::kNative,
                         "predefined ops reduced by device kernels when both buffers are on "
                         "one device; user ops, types without a device form (long double) and "
                         "host/device mixes staged through host memory");
  cuda::support::declare(Family::kPack, Path::kNative,
                         "device pack kernels when the typed buffer is device memory; a host "
                         "typed buffer with a device packed buffer staged through host memory");
}

// The CUDA accelerator when CUDA is usable (pointers are then classified by the driver), else
// the host-only one stays. A rank works on the GPU gpurun gave it (keys::kGpus), else on the
// device current in its thread, else device 0.
Status install_accelerator(const bootstrap::JobInfo& job) {
  if (std::unique_ptr<accel::Accelerator> cuda =
          cuda::create_accelerator({.assigned_gpus = job.gpus})) {
    accel::install(std::move(cuda));
    declare_cuda_paths();
    return ok_status();
  }
  if (cuda::required())
    return Status(ErrorCode::kUnsupported,
                  "GPURUN_CUDA=on, but CUDA is unusable: " + cuda::unusable_reason());
  return ok_status();
}

// How large messages move faster between the cores of this host, for the collectives' "copy"
// rules (coll/tuning.json) and the shm eager limit: GPURUN_TOPO_COPY, else what gpurun measured and
// told every rank of the host alike (keys::kCopy); with CMA off (GPURUN_SHM_CMA=off) the pml moves
// large messages through the pipeline too. Unknown under other launchers.
std::optional<topo::HostCopy> host_copy(const bootstrap::JobInfo& job) {
  std::optional<topo::HostCopy> copy = topo::params::copy().get();
  if (!copy) copy = topo::parse_host_copy(job.copy);
  if (copy == topo::HostCopy::kCma &&
      transport::shm::params::cma().get() == transport::shm::CmaMode::kOff)
    copy = topo::HostCopy::kPipeline;
  GPURUN_LOG(debug, coll, "copy between cores: %s", topo::host_copy_name(copy).data());
  return copy;
}

}  // namespace

Status wire_up(ProcessState& s) {
  const bootstrap::JobInfo& job = s.bootstrap->job();
  GPURUN_TRY(install_accelerator(job));
  s.pml = std::make_unique<pml::Pml>(job.rank, job.size);
  auto self = std::make_unique<transport::self::SelfTransport>(job.rank, s.pml->handler());
  GPURUN_ASSIGN_OR_RETURN(transport::Endpoint * self_ep, self->connect(job.rank, {}));
  s.pml->set_route(job.rank, self_ep, eager_limit_for(*self, kShmEagerLimit), "self");
  s.pml->add_transport(self.get());
  s.transports.push_back(std::move(self));

  coll::shm::set_job_token(job.job_token);
  std::optional<topo::HostCopy> copy = host_copy(job);
  coll::set_host_copy(copy);
  TransportSelection selection(transport::params::transports().get());
  transport::shm::ShmTransport* shm = nullptr;
  if (job.local_size > 1 && selection.allows("shm")) {
    transport::shm::Config config{job.rank, job.local_ranks, job.job_token};
    if (copy) config.cma_wins = *copy == topo::HostCopy::kCma;
    GPURUN_ASSIGN_OR_RETURN(auto created,
                            transport::shm::ShmTransport::create(config, s.pml->handler()));
    shm = created.get();
    GPURUN_TRY(s.bootstrap->put(kShmAddressKey, shm->address()));
    s.pml->add_transport(shm);
    s.transports.push_back(std::move(created));
  }
  CudaIpcWiring ipc;
  if (shm != nullptr) GPURUN_TRY(start_cuda_ipc(s, selection, shm->caps().max_packet, ipc));
  NetWiring net;
  GPURUN_TRY(start_network(s, selection, shm != nullptr, net));
  if (job.size > 1) GPURUN_TRY(s.bootstrap->fence(/*collect_data=*/true));
  std::vector<bool> routed(static_cast<std::size_t>(job.size), false);
  routed[job.rank] = true;
  if (shm != nullptr) GPURUN_TRY(connect_shm(s, *shm, ipc, copy, routed));
  GPURUN_TRY(connect_network(s, selection, net, routed));

  g_device_memory = accel::current().usable();
  progress::Engine& engine = progress::engine();
  engine.add(progress_thunk, s.pml.get(), "pml");
  engine.configure(oversubscribed(job), shm != nullptr ? shm->doorbell() : nullptr);
  if (shm != nullptr) coll::shm::set_doorbell(job.rank, shm->doorbell());
  return ok_status();
}

void drain(ProcessState& s) {
  if (!s.pml) return;
  // Before this rank leaves, a send whose offer is out (a freed or buffered send that no
  // receive has taken yet) does not hold it: its receiver may take it later or never.
  bool leaving = false;
  auto settled = [&] {
    if (!s.pml->idle() || s.pml->orphans_in_flight(/*offers_too=*/leaving)) return false;
    for (const auto& t : s.transports)
      if (leaving ? !t->quiescent() : !t->only_offers_left()) return false;
    return true;
  };
  progress::engine().wait(settled);
  s.pml->cancel_unmatched_orphans();
  s.pml->leave();  // behind everything this rank sent: see pml/leave.cc
  // Now also the orphan sends whose offer is out: taken by their receiver (which may still be
  // running), or failed once it leaves too.
  leaving = true;
  progress::engine().wait(settled);
  // Over a network, what this rank sent may still be on its way when it is done: it waits
  // until every rank is done too before its connections close.
  if (uses_network(s) && s.bootstrap->job().size > 1) {
    Status st = s.bootstrap->fence(/*collect_data=*/false);
    if (!st.ok()) GPURUN_LOG(warn, transport, "finalize: %s", st.to_string().c_str());
  }
}

void shut_down(ProcessState& s) {
  for (const auto& t : s.transports) t->shut_down();
}

}  // namespace gpurun::api
