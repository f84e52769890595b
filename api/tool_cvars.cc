// MPI_T control variables and categories. Every knob of the library (`gpurun --info params`,
// library knobs) is a control variable of the same name, in registration order: booleans and
// integers are MPI_INT, 64-bit integers MPI_LONG_LONG, sizes MPI_UNSIGNED_LONG_LONG (bytes),
// fractions MPI_DOUBLE, enumerations MPI_INT with an MPI_T_enum of their names, and the rest
// (strings, lists, durations, knobs that may be "auto") MPI_CHAR strings of up to
// kTextCount - 1 characters, in the knob syntax. A value reads as the knob has it (environment,
// parameter file, default or an earlier write). A tool writes one between MPI_T_init_thread and
// MPI_Init (or the first MPI_Session_init): the write counts as an API setting, above the
// environment; once the runtime has started, MPI_T_ERR_CVAR_SET_NEVER, because the runtime
// reads its knobs as it starts. The categories are the knobs' modules (the word after GPURUN_,
// lower case: "pml", "coll" ...), each with its knobs and its performance variables.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/tools.h"
#include "runtime/base/param.h"

// The objects behind MPI_T_cvar_handle and MPI_T_enum handles.
struct MPIR_T_cvar_handle_s {
  gpurun::param::ParamBase* knob;
  int count;
};
struct MPIR_T_enum_s {
  const gpurun::param::ParamBase* knob;
};

