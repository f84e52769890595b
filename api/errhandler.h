// Error handlers on communicators: the predefined ones (MPI_ERRORS_ARE_FATAL,
// MPI_ERRORS_ABORT, MPI_ERRORS_RETURN) and the user functions of MPI_Comm_create_errhandler.
//
// A user handler lives while a handle to it or a communicator refers to it. The user holds one
// reference per handle that MPI gave out (MPI_Comm_create_errhandler and each
// MPI_Comm_get_errhandler) until MPI_Errhandler_free; every communicator that carries the
// handler, and every one being made from a parent that carries it, holds one through its
// ErrhandlerRef. Handles are MPICH-style indirect errhandler handles (0xd4000000 | index), so
// they never collide with the predefined ones (builtin, 0x54000000 | n).
//
// Not thread-safe by itself: callers hold the library's lock (api/call.h), as every MPI call does.
#pragma once

#include <mpi.h>

#include <string>

#include "api/call.h"

namespace gpurun::api {

// A communicator's reference to its error handler. Copying it adds a reference to a user
// handler; destroying it drops one. Predefined handlers are not counted.
class ErrhandlerRef {
 public:
  ErrhandlerRef() = default;  // MPI_ERRORS_ARE_FATAL, the default of every communicator
  // `handle` must be predefined or a live user handler (is_errhandler).
  explicit ErrhandlerRef(MPI_Errhandler handle);
  ErrhandlerRef(const ErrhandlerRef& other);
  ErrhandlerRef(ErrhandlerRef&& other) noexcept;
  ErrhandlerRef& operator=(ErrhandlerRef other) noexcept;
  ~ErrhandlerRef();

  MPI_Errhandler handle() const { return handle_; }

 private:
  MPI_Errhandler handle_ = MPI_ERRORS_ARE_FATAL;
};

// What an errhandler argument is for: any handler (MPI_Errhandler_free), or one made for
// communicators, files, windows or sessions.
enum class ErrhandlerFor : std::uint8_t { kAny, kComm, kFile, kWin, kSession };
// Why `handle` cannot be used `what` for: "" when it can (a predefined handler, or a live user
// handle made for that kind of object).
std::string errhandler_problem(MPI_Errhandler handle, ErrhandlerFor what);
// The function of a user handler: exactly one is set, which says what the handler is for.
struct ErrhandlerFunctions {
  MPI_Comm_errhandler_function* comm = nullptr;
  MPI_File_errhandler_function* file = nullptr;
  MPI_Win_errhandler_function* win = nullptr;
  MPI_Session_errhandler_function* session = nullptr;
};
// MPI_Comm/File/Win_create_errhandler: a new user handler into *errhandler. `arg` names the
// function's argument in the error when it is null.
int create_errhandler(const Call& call, const char* arg, const ErrhandlerFunctions& functions,
                      MPI_Errhandler* errhandler);
// The function of user file handler `handle`, or nullptr.
MPI_File_errhandler_function* file_errhandler_function(MPI_Errhandler handle);
// The function of user window handler `handle`, or nullptr.
MPI_Win_errhandler_function* win_errhandler_function(MPI_Errhandler handle);
// The function of user session handler `handle`, or nullptr.
MPI_Session_errhandler_function* session_errhandler_function(MPI_Errhandler handle);
// One more user handle to a user handler (the *_get_errhandler calls give one out).
void add_errhandler_handle(MPI_Errhandler handle);

// Whether `handle` is one of the predefined handlers.
bool is_predefined_errhandler(MPI_Errhandler handle);
// The function of user handler `handle`, or nullptr when `handle` is predefined or names none.
MPI_Comm_errhandler_function* errhandler_function(MPI_Errhandler handle);

// Runs the handler of communicator `comm` (MPI_COMM_WORLD's when `comm` names none, or before
// MPI_Init and after MPI_Finalize: MPI_ERRORS_ARE_FATAL) for error `code`. Returns after
// MPI_ERRORS_RETURN, or after a user function returned (it is called with a copy of the
// handle and of the code, with the library's lock held: it may call MPI from its own thread).
// Ends the job with `message` for MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT.
void run_errhandler(MPI_Comm comm, int code, const std::string& message);

// Ends the job for an error of `error_class` with `message` (api/errors.cc).
[[noreturn]] void end_job(int error_class, const std::string& message);

}  // namespace gpurun::api
