#include "api/state.h"

#include "api/call.h"

namespace gpurun::api {

std::atomic<Phase> g_phase{Phase::kBefore};
bool g_thread_multiple = false;
int g_call_depth = 0;
bool g_device_memory = false;

std::recursive_mutex& big_lock() {
  static auto* lock = new std::recursive_mutex();
  return *lock;
}

std::atomic<ProcessState*> g_state{nullptr};

ProcessState& make_state() {
  static ProcessState* s = [] {
    auto* p = new ProcessState();
    p->world.name = "MPI_COMM_WORLD";
    p->self.name = "MPI_COMM_SELF";
    g_state.store(p, std::memory_order_release);
    return p;
  }();
  return *s;
}

CommEntry* find_comm_slow(MPI_Comm handle) {
  if (handle == MPI_COMM_WORLD) return &state().world;
  if (handle == MPI_COMM_SELF) return &state().self;
  if (handle_type(handle) != ObjectType::kComm || handle_kind(handle) != HandleKind::kIndirect)
    return nullptr;
  return state().comms.find(handle_index(handle));
}

int world_rank() {
  const ProcessState& s = state();
  return s.world.comm ? s.world.comm->rank() : -1;
}

}  // namespace gpurun::api
