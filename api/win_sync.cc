// One-sided communication: epochs. Fence (MPI_Win_fence), passive target (MPI_Win_lock/unlock,
// lock_all/unlock_all, the flushes, MPI_Win_sync) and general active target (MPI_Win_post,
// start, complete, wait, test). Operations complete at their call (api/win.h), so an epoch's
// end only orders memory and tells the other side.
#include <atomic>
#include <vector>

#include "api/agree.h"
#include "api/requests.h"
#include "api/win.h"
#include "api/win_remote.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {
namespace {

// Tags of the post/start/complete/wait messages on the window's own communicator (a served
// window's requests and answers take others: api/win_remote.cc).
constexpr int kPostedTag = 1;
constexpr int kCompletedTag = 2;

bool try_lock(WinControl& c, bool exclusive) {
  std::int32_t v = c.lock.load(std::memory_order_relaxed);
  if (exclusive) return v == 0 && c.lock.compare_exchange_strong(v, -1, std::memory_order_acquire);
  return v >= 0 && c.lock.compare_exchange_strong(v, v + 1, std::memory_order_acquire);
}

// MPI_MODE_NOCHECK: the program asserts that no conflicting lock is held or asked for during
// the epoch, so none is taken (as the peers do). OpenCoarrays opens every window with
// MPI_Win_lock_all(MPI_MODE_NOCHECK) and still takes exclusive locks on it for its events and
// locks: taking the shared locks there made those wait forever.
Status take_lock(Win& w, int target, bool exclusive, bool nocheck) {
  if (nocheck) {
    w.locked[target] = Win::kUnchecked;
    return ok_status();
  }
  if (w.served) {
    GPURUN_TRY(remote_lock(w, target, exclusive));
  } else {
    WinControl& c = w.control_of(target);
    if (!try_lock(c, exclusive)) wait_until([&] { return try_lock(c, exclusive); });
  }
  w.locked[target] = exclusive ? -1 : 1;
  return ok_status();
}

Status drop_lock(Win& w, int target) {
  std::int8_t held = w.locked[target];
  w.locked[target] = 0;
  if (held == Win::kUnchecked) return ok_status();
  bool exclusive = held < 0;
  if (w.served) return remote_unlock(w, target);
  WinControl& c = w.control_of(target);
  if (exclusive) {
    c.lock.store(0, std::memory_order_release);
  } else {
    c.lock.fetch_sub(1, std::memory_order_release);
  }
  return ok_status();
}

bool any_lock(const Win& w) {
  for (std::int8_t l : w.locked)
    if (l != 0) return true;
  return w.lock_all;
}

int check_target(const Call& call, const Win& w, int rank) {
  int n = static_cast<int>(w.targets.size());
  if (rank < 0 || rank >= n) {
    return raise_win(call, w.handle, MPI_ERR_RANK,
                     "argument rank %d is not a rank of the window (size %d)", rank, n);
  }
  return MPI_SUCCESS;
}

// The ranks in the window of `group`'s members, or the error.
int group_ranks(const Call& call, const Win& w, MPI_Group group, std::vector<int>& ranks) {
  int n = 0;
  if (group == MPI_GROUP_NULL || PMPI_Group_size(group, &n) != MPI_SUCCESS)
    return raise_win(call, w.handle, MPI_ERR_GROUP, "argument group is not a group");
  MPI_Group all;
  PMPI_Comm_group(w.comm, &all);
  std::vector<int> in(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  ranks.assign(static_cast<std::size_t>(n), MPI_UNDEFINED);
  PMPI_Group_translate_ranks(group, n, in.data(), all, ranks.data());
  PMPI_Group_free(&all);
  for (int r : ranks)
    if (r == MPI_UNDEFINED)
      return raise_win(call, w.handle, MPI_ERR_GROUP, "argument group has a non-member");
  return MPI_SUCCESS;
}

int check_assert(const Call& call, const Win& w, int assert_bits, int allowed) {
  if ((assert_bits & ~allowed) != 0) {
    return raise_win(call, w.handle, MPI_ERR_ASSERT,
                     "argument assert %#x holds bits that this call does not take", assert_bits);
  }
  return MPI_SUCCESS;
}

int fence(const Call& call, Win& w, int assert_bits) {
  int rc =
      check_assert(call, w, assert_bits,
                   MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED);
  if (rc == MPI_SUCCESS && (any_lock(w) || w.started || w.posted)) {
    rc = raise_win(call, w.handle, MPI_ERR_RMA_SYNC,
                   "argument win: a passive-target or post/start epoch is open on the window");
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // The agreement is the fence's barrier: every member's operations of the epoch are done.
  if (!all_agree(w.comm, rc == MPI_SUCCESS))
    return rc != MPI_SUCCESS ? rc : raise_win(call, w.handle, MPI_ERR_ARG, "%s", kRefusedByAnother);
  w.fence = (assert_bits & MPI_MODE_NOSUCCEED) == 0;
  return MPI_SUCCESS;
}

int lock(const Call& call, Win& w, int lock_type, int rank, int assert_bits) {
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED) {
    return raise_win(call, w.handle, MPI_ERR_LOCKTYPE,
                     "argument lock_type %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED",
                     lock_type);
  }
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int rc = check_target(call, w, rank); rc != MPI_SUCCESS) return rc;
  if (int rc = check_assert(call, w, assert_bits, MPI_MODE_NOCHECK); rc != MPI_SUCCESS) return rc;
  if (w.locked[rank] != 0 || w.lock_all) {
    return raise_win(call, w.handle, MPI_ERR_RMA_SYNC,
                     "argument win: this process holds a lock on rank %d already", rank);
  }
  Status st =
      take_lock(w, rank, lock_type == MPI_LOCK_EXCLUSIVE, (assert_bits & MPI_MODE_NOCHECK) != 0);
  return st.ok() ? MPI_SUCCESS : raise_win_status(call, w.handle, st);
}

// A served window answers the other members' requests in progress: a program that waits for
// them in a loop of RMA calls that need no message (MPI_Win_sync, flushes; OpenCoarrays' event
// wait) must answer them meanwhile, or both sides wait.
void serve(const Win& w) {
  if (w.served) progress::engine().poll();
}

// The flushes: the operations are complete already; order memory: a put's stores before this
// process's later loads (two origins that each put and then get the other's flag must not both
// read the old value), a get's loads before what follows. Where only gets came since the last
// flush, the loads' barrier suffices (osu_get_latency -np 2 8 B: 21.5 -> 15.7 ns). A shared
// window's members also store to it directly: every flush there is a full barrier. Inline:
// osu_put_latency flushes after each put.
inline int flush(const Call& call, Win& w, int rank) {
  serve(w);
  if (rank != -1 && rank != MPI_PROC_NULL) {
    if (int rc = check_target(call, w, rank); rc != MPI_SUCCESS) return rc;
  }
  bool open = w.lock_all || (rank >= 0 ? w.locked[rank] != 0 : any_lock(w));
  if (!open && rank != MPI_PROC_NULL) {
    return raise_win(
        call, w.handle, MPI_ERR_RMA_SYNC,
        "argument win: no passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) is open");
  }
  if (w.stores_pending || w.flavor == MPI_WIN_FLAVOR_SHARED) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    w.stores_pending = false;
  } else {
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Win_fence(int assert_bits, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_fence");
  GPURUN_CHECK_WIN(w, win);
  return fence(call, *w, assert_bits);
}

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert_bits, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_lock");
  GPURUN_CHECK_WIN(w, win);
  return lock(call, *w, lock_type, rank, assert_bits);
}

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_unlock");
  GPURUN_CHECK_WIN(w, win);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int rc = check_target(call, *w, rank); rc != MPI_SUCCESS) return rc;
  if (w->locked[rank] == 0) {
    return raise_win(call, win, MPI_ERR_RMA_SYNC,
                     "argument win: this process holds no MPI_Win_lock on rank %d", rank);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  gpurun::Status st = drop_lock(*w, rank);
  return st.ok() ? MPI_SUCCESS : raise_win_status(call, win, st);
}

