// The progress helper: a thread that progresses large nonblocking and persistent collectives
// while the application is outside MPI, so that they overlap its computation.
//
// A collective on host memory of at least GPURUN_PROGRESS_HELPER_SIZE (the size that
// algorithm selection sees), with a predefined op or none, is "helped" while it is pending;
// so is a CUDA stream with enqueued operations still to pass (api/enqueue.h), whatever the
// rank's CPUs: nobody else may poll while the program waits for the stream.
// The first one starts the thread. From then on every MPI call takes the library's lock and
// counts itself in (enter/leave, from BigLock): the helper polls only while no call is in
// progress and a helped collective is pending, under the lock, and it gives the lock up as
// soon as a call counts itself in (it rings the rank's doorbell in case the helper sleeps on
// it). A call that leaves helped collectives pending wakes the helper as it returns.
//
// Where it runs: the helper inherits the rank's binding. A rank bound to a GPU's NUMA node has
// cores beside its own, and the helper runs there. A rank bound to one core shares it with
// the helper: the collective then progresses while the application is outside MPI, but on its
// core's time.
//
// The helper polls the whole progress engine: what else is pending moves too (messages, other
// collectives, whose user ops may then run on the helper thread). When the system gives no
// thread, a warning says so and collectives progress inside calls only.
//
// Threading: enter/leave from any thread; helped_begin/helped_end and stop under the lock.
#pragma once

#include <atomic>

namespace gpurun::api::helper {

// Whether the helper thread exists (it never goes before MPI_Finalize).
extern std::atomic<bool> g_on;
inline bool on() { return g_on.load(std::memory_order_relaxed); }

// A call begins or ends, while the helper exists.
void enter();
void leave();
// A call that saw no helper as it began ends with one: it started the helper (or, under
// MPI_THREAD_MULTIPLE, ran while another thread did).
void leave_uncounted();

// Whether a collective of `bytes` (selection's size) is helped; the op and memory kind are the
// caller's to check.
bool wanted(long long bytes);
// Whether the helper may run on this rank (GPURUN_PROGRESS_HELPER, or a spare CPU).
bool available();
// A helped collective is pending (starts the helper the first time) / is complete.
void helped_begin();
void helped_end();

// Ends the helper thread (MPI_Finalize).
void stop();

}  // namespace gpurun::api::helper
