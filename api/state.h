// The state of the MPI library in this process: the phase, the thread level, the bootstrap
// and the communicators known to the API layer (with their API-level state: error handler,
// name, attributes, info hints).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/errhandler.h"
#include "api/handle.h"
#include "pml/pml.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/core/communicator.h"
#include "runtime/core/info.h"
#include "runtime/transport/transport.h"

namespace gpurun::api {

// User objects of one type, addressed by the index of their handle. An index holds a slot and
// that slot's generation, so a handle stays invalid once its object is freed, even after the
// slot is reused (for the next 255 reuses); freed slots are reused oldest first. An object
// does not move while it lives. Not thread-safe by itself: the API layer serialises callers.
template <class T>
class ObjectTable {
 public:
  static constexpr std::uint32_t kSlotBits = 18;
  static constexpr std::uint32_t kSlots = 1u << kSlotBits;
  static constexpr std::uint32_t kFull = ~0u;

  // Stores `object`; returns its index, or kFull when every slot is taken.
  std::uint32_t insert(std::unique_ptr<T> object) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.front();
      free_.pop_front();
    } else if (slots_.size() < kSlots) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      return kFull;
    }
    slots_[slot].object = std::move(object);
    return (static_cast<std::uint32_t>(slots_[slot].generation) << kSlotBits) | slot;
  }
  // The object at `index`, or nullptr when it was freed or never existed.
  T* find(std::uint32_t index) const {
    std::uint32_t slot = index & (kSlots - 1);
    if (slot >= slots_.size() || slots_[slot].generation != (index >> kSlotBits)) return nullptr;
    return slots_[slot].object.get();
  }
  // Removes and returns the object at `index` (nullptr when there is none).
  std::unique_ptr<T> release(std::uint32_t index) {
    if (find(index) == nullptr) return nullptr;
    Slot& s = slots_[index & (kSlots - 1)];
    std::unique_ptr<T> out = std::move(s.object);
    ++s.generation;
    free_.push_back(index & (kSlots - 1));
    return out;
  }
  std::uint32_t live() const { return static_cast<std::uint32_t>(slots_.size() - free_.size()); }

 private:
  struct Slot {
    std::unique_ptr<T> object;
    std::uint8_t generation = 0;
  };
  std::vector<Slot> slots_;
  std::deque<std::uint32_t> free_;
};

struct Topology;       // api/topo.h
struct StreamBinding;  // api/stream.h
struct BsendSlot;      // api/bsend.h

// How an attribute value was set, and how a caller takes one: a C pointer, or an integer that
// Fortran set (kAddress: MPI_COMM_SET_ATTR's INTEGER(KIND=MPI_ADDRESS_KIND); kInteger:
// MPI_ATTR_PUT's INTEGER). The values are MPICH's (MPIR_Attr_type), which its Fortran bindings
// pass to the library (api/attr_fortran.cc).
enum class AttrKind : std::uint8_t { kPointer = 0, kAddress = 1, kInteger = 3 };

// An attribute on a communicator, window or datatype: the keyval's handle and the value stored.
// A value Fortran set is an integer, which C sees as a pointer to it: `cell` holds it there.
struct Attribute {
  int keyval;
  void* value;
  AttrKind kind = AttrKind::kPointer;
  std::shared_ptr<MPI_Aint> cell;  // integer kinds only
  // The value as C's get calls and callbacks see it.
  void* as_pointer() const { return cell ? static_cast<void*>(cell.get()) : value; }
};

// A communicator as the API sees it: its identity (core) and the API layer's own state.
struct CommEntry {
  std::unique_ptr<core::Communicator> comm;
  ErrhandlerRef errhandler;           // MPI_ERRORS_ARE_FATAL until set or inherited
  std::string name;                   // MPI_Comm_set_name; empty until set
  std::vector<Attribute> attributes;  // in the order they were first set
  std::unique_ptr<core::Info> hints;  // MPI_Comm_set_info; null when none were given
  // Every member asserted device memory only (api/memory_kinds.h): coll::Args::device_only.
  bool device_only = false;
  std::uint32_t coll_sequence = 0;           // collectives started on it, for their tags
  std::shared_ptr<const Topology> topology;  // Cartesian or graph (api/topo.h); null: none
  // An intercommunicator's duplicate of its local group's communicator (api/intercomm.cc),
  // freed with it; MPI_COMM_NULL for an intracommunicator.
  MPI_Comm local = MPI_COMM_NULL;
  // An intercommunicator between two jobs (api/connect.h): a communicator over both groups, the
  // accepting one first, where they agree on the communicators made of this one (MPI_COMM_WORLD
  // does that within a job); freed with it. MPI_COMM_NULL otherwise.
  MPI_Comm span = MPI_COMM_NULL;
  std::uint32_t inter_made = 0;  // MPI_Comm_dup, _split and _create calls on it so far
  // A nonblocking or persistent collective was made on this intercommunicator: from then on
  // its calls' local phases may start in different orders on different members, and keep to
  // point-to-point algorithms (api/intercomm_ops.h). Every member sets it at the same call.
  bool inter_overlap = false;
  // A stream communicator's streams (MPIX_Stream_comm_create(_multiplex)); null otherwise.
  std::shared_ptr<StreamBinding> streams;
  // MPI_Comm_attach_buffer's buffer for buffered sends on it; null until one is attached.
  std::shared_ptr<BsendSlot> bsend;
  // The session it derives from (made from a group of the session's process sets, or from
  // such a communicator), whose buffer its buffered sends may use; MPI_SESSION_NULL if none.
  MPI_Session session = MPI_SESSION_NULL;

  // The tag of the next collective on this communicator. Every member starts collectives on a
  // communicator in the same order, so they all give the same collective the same tag.
  // Below coll::kCreationTags (coll/basic.h), which starts the tags of communicator creation.
  int next_coll_tag() { return static_cast<int>(coll_sequence++ & 0x3fffffff); }
};

struct ProcessState {
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap;
  std::vector<std::unique_ptr<transport::Transport>> transports;
  std::unique_ptr<pml::Pml> pml;
  CommEntry world;
  CommEntry self;
  ObjectTable<CommEntry> comms;  // communicators that users create
};

// The process's state, made on first use; never destroyed (ranks exit from anywhere). Inline:
// every call asks for it, often several times.
extern std::atomic<ProcessState*> g_state;
ProcessState& make_state();
inline ProcessState& state() {
  if (ProcessState* s = g_state.load(std::memory_order_acquire)) [[likely]]
    return *s;
  return make_state();
}

CommEntry* find_comm_slow(MPI_Comm handle);
// The entry of a communicator handle, or nullptr when the handle names none (null, freed,
// not a communicator).
inline CommEntry* find_comm(MPI_Comm handle) {
  if (handle == MPI_COMM_WORLD) [[likely]]
    return &state().world;
  return find_comm_slow(handle);
}

// This process's rank in MPI_COMM_WORLD, or -1 before MPI_Init.
int world_rank();

}  // namespace gpurun::api