extern "C" int PMPI_Win_lock_all(int assert_bits, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_lock_all");
  GPURUN_CHECK_WIN(w, win);
  if (int rc = check_assert(call, *w, assert_bits, MPI_MODE_NOCHECK); rc != MPI_SUCCESS) return rc;
  if (any_lock(*w)) {
    return raise_win(call, win, MPI_ERR_RMA_SYNC,
                     "argument win: this process holds a lock on the window already");
  }
  gpurun::Status st;
  for (std::size_t r = 0; r < w->targets.size() && st.ok(); ++r)
    st = take_lock(*w, static_cast<int>(r), false, (assert_bits & MPI_MODE_NOCHECK) != 0);
  w->lock_all = true;
  return st.ok() ? MPI_SUCCESS : raise_win_status(call, win, st);
}

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_unlock_all");
  GPURUN_CHECK_WIN(w, win);
  if (!w->lock_all)
    return raise_win(call, win, MPI_ERR_RMA_SYNC,
                     "argument win: no MPI_Win_lock_all came before it");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  gpurun::Status st;
  for (std::size_t r = 0; r < w->targets.size(); ++r) {
    gpurun::Status one = drop_lock(*w, static_cast<int>(r));
    if (st.ok()) st = one;
  }
  w->lock_all = false;
  return st.ok() ? MPI_SUCCESS : raise_win_status(call, win, st);
}

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_flush");
  GPURUN_CHECK_WIN(w, win);
  return flush(call, *w, rank);
}

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_flush_local");
  GPURUN_CHECK_WIN(w, win);
  return flush(call, *w, rank);
}

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_flush_all");
  GPURUN_CHECK_WIN(w, win);
  return flush(call, *w, -1);
}

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_flush_local_all");
  GPURUN_CHECK_WIN(w, win);
  return flush(call, *w, -1);
}

