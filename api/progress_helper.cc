#include "api/progress_helper.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

#include "api/call.h"
#include "api/state.h"
#include "runtime/base/log.h"
#include "runtime/progress/params.h"
#include "runtime/progress/progress.h"

namespace gpurun::api::helper {

std::atomic<bool> g_on{false};

namespace {

std::atomic<int> g_calls{0};    // calls in progress, while the helper exists
std::atomic<int> g_pending{0};  // helped collectives pending (changed under the lock)
std::atomic<bool> g_stopping{false};

class Helper {
 public:
  // False when the system gives no thread.
  bool start() {
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
      return false;
    }
    return true;
  }
  // Wakes the thread if it sleeps; an awake one sees the change itself.
  void kick() {
    if (!sleeping_.load(std::memory_order_seq_cst)) return;
    const std::lock_guard<std::mutex> guard(mutex_);
    wake_.notify_one();
  }
  // Ends the thread, from the process that started it (a forked child has no thread to end).
  void stop() {
    if (getpid() != pid_ || !thread_.joinable()) return;
    g_stopping.store(true, std::memory_order_relaxed);
    {
      const std::lock_guard<std::mutex> guard(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

 private:
  static bool ready() {
    return g_pending.load(std::memory_order_seq_cst) > 0 &&
           g_calls.load(std::memory_order_seq_cst) == 0;
  }
  void run();
  static void serve();

  std::thread thread_;
  pid_t pid_ = getpid();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> sleeping_{false};
  bool stop_ = false;  // under mutex_
};

Helper* g_helper = nullptr;
bool g_start_locked = false;  // the lock taken by the call that started the helper
bool g_start_failed = false;  // no thread could be started: no helper for the job

void Helper::run() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);  // signals go to the application's threads
  pthread_setname_np(pthread_self(), "gpurun-progress");
  std::unique_lock<std::mutex> guard(mutex_);
  while (!stop_) {
    if (!ready()) {
      sleeping_.store(true, std::memory_order_seq_cst);
      if (!ready()) wake_.wait(guard);
      sleeping_.store(false, std::memory_order_relaxed);
      continue;
    }
    guard.unlock();
    serve();
    guard.lock();
  }
}

// Polls under the lock until a call comes in or nothing helped is pending. The lock is only
// ever held by calls (counted, or the one starting the helper): when it is taken, give way.
void Helper::serve() {
  if (!big_lock().try_lock()) {
    sched_yield();
    return;
  }
  progress::engine().wait([] {
    return g_calls.load(std::memory_order_relaxed) != 0 ||
           g_pending.load(std::memory_order_relaxed) == 0 ||
           g_stopping.load(std::memory_order_relaxed);
  });
  big_lock().unlock();
}

// The host's CPUs: the cores gpurun placed the ranks on when it says (a container's cpuset
// may hold fewer than the machine), the online CPUs otherwise.
bool spare_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return false;
  const bootstrap::JobInfo& job = state().bootstrap->job();
  long host = job.cores ? *job.cores : sysconf(_SC_NPROCESSORS_ONLN);
  bool spare = progress::spare_cpu(CPU_COUNT(&set), host, job.local_size);
  GPURUN_LOG(info, coll, "progress helper %s: this rank may run on %d CPUs, %ld %s for %d ranks",
             spare ? "allowed" : "off (GPURUN_PROGRESS_HELPER=on forces it)", CPU_COUNT(&set), host,
             job.cores ? "cores gpurun places ranks on" : "online CPUs", job.local_size);
  return spare;
}

bool allowed() {
  static const bool allowed = [] {
    switch (progress::params::helper().get()) {
      case progress::HelperMode::kOn:
        return true;
      case progress::HelperMode::kOff:
        return false;
      case progress::HelperMode::kAuto:
        break;
    }
    return spare_cpu();
  }();
  return allowed;
}

}  // namespace

bool available() { return allowed(); }

void enter() {
  g_calls.fetch_add(1, std::memory_order_seq_cst);
  // The helper may sleep on the doorbell in its wait, holding the lock.
  if (progress::Doorbell* bell = progress::engine().doorbell(); bell != nullptr) bell->ring();
}

void leave() {
  if (g_calls.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      g_pending.load(std::memory_order_relaxed) > 0)
    g_helper->kick();
}

void leave_uncounted() {
  // Without MPI_THREAD_MULTIPLE the call that started the helper took the lock; the outermost
  // of the calls it was nested in gives it back.
  if (g_start_locked && g_call_depth == 0) {
    g_start_locked = false;
    big_lock().unlock();
  }
  if (g_calls.load(std::memory_order_seq_cst) == 0 && g_pending.load(std::memory_order_relaxed) > 0)
    g_helper->kick();
}

bool wanted(long long bytes) {
  return bytes >= 0 &&
         static_cast<std::uint64_t>(bytes) >= progress::params::helper_size().get().bytes &&
         allowed();
}

namespace {

// Starts the helper from a call (helped_begin), or leaves it off for good if no thread starts.
void start_helper() {
  // The calling call holds the lock under MPI_THREAD_MULTIPLE; otherwise it takes it now, and
  // the outermost call in progress gives it back as it ends (leave_uncounted), so that the
  // helper never polls beside the calls that began before it.
  if (!g_thread_multiple) {
    big_lock().lock();
    g_start_locked = true;
  }
  auto* helper = new Helper();  // never deleted: ranks may exit without MPI_Finalize
  if (!helper->start()) {
    delete helper;
    g_start_failed = true;
    if (g_start_locked) {
      g_start_locked = false;
      big_lock().unlock();
    }
    GPURUN_LOG(warn, coll,
               "progress helper: no thread could be started; large nonblocking "
               "collectives progress only inside MPI calls");
    return;
  }
  g_helper = helper;
  g_on.store(true, std::memory_order_seq_cst);
  // A rank that exits without MPI_Finalize must not unmap what the helper polls under it.
  std::atexit(stop);
  GPURUN_LOG(info, coll, "progress helper started for collectives of %llu bytes or more",
             static_cast<unsigned long long>(progress::params::helper_size().get().bytes));
}

}  // namespace

void helped_begin() {
  g_pending.fetch_add(1, std::memory_order_relaxed);
  if (g_helper == nullptr && !g_start_failed) start_helper();
}

void helped_end() { g_pending.fetch_sub(1, std::memory_order_relaxed); }

void stop() {
  if (g_helper == nullptr) return;
  g_helper->stop();
}

}  // namespace gpurun::api::helper