namespace gpurun::api {
namespace {

using param::ValueKind;

// Elements of a text variable: its buffer, terminating null included.
constexpr int kTextCount = MPI_MAX_INFO_VAL;

struct CvarState {
  std::mutex mutex;
  std::set<MPI_T_cvar_handle> handles;
  std::map<const param::ParamBase*, std::unique_ptr<MPIR_T_enum_s>> enums;
};

CvarState& cvars() {
  static auto* state = new CvarState();
  return *state;
}

std::span<param::ParamBase* const> knobs() { return param::all(); }

param::ParamBase* knob_at(int index) {
  auto all = knobs();
  return index >= 0 && static_cast<std::size_t>(index) < all.size() ? all[index] : nullptr;
}

MPI_Datatype datatype_of(ValueKind kind) {
  switch (kind) {
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kEnum:
      return MPI_INT;
    case ValueKind::kInt64:
      return MPI_LONG_LONG;
    case ValueKind::kSize:
      return MPI_UNSIGNED_LONG_LONG;
    case ValueKind::kFloat:
      return MPI_DOUBLE;
    case ValueKind::kText:
      return MPI_CHAR;
  }
  return MPI_CHAR;
}

// The writes that change how ranks talk to each other must agree across the job; the log and
// the way a rank waits are its own.
int scope_of(const param::ParamBase& knob) {
  std::string module = tool_module_of(knob.name());
  return module == "log" || module == "progress" ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_ALL_EQ;
}

MPI_T_enum enum_of(const param::ParamBase& knob) {
  if (knob.value_kind() != ValueKind::kEnum) return MPI_T_ENUM_NULL;
  CvarState& s = cvars();
  std::lock_guard lock(s.mutex);
  auto& slot = s.enums[&knob];
  if (!slot) slot = std::make_unique<MPIR_T_enum_s>(MPIR_T_enum_s{&knob});
  return slot.get();
}

int get_num(int* num) {
  if (int rc = tool_initialized()) return rc;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = static_cast<int>(knobs().size());
  return MPI_SUCCESS;
}

int get_info(int index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
             MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  if (int rc = tool_initialized()) return rc;
  const param::ParamBase* knob = knob_at(index);
  if (knob == nullptr) return MPI_T_ERR_INVALID_INDEX;
  tool_string(knob->name(), name, name_len);
  tool_string(knob->doc(), desc, desc_len);
  if (verbosity != nullptr) {
    *verbosity = knob->level() == param::Level::kBasic ? MPI_T_VERBOSITY_USER_BASIC
                                                       : MPI_T_VERBOSITY_TUNER_DETAIL;
  }
  if (datatype != nullptr) *datatype = datatype_of(knob->value_kind());
  if (enumtype != nullptr) *enumtype = enum_of(*knob);
  if (bind != nullptr) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope != nullptr) *scope = scope_of(*knob);
  return MPI_SUCCESS;
}

int get_index(const char* name, int* index) {
  if (int rc = tool_initialized()) return rc;
  if (name == nullptr || index == nullptr) return MPI_T_ERR_INVALID;
  auto all = knobs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i]->name() == name) {
      *index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int handle_alloc(int index, MPI_T_cvar_handle* handle, int* count) {
  if (int rc = tool_initialized()) return rc;
  param::ParamBase* knob = knob_at(index);
  if (knob == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
  int n = knob->value_kind() == ValueKind::kText ? kTextCount : 1;
  CvarState& s = cvars();
  std::lock_guard lock(s.mutex);
  *handle = new MPIR_T_cvar_handle_s{knob, n};
  s.handles.insert(*handle);
  *count = n;
  return MPI_SUCCESS;
}

// MPI_SUCCESS when `handle` is one of MPI_T's live control-variable handles.
int check_handle(MPI_T_cvar_handle handle) {
  if (int rc = tool_initialized()) return rc;
  CvarState& s = cvars();
  std::lock_guard lock(s.mutex);
  return s.handles.contains(handle) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int handle_free(MPI_T_cvar_handle* handle) {
  if (int rc = tool_initialized()) return rc;
  if (handle == nullptr) return MPI_T_ERR_INVALID;
  CvarState& s = cvars();
  std::lock_guard lock(s.mutex);
  if (s.handles.erase(*handle) == 0) return MPI_T_ERR_INVALID_HANDLE;
  delete *handle;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

// The knob's value as the number MPI_T hands out for its kind.
template <class T>
T parsed(const param::ParamBase& knob) {
  T value{};
  (void)param::Traits<T>::parse(knob.value_string(), value);
  return value;
}

int enum_index(const param::ParamBase& knob) {
  std::string value = knob.value_string();
  auto names = knob.choices();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) return static_cast<int>(i);
  return 0;
}

int read(MPI_T_cvar_handle handle, void* buf) {
  if (int rc = check_handle(handle)) return rc;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  const param::ParamBase& knob = *handle->knob;
  switch (knob.value_kind()) {
    case ValueKind::kBool:
      *static_cast<int*>(buf) = parsed<bool>(knob) ? 1 : 0;
      break;
    case ValueKind::kInt:
      *static_cast<int*>(buf) = parsed<int>(knob);
      break;
    case ValueKind::kInt64:
      *static_cast<long long*>(buf) = parsed<std::int64_t>(knob);
      break;
    case ValueKind::kSize:
      *static_cast<unsigned long long*>(buf) = parsed<param::Size>(knob).bytes;
      break;
    case ValueKind::kFloat:
      *static_cast<double*>(buf) = parsed<double>(knob);
      break;
    case ValueKind::kEnum:
      *static_cast<int*>(buf) = enum_index(knob);
      break;
    case ValueKind::kText: {
      int len = handle->count;
      tool_string(knob.value_string(), static_cast<char*>(buf), &len);
      break;
    }
  }
  return MPI_SUCCESS;
}

// The text of the value at `buf` in the knob's syntax; false when it is none of the knob's.
bool text_of(const MPI_T_cvar_handle handle, const void* buf, std::string& text) {
  const param::ParamBase& knob = *handle->knob;
  switch (knob.value_kind()) {
    case ValueKind::kBool:
      text = std::to_string(*static_cast<const int*>(buf) != 0 ? 1 : 0);
      return true;
    case ValueKind::kInt:
      text = std::to_string(*static_cast<const int*>(buf));
      return true;
    case ValueKind::kInt64:
      text = std::to_string(*static_cast<const long long*>(buf));
      return true;
    case ValueKind::kSize:
      text = std::to_string(*static_cast<const unsigned long long*>(buf));
      return true;
    case ValueKind::kFloat: {
      char number[64];
      std::snprintf(number, sizeof number, "%.17g", *static_cast<const double*>(buf));
      text = number;
      return true;
    }
    case ValueKind::kEnum: {
      int index = *static_cast<const int*>(buf);
      auto names = knob.choices();
      if (index < 0 || static_cast<std::size_t>(index) >= names.size()) return false;
      text = names[index];
      return true;
    }
    case ValueKind::kText:
      text.assign(static_cast<const char*>(buf),
                  strnlen(static_cast<const char*>(buf), static_cast<std::size_t>(handle->count)));
      return true;
  }
  return false;
}

int write(MPI_T_cvar_handle handle, const void* buf) {
  if (int rc = check_handle(handle)) return rc;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  if (phase() != Phase::kBefore) return MPI_T_ERR_CVAR_SET_NEVER;
  std::string text;
  if (!text_of(handle, buf, text)) return MPI_T_ERR_INVALID;
  return handle->knob->set_from_string(text).ok() ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

// MPI_SUCCESS when `enumtype` is one of the enumerations get_info handed out.
int check_enum(MPI_T_enum enumtype) {
  if (int rc = tool_initialized()) return rc;
  CvarState& s = cvars();
  std::lock_guard lock(s.mutex);
  for (const auto& [knob, e] : s.enums)
    if (e.get() == enumtype) return MPI_SUCCESS;
  return MPI_T_ERR_INVALID_HANDLE;
}

int enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  if (int rc = check_enum(enumtype)) return rc;
  if (num != nullptr) *num = static_cast<int>(enumtype->knob->choices().size());
  tool_string(enumtype->knob->name(), name, name_len);
  return MPI_SUCCESS;
}

int enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  if (int rc = check_enum(enumtype)) return rc;
  auto names = enumtype->knob->choices();
  if (index < 0 || static_cast<std::size_t>(index) >= names.size()) return MPI_T_ERR_INVALID_ITEM;
  if (value != nullptr) *value = index;
  tool_string(names[index], name, name_len);
  return MPI_SUCCESS;
}

}  // namespace

void tool_cvars_end() {
  CvarState& s = cvars();
  std::lock_guard lock(s.mutex);
  for (MPI_T_cvar_handle h : s.handles) delete h;
  s.handles.clear();
}

}  // namespace gpurun::api

