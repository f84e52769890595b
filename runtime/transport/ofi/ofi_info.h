// Which libfabric provider and domain the ofi transport uses: the offers of fi_getinfo, and a
// pure choice among them (so that the rules are tested without the hardware they name).
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::transport::ofi {

// One fi_info that fi_getinfo offered, as the choice sees it.
struct Offer {
  std::string provider;   // "tcp;ofi_rxm"
  std::string domain;     // "lo", "eth0", "mlx5_0"
  bool loopback = false;  // its source address is a loopback address
  bool ipv4 = false;      // its source address is an IPv4 address
};

struct Preference {
  std::optional<std::string> provider;  // GPURUN_OFI_PROVIDER: a name or one of its layers
  std::optional<std::string> domain;    // GPURUN_OFI_DOMAIN
  bool loopback_only = false;           // the job is on one host
  std::string nic;                      // the NIC the launcher placed the rank near
};

// The index of the offer to use: the first provider (in fi_getinfo's order) that the knob
// names, or else the first that is neither `sockets` (hangs on loopback here, deprecated) nor
// `shm` (one host only); within it, the knob's domain, or loopback for a one-host job, or the
// launcher's NIC, or the first non-loopback domain, IPv4 before IPv6. kNotFound says why none.
Result<std::size_t> choose_offer(std::span<const Offer> offers, const Preference& preference);

// What the choice sees of one fi_info.
Offer offer_of(const fi_info* info);

// fi_getinfo with the transport's needs (FI_EP_RDM, FI_TAGGED, send-after-send order), then the
// chosen offer, as a copy the caller frees with fi_freeinfo.
Result<fi_info*> get_info(const Preference& preference);

}  // namespace gpurun::transport::ofi
