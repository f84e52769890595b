// Connecting two groups of processes that share no communicator: MPI_Comm_accept and
// MPI_Comm_connect (api/port_calls.cc), which MPI_Comm_join builds on.
//
// The two groups may belong to different jobs (two gpurun runs, a singleton), so they cannot
// count on each other's bootstrap. Their roots meet over a port (runtime/bootstrap/port.h) and
// trade, for each group, one card per member: its job, its rank there and the address of its
// network transport (started then if the process had none: ucx, else ofi). Every process then
// numbers the other group's processes of other jobs from the job's size up (the same process
// keeps its number across connections) and the roots trade those numbers too, since packets
// carry the sender's number at the receiver. Each process opens endpoints to the new ones, then
// both groups install a communicator over all of them with a reserved context id (the bridge),
// agree over it on the intercommunicator's context id as any communicator creation does, and
// drop the bridge.
//
// A process of another job is on another host as far as the collectives know (no
// shared-memory algorithm spans two jobs), and MPI_Comm_split_type keeps jobs apart.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>

#include "api/call.h"
#include "runtime/bootstrap/port.h"
#include "runtime/core/group.h"

namespace gpurun::api {

enum class ConnectSide : bool { kAccept, kConnect };

// The root's channel to the other group's root; the call fails with its error.
using OpenChannel = std::function<Result<std::unique_ptr<bootstrap::Channel>>()>;

// The common part of MPI_Comm_accept and MPI_Comm_connect (and of MPI_Comm_spawn) over `comm`
// with `root`. `open` runs at the root only. Errors: `error_class` (with the reason) when the
// roots cannot meet or a process cannot reach the other group; every member of both groups
// fails alike. `other_hosts` (the root's counts): whether the other group may run on other hosts,
// which a job on one host then reaches through its network devices, not only the loopback.
int connect_groups(const Call& call, MPI_Comm comm, int root, ConnectSide side,
                   const OpenChannel& open, MPI_Comm* newcomm, int error_class = MPI_ERR_PORT,
                   bool other_hosts = false);

// The checks of MPI_Comm_accept, _connect and _spawn that every member makes alike (comm an
// intracommunicator, root a rank of it, newcomm not null), so that all fail or none.
int check_group_args(const Call& call, MPI_Comm comm, int root, MPI_Comm* newcomm);

// The channel to the port `port_name` names (MPI_Comm_connect's root).
Result<std::unique_ptr<bootstrap::Channel>> connect_to_port(const char* port_name);

// One turn of a root that waits on a port's socket (accept, the roots' trade): moves
// communication on and, under MPI_THREAD_MULTIPLE, lets the process's other threads into the
// library for a moment, as waits for requests do.
void idle_turn();

// Whether `port_name` (null at a member that is not the root) listens on an address other hosts
// reach: the processes behind it may run on other hosts.
bool reaches_other_hosts(const char* port_name);

// The address a port of this process listens on (api/port_calls.cc): GPURUN_PORT_ADDRESS, else
// the loopback in a job on one host unless `other_hosts` (processes of other hosts will
// connect), else the first network interface that is up.
std::string port_address(bool other_hosts);

// Whether `group` holds a process of another job (numbered at or above the job's size).
bool has_other_jobs(const core::Group& group);

// What names this process's job among jobs, alike at all its processes: its namespace and rank
// 0's host (gpurun's namespaces repeat across hosts), or a singleton's namespace and random
// token.
std::string job_key();

}  // namespace gpurun::api
