// MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort and the calls about the library's state.
//
// The runtime (the launcher's connection, the transports, MPI_COMM_WORLD and MPI_COMM_SELF)
// starts at MPI_Init or at the first MPI_Session_init, whichever comes first, and ends when
// neither the world model (MPI_Init until MPI_Finalize) nor a session uses it any more.
// g_phase says whether it runs (every call but these few needs it); world_phase() says where
// the world model is (MPI_Initialized, MPI_Finalized).
#include "api/init.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "api/bsend.h"
#include "api/call.h"
#include "api/coll_repeat.h"
#include "api/comm_build.h"
#include "api/memory_kinds.h"
#include "api/names.h"
#include "api/prequest.h"
#include "api/spawn.h"
#include "api/state.h"
#include "api/wiring.h"
#include "coll/select_guard.h"
#include "coll/shm/arenas.h"
#include "gpurun/build_config.h"
#include "runtime/base/clock.h"
#include "runtime/base/crash.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"

namespace gpurun::api {
namespace {

Phase g_world_phase = Phase::kBefore;
int g_sessions = 0;  // sessions not yet finalized

int thread_level_of(int required) {
  return (required < MPI_THREAD_SINGLE)     ? MPI_THREAD_SINGLE
         : (required > MPI_THREAD_MULTIPLE) ? MPI_THREAD_MULTIPLE
                                            : required;
}

// Raises the thread level of a running runtime (a later MPI_Init_thread or session asks more).
void raise_thread_level(int required) {
  ProcessState& s = state();
  if (thread_level_of(required) <= s.thread_level) return;
  s.thread_level = thread_level_of(required);
  g_thread_multiple = s.thread_level == MPI_THREAD_MULTIPLE;
  coll::detect_deadlocks(!g_thread_multiple);
}

}  // namespace

Phase world_phase() { return g_world_phase; }

// Connects to the launcher and builds MPI_COMM_WORLD and MPI_COMM_SELF.
int start_runtime(const Call& call, int required) {
  if (phase() == Phase::kInitialized) {
    raise_thread_level(required);
    return MPI_SUCCESS;
  }
  if (phase() == Phase::kFinalized) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
                 "MPI was finalized (MPI_Finalize, or every session) and cannot restart");
  }
  log::configure();
  auto bootstrap = bootstrap::create();
  if (!bootstrap.ok()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER, "cannot start: %s",
                 bootstrap.status().to_string().c_str());
  }
  ProcessState& s = state();
  s.bootstrap = std::move(bootstrap).value();
  const bootstrap::JobInfo& job = s.bootstrap->job();
  log::set_rank(job.rank);
  crash::install(job.rank, job.host);
  param::log_non_default();
  s.world.comm = std::make_unique<core::Communicator>(core::Group::identity(job.size), job.rank,
                                                      /*context_id=*/0);
  s.self.comm = std::make_unique<core::Communicator>(core::Group::of({job.rank}), 0,
                                                     /*context_id=*/1);
  s.world.comm->set_handle(MPI_COMM_WORLD);
  s.self.comm->set_handle(MPI_COMM_SELF);
  // GPURUN_ASSERT_MEMORY_ALLOC_KINDS is set alike on every rank (the launcher passes it on).
  s.world.device_only = s.self.device_only = asserts_device_only(nullptr);
  if (Status st = wire_up(s); !st.ok()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER, "cannot connect the ranks: %s",
                 st.to_string().c_str());
  }
  s.pml->add_comm(*s.world.comm);
  s.pml->add_comm(*s.self.comm);
  // Every level is provided: the calls implemented so far are safe from any thread.
  s.thread_level = thread_level_of(required);
  s.main_thread = std::this_thread::get_id();
  g_thread_multiple = s.thread_level == MPI_THREAD_MULTIPLE;
  coll::detect_deadlocks(!g_thread_multiple);  // another thread may make the call awaited
  coll::watch_comm(*s.pml, *s.world.comm);
  GPURUN_LOG(info, init, "rank %d of %d on %s (%d local), thread level %d", job.rank, job.size,
             job.host.c_str(), job.local_size, s.thread_level);
  g_phase.store(Phase::kInitialized, std::memory_order_release);
  return MPI_SUCCESS;
}

void session_started() { ++g_sessions; }

namespace {
// Ends the runtime once neither the world model nor a session uses it (`world_ending`: in
// MPI_Finalize, where MPI_Finalized still says false to the callbacks that run).
int end_runtime_if_unused(const Call& call, bool world_ending) {
  if (g_sessions > 0 || (g_world_phase == Phase::kInitialized && !world_ending)) return MPI_SUCCESS;
  helper::stop();
  forget_repeats();
  // MPI_COMM_SELF's attributes go first, last set first: their delete callbacks may still
  // use MPI (the standard's hook for libraries that must clean up before MPI ends).
  if (int rc = finalize_communicators(); rc != MPI_SUCCESS) return rc;
  // A member still waiting for this rank in a collective it never ran fails instead of hanging.
  gpurun::coll::shm::leave_all();
  ProcessState& s = state();
  // drain() waits for the buffered sends too: a buffered message must still arrive if the
  // buffer was not detached, or fail once its receiver finalized without taking it.
  drain(s);
  free_prequests();
  wait_spawned_jobs();
  unpublish_names();
  gpurun::Status st = s.bootstrap->finalize();
  shut_down(s);
  g_phase.store(Phase::kFinalized, std::memory_order_release);
  if (!st.ok()) GPURUN_LOG(warn, init, "finalize (%s): %s", call.name, st.to_string().c_str());
  return MPI_SUCCESS;
}

}  // namespace

