// MPI_T's start and end, its strings, and events: gpurun has no events or event sources, so a
// tool finds zero of each, every event index is MPI_T_ERR_INVALID_INDEX, every event name
// MPI_T_ERR_INVALID_NAME and every registration or instance MPI_T_ERR_INVALID_HANDLE. Control
// variables and categories: api/tool_cvars.cc, api/tool_categories.cc; performance variables:
// api/tool_pvars.cc.
#include "api/tools.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace gpurun::api {
namespace {

struct ToolState {
  std::mutex mutex;
  int initialized = 0;  // MPI_T_init_thread calls not yet finalized
};

ToolState& tools() {
  static auto* state = new ToolState();
  return *state;
}

// For the calls that read a count of something gpurun has none of.
int count_none(int* num) {
  if (int rc = tool_initialized(); rc != MPI_SUCCESS) return rc;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = 0;
  return MPI_SUCCESS;
}

// For the calls that name an index: there is none to name.
int no_index() {
  if (int rc = tool_initialized(); rc != MPI_SUCCESS) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

// For the calls that look an event up by name.
int no_name(const char* name, const int* out) {
  if (int rc = tool_initialized(); rc != MPI_SUCCESS) return rc;
  if (name == nullptr || out == nullptr) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_INVALID_NAME;
}

// For the calls that take an event registration or instance: none exists.
int no_handle() {
  if (int rc = tool_initialized(); rc != MPI_SUCCESS) return rc;
  return MPI_T_ERR_INVALID_HANDLE;
}

int init_thread(int required, int* provided) {
  if (provided == nullptr) return MPI_T_ERR_INVALID;
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  ++t.initialized;
  *provided = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  return MPI_SUCCESS;
}

// The last MPI_T_finalize ends the sessions and the handles: they become invalid.
int finalize() {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  if (t.initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (--t.initialized == 0) {
    tool_cvars_end();
    tool_pvars_end();
  }
  return MPI_SUCCESS;
}

}  // namespace

int tool_initialized() {
  ToolState& t = tools();
  std::lock_guard lock(t.mutex);
  return t.initialized > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}

void tool_string(std::string_view text, char* buf, int* len) {
  if (len == nullptr) return;
  if (buf != nullptr && *len > 0) {
    std::size_t n = std::min(text.size(), static_cast<std::size_t>(*len - 1));
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
  }
  *len = static_cast<int>(text.size() + 1);
}

}  // namespace gpurun::api

namespace t = gpurun::api;

GPURUN_TOOL_FN(MPI_T_init_thread, (int required, int* provided), t::init_thread(required, provided))
GPURUN_TOOL_FN(MPI_T_finalize, (), t::finalize())

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