extern "C" int PMPI_Win_sync(MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_sync");
  GPURUN_CHECK_WIN(w, win);
  serve(*w);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

// Exposure epoch: each origin of `group` learns it may start.
extern "C" int PMPI_Win_post(MPI_Group group, int assert_bits, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_post");
  GPURUN_CHECK_WIN(w, win);
  if (w->posted)
    return raise_win(call, win, MPI_ERR_RMA_SYNC, "argument win: MPI_Win_post came twice");
  if (int rc =
          check_assert(call, *w, assert_bits, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT);
      rc != MPI_SUCCESS) {
    return rc;
  }
  if (int rc = group_ranks(call, *w, group, w->exposure_group); rc != MPI_SUCCESS) return rc;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r : w->exposure_group) PMPI_Send(nullptr, 0, MPI_BYTE, r, kPostedTag, w->comm);
  w->posted = true;
  return MPI_SUCCESS;
}

// Access epoch: waits until every target of `group` has posted.
extern "C" int PMPI_Win_start(MPI_Group group, int assert_bits, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_start");
  GPURUN_CHECK_WIN(w, win);
  if (w->started)
    return raise_win(call, win, MPI_ERR_RMA_SYNC, "argument win: MPI_Win_start came twice");
  if (int rc = check_assert(call, *w, assert_bits, MPI_MODE_NOCHECK); rc != MPI_SUCCESS) return rc;
  if (int rc = group_ranks(call, *w, group, w->access_group); rc != MPI_SUCCESS) return rc;
  for (int r : w->access_group)
    PMPI_Recv(nullptr, 0, MPI_BYTE, r, kPostedTag, w->comm, MPI_STATUS_IGNORE);
  w->started = true;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_complete(MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_complete");
  GPURUN_CHECK_WIN(w, win);
  if (!w->started)
    return raise_win(call, win, MPI_ERR_RMA_SYNC, "argument win: no MPI_Win_start came before it");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r : w->access_group) PMPI_Send(nullptr, 0, MPI_BYTE, r, kCompletedTag, w->comm);
  w->started = false;
  w->access_group.clear();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_wait(MPI_Win win) {
  GPURUN_API_ENTER("MPI_Win_wait");
  GPURUN_CHECK_WIN(w, win);
  if (!w->posted)
    return raise_win(call, win, MPI_ERR_RMA_SYNC, "argument win: no MPI_Win_post came before it");
  for (int r : w->exposure_group)
    PMPI_Recv(nullptr, 0, MPI_BYTE, r, kCompletedTag, w->comm, MPI_STATUS_IGNORE);
  w->exposure_group.clear();
  w->posted = false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

// MPI_Win_wait that does not wait: the origins that completed are taken off the list.
extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  GPURUN_API_ENTER("MPI_Win_test");
  GPURUN_CHECK_WIN(w, win);
  if (flag == nullptr) return raise_win(call, win, MPI_ERR_ARG, "argument flag is a null pointer");
  if (!w->posted)
    return raise_win(call, win, MPI_ERR_RMA_SYNC, "argument win: no MPI_Win_post came before it");
  std::vector<int> left;
  for (int r : w->exposure_group) {
    int arrived = 0;
    PMPI_Iprobe(r, kCompletedTag, w->comm, &arrived, MPI_STATUS_IGNORE);
    if (arrived) {
      PMPI_Recv(nullptr, 0, MPI_BYTE, r, kCompletedTag, w->comm, MPI_STATUS_IGNORE);
    } else {
      left.push_back(r);
    }
  }
  w->exposure_group = std::move(left);
  *flag = w->exposure_group.empty() ? 1 : 0;
  if (*flag) w->posted = false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Win_fence)
GPURUN_MPI_ALIAS(MPI_Win_lock)
GPURUN_MPI_ALIAS(MPI_Win_unlock)
GPURUN_MPI_ALIAS(MPI_Win_lock_all)
GPURUN_MPI_ALIAS(MPI_Win_unlock_all)
GPURUN_MPI_ALIAS(MPI_Win_flush)
GPURUN_MPI_ALIAS(MPI_Win_flush_local)
GPURUN_MPI_ALIAS(MPI_Win_flush_all)
GPURUN_MPI_ALIAS(MPI_Win_flush_local_all)
GPURUN_MPI_ALIAS(MPI_Win_sync)
GPURUN_MPI_ALIAS(MPI_Win_post)
GPURUN_MPI_ALIAS(MPI_Win_start)
GPURUN_MPI_ALIAS(MPI_Win_complete)
GPURUN_MPI_ALIAS(MPI_Win_wait)
GPURUN_MPI_ALIAS(MPI_Win_test)
