#include "pml/params.h"

namespace gpurun::pml::params {
namespace {
param::Param<std::optional<param::Size>> g_eager_limit(
    "GPURUN_PML_EAGER_LIMIT", std::nullopt,
    "Largest message sent eagerly (in one packet, no handshake); larger ones use rendezvous. "
    "auto: 16K on shm, the transport's packet size elsewhere.");
}  // namespace

const param::Param<std::optional<param::Size>>& eager_limit() { return g_eager_limit; }

}  // namespace gpurun::pml::params
