// Knobs of the ofi transport (GPURUN_OFI_*). libfabric's own variables (FI_PROVIDER,
// FI_TCP_IFACE, FI_OFI_RXM_*, FI_LOG_LEVEL, ...) apply too, read by libfabric as usual.
#pragma once

#include <optional>
#include <string>

#include "runtime/base/param.h"

namespace gpurun::transport::ofi::params {

const param::Param<std::optional<std::string>>& provider();  // GPURUN_OFI_PROVIDER
const param::Param<std::optional<std::string>>& domain();    // GPURUN_OFI_DOMAIN
const param::Param<param::Size>& max_packet();               // GPURUN_OFI_MAX_PACKET
const param::Param<int>& send_buffers();                     // GPURUN_OFI_SEND_BUFFERS
const param::Param<int>& recv_buffers();                     // GPURUN_OFI_RECV_BUFFERS
const param::Param<param::Size>& piece_size();               // GPURUN_OFI_PIECE_SIZE
const param::Param<int>& piece_window();                     // GPURUN_OFI_PIECE_WINDOW
const param::Param<std::string>& library();                  // GPURUN_OFI_LIBRARY

}  // namespace gpurun::transport::ofi::params
