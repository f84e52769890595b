#include "api/cuda_ipc_wiring.h"

#include "gpurun/build_config.h"
#include "runtime/accel/accelerator.h"
#include "runtime/base/log.h"

#if GPURUN_HAVE_CUDA
#include "cuda/ipc/cuda_ipc_transport.h"
#endif

namespace gpurun::api {

#if GPURUN_HAVE_CUDA

namespace {

constexpr char kCudaIpcAddressKey[] = "gpurun.cuda_ipc";

}  // namespace

Status start_cuda_ipc(ProcessState& s, const TransportSelection& selection, std::size_t max_packet,
                      CudaIpcWiring& ipc) {
  if (!selection.allows("cuda_ipc") || !accel::current().usable()) return ok_status();
  const bootstrap::JobInfo& job = s.bootstrap->job();
  cuda::ipc::Config config{job.rank, job.local_ranks, job.job_token, job.job_dir, max_packet};
  auto created = cuda::ipc::CudaIpcTransport::create(config);
  if (!created.ok()) {
    GPURUN_LOG(warn, transport, "cuda_ipc not used, device data to local peers is staged: %s",
               created.status().to_string().c_str());
    return ok_status();
  }
  GPURUN_TRY(s.bootstrap->put(kCudaIpcAddressKey, created.value()->address()));
  ipc.transport = created.value().get();
  s.pml->add_transport(ipc.transport);
  s.transports.push_back(std::move(created).value());
  return ok_status();
}

void connect_cuda_ipc(ProcessState& s, const CudaIpcWiring& ipc, int peer,
                      transport::Endpoint* shm_endpoint) {
  if (ipc.transport == nullptr) return;
  auto* t = static_cast<cuda::ipc::CudaIpcTransport*>(ipc.transport);
  Result<transport::Endpoint*> ep = [&]() -> Result<transport::Endpoint*> {
    GPURUN_ASSIGN_OR_RETURN(auto address, s.bootstrap->get(peer, kCudaIpcAddressKey));
    return t->connect(peer, address, shm_endpoint);
  }();
  if (!ep.ok()) {
    GPURUN_LOG(info, transport, "peer %d: device data staged through shm (no cuda_ipc: %s)", peer,
               ep.status().to_string().c_str());
    return;
  }
  s.pml->set_device_route(peer, ep.value(), "cuda_ipc");
  GPURUN_LOG(info, transport, "peer %d: device memory via cuda_ipc", peer);
}

#else  // no CUDA in this build: device memory cannot exist, nothing to wire.

Status start_cuda_ipc(ProcessState&, const TransportSelection&, std::size_t, CudaIpcWiring&) {
  return ok_status();
}

void connect_cuda_ipc(ProcessState&, const CudaIpcWiring&, int, transport::Endpoint*) {}

#endif

}  // namespace gpurun::api
