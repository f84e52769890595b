// One-sided communication: attributes on windows. The predefined ones (MPI_WIN_BASE, SIZE,
// DISP_UNIT, CREATE_FLAVOR, MODEL), and the user's: keyvals made by MPI_Win_create_keyval
// (kind kWin in the keyval table that communicators use; a keyval of one kind is refused on the
// other), values set, got and deleted, and deleted through their callbacks when the window is
// freed, last set first. Windows are never duplicated, so copy callbacks never run.
#include <algorithm>

#include "api/attr.h"
#include "api/attr_table.h"
#include "api/win.h"

namespace gpurun::api {
namespace {

// Checks a user window keyval; returns the error or MPI_SUCCESS.
int check_win_keyval(const Call& call, MPI_Win win, int keyval) {
  Keyval* k = keyval == MPI_KEYVAL_INVALID ? nullptr : keyval_of(keyval);
  if (k == nullptr || k->handle_freed) {
    return raise_win(call, win, MPI_ERR_KEYVAL,
                     "argument win_keyval (0x%x) is not a keyval, or was freed",
                     static_cast<unsigned>(keyval));
  }
  if (k->kind != KeyvalKind::kWin) {
    return raise_win(call, win, MPI_ERR_KEYVAL,
                     "argument win_keyval (0x%x) was made for communicators or datatypes, not "
                     "windows",
                     static_cast<unsigned>(keyval));
  }
  return MPI_SUCCESS;
}

Attribute* find(Win& w, int keyval) {
  for (Attribute& a : w.attributes)
    if (a.keyval == keyval) return &a;
  return nullptr;
}

int call_win_delete(MPI_Win win, int keyval, void* value) {
  Keyval* k = keyval_of(keyval);
  if (k == nullptr || k->win_erase == nullptr) return MPI_SUCCESS;
  MPI_Win_delete_attr_function* fn = k->win_erase;
  void* extra = k->extra_state;
  const UserCallbackScope unlocked;
  return fn(win, keyval, value, extra);
}

int callback_failed(const Call& call, MPI_Win win, int keyval, int code) {
  return raise_win(call, win, MPI_ERR_OTHER,
                   "the delete callback of keyval 0x%x returned error code %d",
                   static_cast<unsigned>(keyval), code);
}

// The predefined attributes: MPI_WIN_BASE is the base itself, the others point to the value.
bool predefined(Win& w, int keyval, void** value) {
  switch (keyval) {
    case MPI_WIN_BASE:
      *value = w.base;
      return true;
    case MPI_WIN_SIZE:
      *value = &w.size;
      return true;
    case MPI_WIN_DISP_UNIT:
      *value = &w.disp_unit;
      return true;
    case MPI_WIN_CREATE_FLAVOR:
      *value = &w.flavor;
      return true;
    case MPI_WIN_MODEL:
      *value = &w.model;
      return true;
    default:
      return false;
  }
}

}  // namespace

int delete_win_attributes(const Call& call, Win& w) {
  while (!w.attributes.empty()) {
    Attribute a = w.attributes.back();
    if (int rc = call_win_delete(w.handle, a.keyval, a.value); rc != MPI_SUCCESS)
      return callback_failed(call, w.handle, a.keyval, rc);
    std::erase_if(w.attributes, [&a](const Attribute& x) { return x.keyval == a.keyval; });
    unref_keyval(a.keyval);
  }
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                      MPI_Win_delete_attr_function* win_delete_attr_fn,
                                      int* win_keyval, void* extra_state) {
  GPURUN_API_ENTER("MPI_Win_create_keyval");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, win_keyval);
  (void)win_copy_attr_fn;  // windows are never duplicated
  auto k = std::make_unique<Keyval>();
  k->kind = KeyvalKind::kWin;
  k->win_erase = win_delete_attr_fn;
  k->extra_state = extra_state;
  std::uint32_t index = keyvals().insert(std::move(k));
  if (index == ObjectTable<Keyval>::kFull)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many keyvals; free some");
  *win_keyval = make_handle(HandleKind::kIndirect, ObjectType::kKeyval, index);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_free_keyval(int* win_keyval) {
  GPURUN_API_ENTER("MPI_Win_free_keyval");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, win_keyval);
  if (int rc = check_win_keyval(call, MPI_WIN_NULL, *win_keyval); rc != MPI_SUCCESS) return rc;
  keyval_of(*win_keyval)->handle_freed = true;
  unref_keyval(*win_keyval);
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

// A value already set goes through its delete callback first; if that fails, it stays.
extern "C" int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  GPURUN_API_ENTER("MPI_Win_set_attr");
  GPURUN_CHECK_WIN(w, win);
  if (int rc = check_win_keyval(call, win, win_keyval); rc != MPI_SUCCESS) return rc;
  if (Attribute* a = find(*w, win_keyval)) {
    if (int rc = call_win_delete(win, win_keyval, a->value); rc != MPI_SUCCESS)
      return callback_failed(call, win, win_keyval, rc);
    if (Attribute* again = find(*w, win_keyval)) {
      again->value = attribute_val;
      return MPI_SUCCESS;
    }
  }
  ++keyval_of(win_keyval)->refs;
  w->attributes.push_back(Attribute{win_keyval, attribute_val});
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  GPURUN_API_ENTER("MPI_Win_get_attr");
  GPURUN_CHECK_WIN(w, win);
  if (attribute_val == nullptr || flag == nullptr) {
    return raise_win(call, win, MPI_ERR_ARG, "argument %s is a null pointer",
                     attribute_val ? "flag" : "attribute_val");
  }
  void* value = nullptr;
  if (predefined(*w, win_keyval, &value)) {
    *static_cast<void**>(attribute_val) = value;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (int rc = check_win_keyval(call, win, win_keyval); rc != MPI_SUCCESS) return rc;
  const Attribute* a = find(*w, win_keyval);
  if (a != nullptr) *static_cast<void**>(attribute_val) = a->value;
  *flag = a != nullptr ? 1 : 0;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  GPURUN_API_ENTER("MPI_Win_delete_attr");
  GPURUN_CHECK_WIN(w, win);
  if (int rc = check_win_keyval(call, win, win_keyval); rc != MPI_SUCCESS) return rc;
  Attribute* a = find(*w, win_keyval);
  if (a == nullptr) return MPI_SUCCESS;
  if (int rc = call_win_delete(win, win_keyval, a->value); rc != MPI_SUCCESS)
    return callback_failed(call, win, win_keyval, rc);
  std::erase_if(w->attributes, [&](const Attribute& x) { return x.keyval == win_keyval; });
  unref_keyval(win_keyval);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Win_create_keyval)
GPURUN_MPI_ALIAS(MPI_Win_free_keyval)
GPURUN_MPI_ALIAS(MPI_Win_set_attr)
GPURUN_MPI_ALIAS(MPI_Win_get_attr)
GPURUN_MPI_ALIAS(MPI_Win_delete_attr)
