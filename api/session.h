// Sessions (api/session.cc) as the other API files see them: a session's state, its lookup by
// handle, and errors through its handler.
#pragma once

#include <mpi.h>

#include <memory>

#include "api/call.h"
#include "api/errhandler.h"
#include "runtime/core/info.h"

namespace gpurun::api {

struct BsendSlot;  // api/bsend.h

struct Session {
  ErrhandlerRef errhandler;
  std::unique_ptr<core::Info> info;  // what MPI_Session_get_info gives back
  // MPI_Session_attach_buffer's buffer, for the communicators derived from the session; null
  // until one is attached.
  std::shared_ptr<BsendSlot> bsend;
};

// The session a handle names, or nullptr (null, finalized, not a session).
Session* find_session(MPI_Session handle);

// The error for `call` through the handler of `session` (MPI_ERRORS_ARE_FATAL when it names
// none); returns the code.
__attribute__((format(printf, 4, 5))) int raise_session(const Call& call, MPI_Session session,
                                                        int error_class, const char* fmt, ...);

}  // namespace gpurun::api

// Looks up session `handle` into `s` (a Session*), or fails with MPI_ERR_SESSION.
#define GPURUN_CHECK_SESSION(s, handle)                                                       \
  ::gpurun::api::Session* s = ::gpurun::api::find_session(handle);                            \
  if (s == nullptr) [[unlikely]]                                                              \
  return ::gpurun::api::raise_session(                                                        \
      call, MPI_SESSION_NULL, MPI_ERR_SESSION,                                                \
      (handle) == MPI_SESSION_NULL ? "argument session is MPI_SESSION_NULL"                   \
                                   : "argument session (0x%x) is not a session (finalized?)", \
      static_cast<unsigned>(handle))
