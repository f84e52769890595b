// The state of the MPI library in this process: the phase, the thread level, the bootstrap
// and the communicators known to the API layer (with their API-level state: error handler).
#pragma once

#include <mpi.h>

#include <memory>
#include <thread>
#include <vector>

#include "api/handle.h"
#include "pml/pml.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/transport/transport.h"
#include "runtime/core/communicator.h"

namespace gpurun::api {

// A communicator as the API sees it: its identity (core) and the API layer's own state.
struct CommEntry {
  std::unique_ptr<core::Communicator> comm;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
};

struct ProcessState {
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap;
  std::vector<std::unique_ptr<transport::Transport>> transports;
  std::unique_ptr<pml::Pml> pml;
  CommEntry world;
  CommEntry self;
  HandleTable<CommEntry> comms;  // communicators that users create
};

ProcessState& state();

// The entry of a communicator handle, or nullptr when the handle names none (null, freed,
// not a communicator).
CommEntry* find_comm(MPI_Comm handle);

// This process's rank in MPI_COMM_WORLD, or -1 before MPI_Init.
int world_rank();

}  // namespace gpurun::api
