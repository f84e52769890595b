// Knobs of the ucx transport (GPURUN_UCX_*). UCX's own variables (UCX_TLS, UCX_NET_DEVICES,
// UCX_RNDV_THRESH, ...) apply too, read by UCX itself as usual.
#pragma once

#include <optional>
#include <string>

#include "runtime/base/param.h"

namespace gpurun::transport::ucx::params {

const param::Param<param::Size>& max_packet();  // GPURUN_UCX_MAX_PACKET
const param::Param<int>& send_queue();          // GPURUN_UCX_SEND_QUEUE
const param::Param<param::Size>& piece_size();  // GPURUN_UCX_PIECE_SIZE
const param::Param<int>& piece_window();        // GPURUN_UCX_PIECE_WINDOW
const param::Param<bool>& peer_failure();       // GPURUN_UCX_PEER_FAILURE
const param::Param<std::string>& library();     // GPURUN_UCX_LIBRARY

}  // namespace gpurun::transport::ucx::params
