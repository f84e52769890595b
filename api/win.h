// One-sided communication: windows (MPI_Win), their handles and errors (the calls live in
// api/win_*.cc).
//
// Where every member of the window shares a host, the origin moves the data itself, at the
// call: into and out of a target's memory directly where the library allocated it
// (MPI_Win_allocate, MPI_Win_allocate_shared: one shared segment holds every member's part),
// and by CMA (process_vm_readv/writev) where the user did (MPI_Win_create,
// MPI_Win_create_dynamic). Every operation is therefore complete when its call
// returns, at origin and target: flushes and MPI_Win_sync are memory barriers, and the request
// of MPI_Rput and its kin is complete from the start. Accumulates to one target hold that
// target's mutex (a word in the window's control segment), so they are atomic per element as
// the standard asks; MPI_Win_lock takes a reader-writer lock word of the target there. Fence
// and the post/start/complete/wait epochs synchronise through the window's own communicator (a
// duplicate of the creator's, whose handler returns errors).
//
// A window whose members run on several hosts is served instead (api/win_remote.h): every
// member answers the others' requests through messages, and holds its own part and lock table.
//
// Handles are MPICH-style indirect window handles (0xe0000000 | index into a table).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/call.h"
#include "api/errhandler.h"
#include "api/handle.h"
#include "api/state.h"
#include "runtime/base/status.h"
#include "runtime/transport/shm/segment.h"

namespace gpurun::api {

class RmaService;

// A member's part of a window, as every other member sees it.
struct WinTarget {
  std::uintptr_t base = 0;  // its address in the member's own memory
  std::int64_t size = 0;    // bytes
  int disp_unit = 1;
  int pid = 0;
  std::byte* mapped = nullptr;  // the part in this process (shared segment), or null:
  bool self = false;            // ... this process's own part, at `base`; else CMA
};

// The words of one member in the control segment, a cache line each.
struct alignas(64) WinControl {
  std::atomic<std::int32_t> lock{0};   // MPI_Win_lock: -1 exclusive, n > 0 shared holders
  std::atomic<std::int32_t> mutex{0};  // held while an accumulate runs on this member
};

struct Win {
  MPI_Win handle = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the creator's communicator
  int rank = 0;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  int model = MPI_WIN_UNIFIED;
  void* base = nullptr;  // this member's part (MPI_WIN_BASE)
  MPI_Aint size = 0;     // MPI_WIN_SIZE
  int disp_unit = 1;     // MPI_WIN_DISP_UNIT
  std::vector<WinTarget> targets;
  std::unique_ptr<transport::shm::Segment> data;     // MPI_Win_allocate(_shared)'s memory
  std::unique_ptr<transport::shm::Segment> control;  // one WinControl per member
  bool served = false;                               // members on several hosts (api/win_remote.h)
  std::shared_ptr<RmaService> service;               // ... this member's answers
  std::unique_ptr<std::byte[]> memory;               // ... MPI_Win_allocate's part of this member
  ErrhandlerRef errhandler;                          // MPI_ERRORS_ARE_FATAL by default
  std::string name;
  std::vector<Attribute> attributes;  // the user's, in the order they were first set
  // Epochs this member has open.
  bool fence = false;     // between two fences (not after MPI_MODE_NOSUCCEED)
  bool lock_all = false;  // MPI_Win_lock_all
  // MPI_Win_lock per target: 0, the lock type's sign (-1 exclusive, 1 shared), or kUnchecked
  // for an epoch opened with MPI_MODE_NOCHECK, which holds no lock.
  std::vector<std::int8_t> locked;
  static constexpr std::int8_t kUnchecked = 2;
  std::vector<int> access_group;  // MPI_Win_start's targets (ranks of the window)
  bool started = false;
  std::vector<int> exposure_group;  // MPI_Win_post's origins
  bool posted = false;
  // A put, accumulate or swap since this member's last flush of the window: the next flush
  // orders those stores before what follows (a full barrier); with gets alone, their loads only.
  bool stores_pending = true;

  WinControl& control_of(int target) const {
    return static_cast<WinControl*>(control->base())[target];
  }
};

namespace detail {
// The table of windows (api/win_core.cc), made when the library loads.
extern ObjectTable<Win>* const g_wins;
}  // namespace detail

// The window of `handle`, or nullptr when it names none (null, freed, not a window). Inline:
// every one-sided call looks its window up (osu_put_latency: two calls an operation).
inline Win* find_win(MPI_Win handle) {
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kWin)
    return nullptr;
  return detail::g_wins->find(handle_index(handle));
}
MPI_Win insert_win(std::unique_ptr<Win> win);
std::unique_ptr<Win> erase_win(MPI_Win handle);

// Runs the error handler of `win` (MPI_COMM_WORLD's when `win` names no window) for an error of
// `error_class`, with a message that names the call and the rank. Returns the code to return.
int raise_win(const Call& call, MPI_Win win, int error_class, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
int raise_win_status(const Call& call, MPI_Win win, const Status& status);
// Deletes the user's attributes of `w`, last set first, through their delete callbacks
// (api/win_attr.cc). Returns MPI_SUCCESS, or the error of the callback that failed (that
// attribute and the earlier ones stay).
int delete_win_attributes(const Call& call, Win& w);
// MPI_Win_set_attr with an attribute of any kind; MPI_Win_get_attr for a caller of kind `as`
// (api/win_attr.cc).
int set_win_attr(const Call& call, MPI_Win win, Attribute attribute);
int get_win_attr(const Call& call, MPI_Win win, int keyval, void* value, int* flag, AttrKind as);

}  // namespace gpurun::api

// Looks up window `handle` into `w` (a Win*), or fails with MPI_ERR_WIN.
#define GPURUN_CHECK_WIN(w, handle)                                                 \
  ::gpurun::api::Win* w = ::gpurun::api::find_win(handle);                          \
  if (w == nullptr) [[unlikely]]                                                    \
  return ::gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_WIN,                     \
                              (handle) == MPI_WIN_NULL                              \
                                  ? "argument win is MPI_WIN_NULL"                  \
                                  : "argument win (0x%x) is not a window (freed?)", \
                              static_cast<unsigned>(handle))
