// Attributes on communicators: keyvals (with their copy and delete callbacks), the values
// that users attach to communicators, and the predefined attributes (MPI_TAG_UB, MPI_HOST,
// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE), which every
// communicator carries and no one may set or delete.
//
// Callback order: a duplicate gets the attributes copied in the order they were first set on
// the parent; freeing a communicator deletes them in the reverse order (last set first), as
// MPI_Finalize does for MPI_COMM_SELF.
//
// User callbacks run without the library's lock under MPI_THREAD_MULTIPLE, so that they may
// call MPI functions.
#pragma once

#include <mpi.h>

#include <vector>

#include "api/call.h"
#include "api/state.h"

namespace gpurun::api {

enum class KeyvalKind : std::uint8_t { kComm, kWin, kType };

// A keyval: callbacks and extra state, alive while its handle or an attribute refers to it.
struct Keyval {
  KeyvalKind kind = KeyvalKind::kComm;
  MPI_Comm_copy_attr_function* copy = nullptr;     // null: MPI_COMM_NULL_COPY_FN
  MPI_Comm_delete_attr_function* erase = nullptr;  // null: MPI_COMM_NULL_DELETE_FN
  MPI_Win_delete_attr_function* win_erase = nullptr;  // a window keyval's (kWin)
  MPI_Type_copy_attr_function* type_copy = nullptr;   // a datatype keyval's (kType)
  MPI_Type_delete_attr_function* type_erase = nullptr;
  void* extra_state = nullptr;
  int refs = 1;               // the user's handle until freed, plus each attribute using it
  bool handle_freed = false;  // MPI_Comm_free_keyval was called
};

// Copies `from`'s attributes (on communicator `old_handle`) for a duplicate, through the copy
// callbacks. Returns MPI_SUCCESS, or the error code of the callback that failed (the copies
// made before it are dropped, without delete callbacks); `failed_keyval` names it.
int copy_attributes(MPI_Comm old_handle, const CommEntry& from, std::vector<Attribute>* out,
                    int* failed_keyval);
// Deletes every attribute of `entry` (handle `handle`), last set first. Returns MPI_SUCCESS or
// the error of the first delete callback that failed (that attribute and the ones set before
// it stay); `failed_keyval` names it.
int delete_attributes(MPI_Comm handle, CommEntry& entry, int* failed_keyval);
// Forgets attributes without calling their delete callbacks (a creation that failed).
void drop_attributes(std::vector<Attribute>& attributes);

// Runs a user callback without the library's lock (under MPI_THREAD_MULTIPLE), so that it may
// call MPI functions.
class UserCallbackScope {
 public:
  UserCallbackScope() : held_(g_thread_multiple) {
    if (held_) big_lock().unlock();
  }
  ~UserCallbackScope() {
    if (held_) big_lock().lock();
  }
  UserCallbackScope(const UserCallbackScope&) = delete;
  UserCallbackScope& operator=(const UserCallbackScope&) = delete;

 private:
  bool held_;
};

// Reports a callback's failure through the communicator's error handler.
int raise_callback_error(const Call& call, MPI_Comm comm, const char* what, int keyval, int code);

}  // namespace gpurun::api