namespace t = gpurun::api;

GPURUN_TOOL_FN(MPI_T_cvar_get_num, (int* num_cvar), t::get_num(num_cvar))
GPURUN_TOOL_FN(MPI_T_cvar_get_info,
               (int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope),
               t::get_info(cvar_index, name, name_len, verbosity, datatype, enumtype, desc,
                           desc_len, bind, scope))
GPURUN_TOOL_FN(MPI_T_cvar_get_index, (const char* name, int* cvar_index),
               t::get_index(name, cvar_index))
GPURUN_TOOL_FN(MPI_T_cvar_handle_alloc,
               (int cvar_index, void*, MPI_T_cvar_handle* handle, int* count),
               t::handle_alloc(cvar_index, handle, count))
GPURUN_TOOL_FN(MPI_T_cvar_handle_free, (MPI_T_cvar_handle * handle), t::handle_free(handle))
GPURUN_TOOL_FN(MPI_T_cvar_read, (MPI_T_cvar_handle handle, void* buf), t::read(handle, buf))
GPURUN_TOOL_FN(MPI_T_cvar_write, (MPI_T_cvar_handle handle, const void* buf), t::write(handle, buf))
GPURUN_TOOL_FN(MPI_T_enum_get_info, (MPI_T_enum enumtype, int* num, char* name, int* name_len),
               t::enum_get_info(enumtype, num, name, name_len))
GPURUN_TOOL_FN(MPI_T_enum_get_item,
               (MPI_T_enum enumtype, int index, int* value, char* name, int* name_len),
               t::enum_get_item(enumtype, index, value, name, name_len))
