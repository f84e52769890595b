#include "pml/params.h"

namespace gpurun::pml::params {
namespace {
param::Param<std::optional<param::Size>> g_eager_limit(
    "GPURUN_PML_EAGER_LIMIT", std::nullopt,
    "Largest message sent eagerly (in one packet, no handshake); larger ones use rendezvous. "
    "auto: on shm 16K, or 8K where gpurun's copy probe found a 16K message faster by CMA than "
    "in one packet, 4K where an 8K one too (gpurun --explain says which); the transport's "
    "packet size elsewhere.");
param::Param<std::optional<param::Size>> g_stream_eager_limit(
    "GPURUN_PML_STREAM_EAGER_LIMIT", std::nullopt,
    "Largest message sent eagerly, above the eager limit, while the sender streams to a peer "
    "on its host (an earlier rendezvous send to it still waits, and the packet finds room): "
    "the two cores then copy in and out side by side. auto: twice the eager limit where large "
    "messages move by CMA, else off; 0: off.");
}  // namespace

const param::Param<std::optional<param::Size>>& eager_limit() { return g_eager_limit; }
const param::Param<std::optional<param::Size>>& stream_eager_limit() {
  return g_stream_eager_limit;
}

}  // namespace gpurun::pml::params
