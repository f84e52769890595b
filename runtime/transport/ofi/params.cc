#include "runtime/transport/ofi/params.h"

namespace gpurun::transport::ofi::params {
namespace {
param::Param<std::optional<std::string>> g_provider(
    "GPURUN_OFI_PROVIDER", std::nullopt,
    "libfabric provider for ofi (\"tcp\", \"verbs\", \"efa\"); auto: the first reliable-datagram "
    "provider with tagged messages that fi_getinfo offers, except sockets and shm.");
param::Param<std::optional<std::string>> g_domain(
    "GPURUN_OFI_DOMAIN", std::nullopt,
    "libfabric domain (for tcp: the network interface); auto: loopback when the job is on one "
    "host, else the NIC gpurun placed the rank near, else the provider's first IPv4 one.");
param::Param<param::Size> g_max_packet(
    "GPURUN_OFI_MAX_PACKET", param::Size{8192},
    "Largest packet (and so the default eager limit) on ofi; larger messages are sent as "
    "tagged messages that the receiver posts for.");
param::Param<param::Size> g_piece_size(
    "GPURUN_OFI_PIECE_SIZE", param::Size{131072},
    "Host data larger than this moves as tagged messages of this size (0: as one; at least "
    "4K): over libfabric's tcp one large message moves at half the speed of several smaller "
    "ones (osu_bw 1M between two test hosts: 2.1 GB/s whole).",
    param::Level::kAdvanced);
param::Param<int> g_piece_window(
    "GPURUN_OFI_PIECE_WINDOW", 8,
    "Pieces of bulk data (GPURUN_OFI_PIECE_SIZE each) in flight to one peer, all into receives "
    "the peer posted before asking for the data (at least 1).",
    param::Level::kAdvanced);
param::Param<int> g_send_buffers(
    "GPURUN_OFI_SEND_BUFFERS", 256,
    "Packets in flight from one rank (all peers together) before a send waits for progress.",
    param::Level::kAdvanced);
param::Param<int> g_recv_buffers(
    "GPURUN_OFI_RECV_BUFFERS", 128,
    "Receive buffers of GPURUN_OFI_MAX_PACKET bytes posted for packets (the provider queues "
    "what arrives beyond them).",
    param::Level::kAdvanced);
param::Param<std::string> g_library(
    "GPURUN_OFI_LIBRARY", "libfabric.so.1",
    "The libfabric library that the ofi transport loads when a job needs it (a path, for a "
    "libfabric built elsewhere).",
    param::Level::kAdvanced);
}  // namespace

const param::Param<std::optional<std::string>>& provider() { return g_provider; }
const param::Param<std::optional<std::string>>& domain() { return g_domain; }
const param::Param<param::Size>& max_packet() { return g_max_packet; }
const param::Param<int>& send_buffers() { return g_send_buffers; }
const param::Param<param::Size>& piece_size() { return g_piece_size; }
const param::Param<int>& piece_window() { return g_piece_window; }
const param::Param<int>& recv_buffers() { return g_recv_buffers; }
const param::Param<std::string>& library() { return g_library; }

}  // namespace gpurun::transport::ofi::params
