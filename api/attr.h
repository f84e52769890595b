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

// The proxies that MPICH's Fortran bindings give a keyval they make (MPII_Keyval_set_proxy): its
// callbacks are Fortran procedures, which the proxy calls, handed the user's function as a C one
// (every handle is an int in MPICH's ABI) and the attribute's kind (AttrKind's values).
using AttrCopyProxy = int(MPI_Comm_copy_attr_function* user_function, int handle, int keyval,
                          void* extra_state, int kind, void* value, void** copy, int* flag);
using AttrDeleteProxy = int(MPI_Comm_delete_attr_function* user_function, int handle, int keyval,
                            int kind, void* value, void* extra_state);

// A keyval: callbacks and extra state, alive while its handle or an attribute refers to it.
struct Keyval {
  KeyvalKind kind = KeyvalKind::kComm;
  MPI_Comm_copy_attr_function* copy = nullptr;     // null: MPI_COMM_NULL_COPY_FN
  MPI_Comm_delete_attr_function* erase = nullptr;  // null: MPI_COMM_NULL_DELETE_FN
  MPI_Win_delete_attr_function* win_erase = nullptr;  // a window keyval's (kWin)
  MPI_Type_copy_attr_function* type_copy = nullptr;   // a datatype keyval's (kType)
  MPI_Type_delete_attr_function* type_erase = nullptr;
  void* extra_state = nullptr;
  AttrCopyProxy* copy_proxy = nullptr;  // MPII_Keyval_set_proxy's, for Fortran callbacks
  AttrDeleteProxy* delete_proxy = nullptr;
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

// MPI_Comm_set_attr with an attribute of any kind; MPI_Comm_get_attr for a caller of kind `as`.
int set_comm_attr(const Call& call, MPI_Comm comm, Attribute attribute);
int get_comm_attr(const Call& call, MPI_Comm comm, int keyval, void* value, int* flag, AttrKind as);

// An attribute of kind `kind` holding `value` (for an integer kind, the integer).
Attribute make_attribute(int keyval, void* value, AttrKind kind);
// Writes `a`'s value to `out` as a caller of kind `as` takes it: C a pointer (to the integer,
// for a value Fortran set), Fortran an integer (a C pointer as an address; an MPI_ATTR_GET's
// INTEGER gets the low bits).
void deliver_attribute(const Attribute& a, void* out, AttrKind as);
// The same for an integer value that the library keeps, to a Fortran caller (`as` an integer
// kind).
void deliver_integer(MPI_Aint value, void* out, AttrKind as);

// Runs delete callback `fn` of keyval `k` (a communicator's, window's or datatype's function: in
// MPICH's ABI each handle is an int) for attribute `a` of the object `handle`, without the
// library's lock, through the keyval's proxy when it has one. Returns the callback's code.
template <class Fn>
int run_delete_callback(const Keyval& k, Fn* fn, int handle, const Attribute& a) {
  void* extra = k.extra_state;
  AttrDeleteProxy* proxy = k.delete_proxy;
  const UserCallbackScope unlocked;
  if (proxy != nullptr) {
    return proxy(reinterpret_cast<MPI_Comm_delete_attr_function*>(fn), handle, a.keyval,
                 static_cast<int>(a.kind), a.value, extra);
  }
  return fn(handle, a.keyval, a.as_pointer(), extra);
}

// The same for copy callback `fn`: when it succeeds and sets *flag, *copy is the duplicate's
// attribute (of `a`'s kind through a proxy; a pointer from a C function).
template <class Fn>
int run_copy_callback(const Keyval& k, Fn* fn, int handle, const Attribute& a, Attribute* copy,
                      int* flag) {
  void* extra = k.extra_state;
  AttrCopyProxy* proxy = k.copy_proxy;
  void* value = nullptr;
  int rc;
  {
    const UserCallbackScope unlocked;
    rc = proxy != nullptr ? proxy(reinterpret_cast<MPI_Comm_copy_attr_function*>(fn), handle,
                                  a.keyval, extra, static_cast<int>(a.kind), a.value, &value, flag)
                          : fn(handle, a.keyval, extra, a.as_pointer(), &value, flag);
  }
  if (rc == MPI_SUCCESS && *flag != 0)
    *copy = make_attribute(a.keyval, value, proxy != nullptr ? a.kind : AttrKind::kPointer);
  return rc;
}

// Reports a callback's failure through the communicator's error handler.
int raise_callback_error(const Call& call, MPI_Comm comm, const char* what, int keyval, int code);

}  // namespace gpurun::api
