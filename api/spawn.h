// MPI_Comm_spawn, MPI_Comm_spawn_multiple and MPI_Comm_get_parent.
//
// The root starts the children as a job of their own: it runs gpurun (the one beside this
// library, or GPURUN_SPAWN_LAUNCHER), with GPURUN_PARENT_PORT naming a port the root opened. The
// commands reach gpurun as its --app file through a pipe (descriptor 3), one line each, so that
// arguments pass as given: one job of all the commands of MPI_Comm_spawn_multiple, whose
// MPI_APPNUM tells each child its command. A command runs on the root's host unless its info
// "host" or "hostfile" names hosts (with --oversubscribe); "wdir" becomes its --wdir, "path"
// goes before its PATH. Children on other hosts make the root's port listen on the network and
// the parents' network transport start on the network devices (api/net_wiring.h). The
// children's MPI_Init connects their MPI_COMM_WORLD to that port (api/connect.h), which makes
// their parent intercommunicator; the spawning group accepts on it, which makes the
// intercommunicator MPI_Comm_spawn returns. When the children's job ends before it connected (a
// command that does not exist, a child that failed), the spawning group fails with
// MPI_ERR_SPAWN instead of waiting. The children's output reaches the terminal through the
// root's (gpurun forwards it); the root's MPI_Finalize waits until the jobs it spawned have
// ended.
#pragma once

#include "api/call.h"

namespace gpurun::api {

// MPI_Init: when the process was spawned, connects its job to the parents and keeps the
// intercommunicator for MPI_Comm_get_parent.
int connect_to_parent(const Call& call);

// MPI_Finalize, once this process has left: waits (keeping communication moving) until every job
// it spawned has ended.
void wait_spawned_jobs();

}  // namespace gpurun::api
