#include "runtime/transport/ucx/params.h"

namespace gpurun::transport::ucx::params {
namespace {
param::Param<param::Size> g_max_packet(
    "GPURUN_UCX_MAX_PACKET", param::Size{65536},
    "Largest packet (and so the default eager limit) on ucx; larger messages go by UCX "
    "rendezvous, whose handshakes cost about 10 us over TCP (osu_latency between two test "
    "hosts, 16K: 2.5 us eager, 13 us by rendezvous; osu_bw 16K: 2.9 vs 0.8 GB/s).");
param::Param<param::Size> g_piece_size(
    "GPURUN_UCX_PIECE_SIZE", param::Size{131072},
    "Host data larger than this moves as several UCX rendezvous of this size at once (0: as "
    "one; at least 4K). Over TCP the best size depends on how the kernel takes one large "
    "write: between two test hosts on an Intel VM, where one 1M write took 464 us and a 128K "
    "one 19 us, 128K against 1M: osu_bw 1M 4.1-5.1 GB/s against 1.9 (Open MPI and MPICH: "
    "2.0), 4M 3.9-4.3 against 1.8-1.9, osu_latency 1M 226-360 us against 554-595; on another VM, "
    "which moved a 1M rendezvous at 6.8-7.0 GB/s, 128K reached 4.4-4.6.",
    param::Level::kAdvanced);
param::Param<int> g_piece_window(
    "GPURUN_UCX_PIECE_WINDOW", 8,
    "Pieces of offered data in flight to one peer, besides the first piece of each offer: "
    "more at once slow UCX over TCP down (osu_bw 1M between two test hosts, 3 runs: a window "
    "of 8 4.9-5.8 GB/s, 32 3.1-6.0, none 2.0-2.4).",
    param::Level::kAdvanced);
param::Param<int> g_send_queue(
    "GPURUN_UCX_SEND_QUEUE", 256,
    "Packets to one peer that UCX may hold (copied) while the network is busy before a send "
    "waits for progress.",
    param::Level::kAdvanced);
param::Param<bool> g_peer_failure(
    "GPURUN_UCX_PEER_FAILURE", false,
    "Ask UCX to detect failed peers (UCP_ERR_HANDLING_MODE_PEER): sends to a dead rank fail "
    "instead of waiting; costs keepalive traffic and may exclude some UCX transports.",
    param::Level::kAdvanced);
param::Param<std::string> g_library(
    "GPURUN_UCX_LIBRARY", "libucp.so.0",
    "The UCX library that the ucx transport loads when a job needs it (a path, for a UCX "
    "built elsewhere, e.g. with CUDA).",
    param::Level::kAdvanced);
}  // namespace

const param::Param<param::Size>& max_packet() { return g_max_packet; }
const param::Param<int>& send_queue() { return g_send_queue; }
const param::Param<param::Size>& piece_size() { return g_piece_size; }
const param::Param<int>& piece_window() { return g_piece_window; }
const param::Param<bool>& peer_failure() { return g_peer_failure; }

}  // namespace gpurun::transport::ucx::params

namespace gpurun::transport::ucx::params {
const param::Param<std::string>& library() { return g_library; }
}  // namespace gpurun::transport::ucx::params
