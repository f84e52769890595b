// What every MPI C function does on entry and on error.
//
// Each function is written as PMPI_x and exported as a weak MPI_x alias (the profiling
// interface), begins with GPURUN_API_ENTER("MPI_x"), checks every argument, and reports a bad
// one through api::raise(), which builds an error code carrying a message that names the call,
// the argument and the rank, and runs the communicator's error handler.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "api/progress_helper.h"
#include "runtime/base/status.h"

namespace gpurun::api {

enum class Phase : std::uint8_t { kBefore, kInitialized, kFinalized };

extern std::atomic<Phase> g_phase;
inline Phase phase() { return g_phase.load(std::memory_order_acquire); }

// MPI_THREAD_MULTIPLE: one lock serialises the library; a thread waiting for its requests
// releases it while it finds nothing to do. Functions that hold it never call another PMPI_
// function (they share internal functions instead); a user callback that calls MPI takes it
// again (it is recursive). Once the progress helper exists (api/progress_helper.h), every call
// takes it and counts itself in, whatever the thread level.
extern bool g_thread_multiple;
// Calls in progress (nested ones included), changed only by a thread that may make calls alone
// or holds the lock: what the progress helper's start waits for.
extern int g_call_depth;
std::recursive_mutex& big_lock();
// A waiting thread that holds the lock lets the others in for a moment (MPI_THREAD_MULTIPLE).
inline void let_other_threads_in() {
  big_lock().unlock();
  sched_yield();
  big_lock().lock();
}
class BigLock {
 public:
  BigLock() : counted_(helper::on()), held_(g_thread_multiple || counted_) {
    if (counted_) helper::enter();
    if (held_) big_lock().lock();
    ++g_call_depth;
  }
  ~BigLock() {
    --g_call_depth;
    if (held_) big_lock().unlock();
    if (counted_)
      helper::leave();
    else if (helper::on()) [[unlikely]]
      helper::leave_uncounted();
  }
  BigLock(const BigLock&) = delete;
  BigLock& operator=(const BigLock&) = delete;

 private:
  bool counted_;
  bool held_;
};

struct Call {
  const char* name;  // "MPI_Send"
};

// Runs the error handler of `comm` (MPI_COMM_WORLD's when comm is MPI_COMM_NULL or not a
// communicator) for an error of `error_class`; the message is printf-formatted and gets the
// call's name and this process's rank around it. Returns the error code to return.
int raise(const Call& call, MPI_Comm comm, int error_class, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
// The error code raise() builds, message and all, without running any error handler: for the
// errors of MPI-IO, whose default handler is MPI_ERRORS_RETURN.
int error_code(const Call& call, int error_class, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
// The same from a va_list, giving the message too (for the handlers of files and windows).
int error_code_v(const Call& call, int error_class, std::string* message, const char* fmt,
                 va_list args);
// The same as raise() for an internal Status, mapped to its MPI error class.
int raise_status(const Call& call, MPI_Comm comm, const Status& status);
// The MPI error class for an internal error code.
int error_class_of(ErrorCode code);
// Reports a call made before MPI_Init or after MPI_Finalize; returns the error code.
int outside_init(const Call& call);

// Reports MPI_ERR_NO_MEM on `comm` for a call whose argument `arg` asked for more memory than
// the process can have; returns the error code.
int out_of_memory(const Call& call, MPI_Comm comm, const char* arg);

// Runs `body`, the work of `call` after its checks, when that work allocates in proportion to
// argument `arg`, a count: a count far beyond the arrays passed (an unset variable, most
// often) then ends in MPI_ERR_NO_MEM through the error handler instead of ending the process.
template <class Body>
int guard_memory(const Call& call, MPI_Comm comm, const char* arg, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return out_of_memory(call, comm, arg);
  } catch (const std::length_error&) {
    return out_of_memory(call, comm, arg);
  }
}

}  // namespace gpurun::api

#define GPURUN_API_ENTER(call_name)                                           \
  const ::gpurun::api::Call call{call_name};                                  \
  if (::gpurun::api::phase() != ::gpurun::api::Phase::kInitialized) [[unlikely]] \
    return ::gpurun::api::outside_init(call);                                    \
  const ::gpurun::api::BigLock gpurun_big_lock_

// Exports MPI_name as a weak alias of PMPI_name, so profiling tools can interpose MPI_name.
#define GPURUN_MPI_ALIAS(name) \
  extern "C" __attribute__((weak, alias("P" #name))) decltype(P##name) name;

// Checks a pointer argument that must not be null.
#define GPURUN_CHECK_NOT_NULL(comm, arg)                                              \
  do {                                                                                \
    if ((arg) == nullptr) [[unlikely]]                                                \
      return ::gpurun::api::raise(call, comm, MPI_ERR_ARG, "argument " #arg " is a null pointer"); \
  } while (0)
