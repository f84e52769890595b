// The tool information interface (MPI_T), without variables: gpurun exposes no control or
// performance variable, category, event or event source, so a tool that starts MPI_T finds zero
// of each, every index is MPI_T_ERR_INVALID_INDEX, every name MPI_T_ERR_INVALID_NAME and every
// handle MPI_T_ERR_INVALID_HANDLE. Performance-variable sessions work (a tool creates one before
// it asks for handles), as do MPI_T_PVAR_ALL_HANDLES's start, stop and reset, which have nothing
// to act on. MPI_T may be used before MPI_Init and after MPI_Finalize, from any thread, and
// returns its codes instead of running error handlers (the standard's rules).
#include <mpi.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "api/call.h"

// The session objects behind MPI_T_pvar_session handles.
struct MPIR_T_pvar_session_s {};

namespace gpurun::api {
namespace {

struct ToolState {
  std::mutex mutex;
  int initialized = 0;  // MPI_T_init_thread calls not yet finalized
  std::set<MPI_T_pvar_session> sessions;
};

ToolState& tools() {
  static auto* state = new ToolState();
  return *state;
}

// MPI_SUCCESS if MPI_T is initialized; else its error.
int check_initialized() {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  return t.initialized > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}

// For the calls that read a count of something gpurun has none of.
int count_none(int* num) {
  if (int rc = check_initialized(); rc != MPI_SUCCESS) return rc;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = 0;
  return MPI_SUCCESS;
}

// For the calls that name an index: there is none to name.
int no_index() {
  if (int rc = check_initialized(); rc != MPI_SUCCESS) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

// For the calls that look a variable up by name.
int no_name(const char* name, const int* out) {
  if (int rc = check_initialized(); rc != MPI_SUCCESS) return rc;
  if (name == nullptr || out == nullptr) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_INVALID_NAME;
}

// For the calls that take a handle (of a variable, an enumeration, an event): none exists.
int no_handle() {
  if (int rc = check_initialized(); rc != MPI_SUCCESS) return rc;
  return MPI_T_ERR_INVALID_HANDLE;
}

// For the calls on a performance-variable session and a handle in it. `all_allowed`: the call
// accepts MPI_T_PVAR_ALL_HANDLES, which stands for the session's handles (here, none).
int session_and_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_allowed) {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  if (t.initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (!t.sessions.contains(session)) return MPI_T_ERR_INVALID_SESSION;
  if (all_allowed && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
  return MPI_T_ERR_INVALID_HANDLE;
}

// MPI_T_pvar_handle_alloc: a valid session, but no variable to make a handle for.
int pvar_handle_alloc(MPI_T_pvar_session session) {
  int rc = session_and_handle(session, MPI_T_PVAR_HANDLE_NULL, false);
  return rc == MPI_T_ERR_INVALID_HANDLE ? MPI_T_ERR_INVALID_INDEX : rc;
}

int init_thread(int required, int* provided) {
  if (provided == nullptr) return MPI_T_ERR_INVALID;
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  ++t.initialized;
  *provided = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  return MPI_SUCCESS;
}

// The last MPI_T_finalize ends the sessions: their handles become invalid.
int finalize() {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  if (t.initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (--t.initialized == 0) {
    for (MPI_T_pvar_session s : t.sessions) delete s;
    t.sessions.clear();
  }
  return MPI_SUCCESS;
}

int session_create(MPI_T_pvar_session* session) {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  if (t.initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr) return MPI_T_ERR_INVALID;
  *session = new MPIR_T_pvar_session_s();
  t.sessions.insert(*session);
  return MPI_SUCCESS;
}

int session_free(MPI_T_pvar_session* session) {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  if (t.initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr || t.sessions.erase(*session) == 0) return MPI_T_ERR_INVALID_SESSION;
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

namespace t = gpurun::api;

// Each MPI_T function as PMPI_T_x with its weak MPI_T_x alias.
#define GPURUN_TOOL_FN(name, params, body)       \
  extern "C" int P##name params { return body; } \
  GPURUN_MPI_ALIAS(name)

GPURUN_TOOL_FN(MPI_T_init_thread, (int required, int* provided), t::init_thread(required, provided))
GPURUN_TOOL_FN(MPI_T_finalize, (), t::finalize())

// Control variables
GPURUN_TOOL_FN(MPI_T_cvar_get_num, (int* num_cvar), t::count_none(num_cvar))
GPURUN_TOOL_FN(MPI_T_cvar_get_info,
               (int, char*, int*, int*, MPI_Datatype*, MPI_T_enum*, char*, int*, int*, int*),
               t::no_index())
GPURUN_TOOL_FN(MPI_T_cvar_get_index, (const char* name, int* cvar_index),
               t::no_name(name, cvar_index))
GPURUN_TOOL_FN(MPI_T_cvar_handle_alloc, (int, void*, MPI_T_cvar_handle*, int*), t::no_index())
GPURUN_TOOL_FN(MPI_T_cvar_handle_free, (MPI_T_cvar_handle*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_cvar_read, (MPI_T_cvar_handle, void*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_cvar_write, (MPI_T_cvar_handle, const void*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_enum_get_info, (MPI_T_enum, int*, char*, int*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_enum_get_item, (MPI_T_enum, int, int*, char*, int*), t::no_handle())

// Performance variables and their sessions
GPURUN_TOOL_FN(MPI_T_pvar_get_num, (int* num_pvar), t::count_none(num_pvar))
GPURUN_TOOL_FN(MPI_T_pvar_get_info,
               (int, char*, int*, int*, int*, MPI_Datatype*, MPI_T_enum*, char*, int*, int*, int*,
                int*, int*),
               t::no_index())
GPURUN_TOOL_FN(MPI_T_pvar_get_index, (const char* name, int, int* pvar_index),
               t::no_name(name, pvar_index))
GPURUN_TOOL_FN(MPI_T_pvar_session_create, (MPI_T_pvar_session * session),
               t::session_create(session))
GPURUN_TOOL_FN(MPI_T_pvar_session_free, (MPI_T_pvar_session * session), t::session_free(session))
GPURUN_TOOL_FN(MPI_T_pvar_handle_alloc,
               (MPI_T_pvar_session session, int, void*, MPI_T_pvar_handle*, int*),
               t::pvar_handle_alloc(session))
GPURUN_TOOL_FN(MPI_T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle* handle),
               t::session_and_handle(session, handle ? *handle : MPI_T_PVAR_HANDLE_NULL, false))
GPURUN_TOOL_FN(MPI_T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle),
               t::session_and_handle(session, handle, true))
GPURUN_TOOL_FN(MPI_T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle),
               t::session_and_handle(session, handle, true))
GPURUN_TOOL_FN(MPI_T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle),
               t::session_and_handle(session, handle, true))
GPURUN_TOOL_FN(MPI_T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void*),
               t::session_and_handle(session, handle, false))
GPURUN_TOOL_FN(MPI_T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void*),
               t::session_and_handle(session, handle, false))
GPURUN_TOOL_FN(MPI_T_pvar_write,
               (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void*),
               t::session_and_handle(session, handle, false))

// Categories
GPURUN_TOOL_FN(MPI_T_category_get_num, (int* num_cat), t::count_none(num_cat))
GPURUN_TOOL_FN(MPI_T_category_changed, (int* update_number), t::count_none(update_number))
GPURUN_TOOL_FN(MPI_T_category_get_info, (int, char*, int*, char*, int*, int*, int*, int*),
               t::no_index())
GPURUN_TOOL_FN(MPI_T_category_get_index, (const char* name, int* cat_index),
               t::no_name(name, cat_index))
GPURUN_TOOL_FN(MPI_T_category_get_num_events, (int, int*), t::no_index())
GPURUN_TOOL_FN(MPI_T_category_get_categories, (int, int, int*), t::no_index())
GPURUN_TOOL_FN(MPI_T_category_get_cvars, (int, int, int*), t::no_index())
GPURUN_TOOL_FN(MPI_T_category_get_pvars, (int, int, int*), t::no_index())
GPURUN_TOOL_FN(MPI_T_category_get_events, (int, int, int*), t::no_index())

// Events and their sources
GPURUN_TOOL_FN(MPI_T_event_get_num, (int* num_events), t::count_none(num_events))
GPURUN_TOOL_FN(MPI_T_source_get_num, (int* num_sources), t::count_none(num_sources))
GPURUN_TOOL_FN(MPI_T_event_get_info,
               (int, char*, int*, int*, MPI_Datatype*, MPI_Aint*, int*, MPI_T_enum*, MPI_Info*,
                char*, int*, int*),
               t::no_index())
GPURUN_TOOL_FN(MPI_T_event_get_index, (const char* name, int* event_index),
               t::no_name(name, event_index))
GPURUN_TOOL_FN(MPI_T_event_handle_alloc, (int, void*, MPI_Info, MPI_T_event_registration*),
               t::no_index())
GPURUN_TOOL_FN(MPI_T_source_get_info,
               (int, char*, int*, char*, int*, MPI_T_source_order*, MPI_Count*, MPI_Count*,
                MPI_Info*),
               t::no_index())
GPURUN_TOOL_FN(MPI_T_source_get_timestamp, (int, MPI_Count*), t::no_index())
GPURUN_TOOL_FN(MPI_T_event_handle_free,
               (MPI_T_event_registration, void*, MPI_T_event_free_cb_function), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_handle_get_info, (MPI_T_event_registration, MPI_Info*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_handle_set_info, (MPI_T_event_registration, MPI_Info), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_register_callback,
               (MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                MPI_T_event_cb_function),
               t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_callback_get_info,
               (MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_callback_set_info, (MPI_T_event_registration, MPI_T_cb_safety, MPI_Info),
               t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_set_dropped_handler,
               (MPI_T_event_registration, MPI_T_event_dropped_cb_function), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_copy, (MPI_T_event_instance, void*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_read, (MPI_T_event_instance, int, void*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_get_timestamp, (MPI_T_event_instance, MPI_Count*), t::no_handle())
GPURUN_TOOL_FN(MPI_T_event_get_source, (MPI_T_event_instance, int*), t::no_handle())
