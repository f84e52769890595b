// The cuda_ipc transport in the wiring (wiring.cc): a device route to every other rank of this
// host, over the shm endpoint to it. Created only when this build has CUDA, shm is used,
// GPURUN_TRANSPORTS allows cuda_ipc and device memory can exist here (the accelerator is
// usable); otherwise device data to local peers is staged by the pml over shm, as before.
#pragma once

#include "api/net_wiring.h"
#include "api/state.h"
#include "runtime/base/status.h"
#include "runtime/transport/transport.h"

namespace gpurun::api {

struct CudaIpcWiring {
  transport::Transport* transport = nullptr;  // the cuda_ipc transport, when created
};

// Before the fence: creates the transport and publishes its address. A transport that cannot
// be created is logged and left out (device data is then staged); only a failed publication
// is an error.
Status start_cuda_ipc(ProcessState& state, const TransportSelection& selection,
                      std::size_t max_packet, CudaIpcWiring& ipc);

// After the fence, for each local peer once its shm endpoint exists: the device route to it,
// or a log line saying why device data to it is staged.
void connect_cuda_ipc(ProcessState& state, const CudaIpcWiring& ipc, int peer,
                      transport::Endpoint* shm_endpoint);

}  // namespace gpurun::api
