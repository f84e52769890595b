// The network part of the composition root (wiring.cc): which transports GPURUN_TRANSPORTS
// allows, the network transport of this process (ucx, else ofi: the first that initialises),
// its address exchange, and the routes over it.
//
// Routes: a rank's messages to itself go by self; to a rank of its host by shm; to any other
// rank by the network transport. When shm may not be used (GPURUN_TRANSPORTS=^shm or a list
// without it), ranks of one host talk over the network transport too: that is how the network
// transports are tested on one host. A rank that no transport reaches gets a route whose
// sends fail with the reason, naming the rank.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/state.h"
#include "runtime/base/param.h"
#include "runtime/base/status.h"

namespace gpurun::api {

// What GPURUN_TRANSPORTS allows.
class TransportSelection {
 public:
  explicit TransportSelection(const param::List& list);
  // self is always allowed.
  bool allows(std::string_view name) const;
  // "GPURUN_TRANSPORTS=^shm": why `name` is not allowed, for messages.
  std::string setting() const;

 private:
  param::List list_;
};

// The network side of one process's wiring.
struct NetWiring {
  transport::Transport* transport = nullptr;  // the network transport, when one initialised
  std::string name;                           // its name
  std::vector<std::string> failures;          // "ucx: <why>" for those that did not
  bool published = false;                     // whether this rank published its addresses
};

// Creates the network transport when some peer of this rank needs one (another host, or a
// rank of this host when shm is not used) and publishes its address. Before the fence.
Status start_network(ProcessState& state, const TransportSelection& selection, bool shm_used,
                     NetWiring& net);

// After the fence: a route to every rank that `routed` says has none yet.
Status connect_network(ProcessState& state, const TransportSelection& selection, NetWiring& net,
                       std::vector<bool>& routed);

// The network transport, started now when this process has none (a job on one host), for
// the processes of other jobs (MPI_Comm_connect, MPI_Comm_accept); kUnsupported with the reasons
// when none can start. Started in a job on one host, it keeps to the loopback unless
// `other_hosts` (the other job runs on other hosts too).
Result<transport::Transport*> network_for_other_jobs(ProcessState& state, bool other_hosts);
// The largest eager message on a route over network transport `t`.
std::size_t network_eager_limit(const transport::Transport& t);

// Whether any transport of this process crosses the network: then MPI_Finalize waits for every
// rank before the process leaves, since a peer may still read what this one sent.
bool uses_network(const ProcessState& state);

}  // namespace gpurun::api