int session_finished(const Call& call) {
  --g_sessions;
  return end_runtime_if_unused(call, false);
}

namespace {

int initialize(const Call& call, int required, int* provided) {
  if (g_world_phase != Phase::kBefore) {
    const char* why = g_world_phase == Phase::kInitialized ? "MPI is already initialized"
                                                           : "MPI was finalized and cannot restart";
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER, "%s", why);
  }
  if (int rc = start_runtime(call, required); rc != MPI_SUCCESS) return rc;
  g_world_phase = Phase::kInitialized;
  if (int rc = connect_to_parent(call); rc != MPI_SUCCESS) return rc;
  if (provided != nullptr) *provided = state().thread_level;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Init(int* /*argc*/, char*** /*argv*/) {
  const Call call{"MPI_Init"};
  return initialize(call, MPI_THREAD_SINGLE, nullptr);
}

extern "C" int PMPI_Init_thread(int* /*argc*/, char*** /*argv*/, int required, int* provided) {
  const Call call{"MPI_Init_thread"};
  if (provided == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument provided is a null pointer");
  return initialize(call, required, provided);
}

extern "C" int PMPI_Finalize(void) {
  GPURUN_API_ENTER("MPI_Finalize");
  if (world_phase() != Phase::kInitialized) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
                 world_phase() == Phase::kBefore
                     ? "MPI_Init was not called (sessions end with MPI_Session_finalize)"
                     : "MPI_Finalize was already called");
  }
  int rc = end_runtime_if_unused(call, true);
  g_world_phase = Phase::kFinalized;
  return rc;
}

extern "C" int PMPI_Initialized(int* flag) {
  const Call call{"MPI_Initialized"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  *flag = world_phase() != Phase::kBefore;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Finalized(int* flag) {
  const Call call{"MPI_Finalized"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  *flag = world_phase() == Phase::kFinalized;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Query_thread(int* provided) {
  GPURUN_API_ENTER("MPI_Query_thread");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, provided);
  *provided = state().thread_level;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Is_thread_main(int* flag) {
  GPURUN_API_ENTER("MPI_Is_thread_main");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  *flag = std::this_thread::get_id() == state().main_thread;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Abort(MPI_Comm comm, int errorcode) {
  int rank = world_rank();
  char message[256];
  std::snprintf(message, sizeof message, "MPI_Abort(errorcode %d) called on rank %d", errorcode,
                rank);
  if (phase() == Phase::kInitialized && find_comm(comm) == nullptr) {
    GPURUN_LOG(warn, init, "MPI_Abort: argument comm is not a communicator; ending the job");
  }
  // gpurun reports the abort itself; other launchers and singletons get the line from here.
  bool under_gpurun = phase() == Phase::kInitialized &&
                      state().bootstrap->job().launcher == gpurun::bootstrap::Launcher::kGpurun;
  if (!under_gpurun) {
    std::string line = std::string("gpurun: ") + message + "\n";
    ssize_t rc = write(STDERR_FILENO, line.data(), line.size());
    (void)rc;
  }
  if (phase() == Phase::kInitialized) state().bootstrap->abort(errorcode, message);
  _exit(errorcode & 0xff ? errorcode & 0xff : 1);
}

extern "C" double PMPI_Wtime(void) { return gpurun::clock::now_seconds(); }
extern "C" double PMPI_Wtick(void) { return gpurun::clock::tick_seconds(); }

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  GPURUN_API_ENTER("MPI_Get_processor_name");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, name);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, resultlen);
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", state().bootstrap->job().host.c_str());
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  const Call call{"MPI_Get_version"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, version);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, subversion);
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  const Call call{"MPI_Get_library_version"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, version);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, resultlen);
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                "gpurun %s (MPI %d.%d, MPICH ABI libmpi.so.12; CUDA support: %s)",
                GPURUN_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, GPURUN_CUDA_DESCRIPTION);
  *resultlen = static_cast<int>(std::strlen(version));
  return MPI_SUCCESS;
}

// The hook of profiling tools, which intercept MPI_Pcontrol; the library itself has no profiling
// levels to change, so every level is accepted, before MPI_Init too (as a tool's may be).
extern "C" int PMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Init)
GPURUN_MPI_ALIAS(MPI_Init_thread)
GPURUN_MPI_ALIAS(MPI_Finalize)
GPURUN_MPI_ALIAS(MPI_Initialized)
GPURUN_MPI_ALIAS(MPI_Finalized)
GPURUN_MPI_ALIAS(MPI_Query_thread)
GPURUN_MPI_ALIAS(MPI_Is_thread_main)
GPURUN_MPI_ALIAS(MPI_Abort)
GPURUN_MPI_ALIAS(MPI_Wtime)
GPURUN_MPI_ALIAS(MPI_Wtick)
GPURUN_MPI_ALIAS(MPI_Get_processor_name)
GPURUN_MPI_ALIAS(MPI_Get_version)
GPURUN_MPI_ALIAS(MPI_Get_library_version)
GPURUN_MPI_ALIAS(MPI_Pcontrol)
