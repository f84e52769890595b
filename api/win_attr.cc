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

int call_win_delete(MPI_Win win, const Attribute& a) {
  Keyval* k = keyval_of(a.keyval);
  if (k == nullptr || k->win_erase == nullptr) return MPI_SUCCESS;
  return run_delete_callback(*k, k->win_erase, win, a);
}

int callback_failed(const Call& call, MPI_Win win, int keyval, int code) {
  return raise_win(call, win, MPI_ERR_OTHER,
                   "the delete callback of keyval 0x%x returned error code %d",
                   static_cast<unsigned>(keyval), code);
}

// The predefined attributes: MPI_WIN_BASE is the base itself, the others point to the value in
// C; Fortran takes each as an integer (the base's address, the values).
bool predefined(Win& w, int keyval, void* out, AttrKind as) {
  void* c_value = nullptr;
  MPI_Aint number = 0;
  switch (keyval) {
    case MPI_WIN_BASE:
      c_value = w.base;
      number = static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(w.base));
      break;
    case MPI_WIN_SIZE:
      c_value = &w.size;
      number = w.size;
      break;
    case MPI_WIN_DISP_UNIT:
      c_value = &w.disp_unit;
      number = w.disp_unit;
      break;
    case MPI_WIN_CREATE_FLAVOR:
      c_value = &w.flavor;
      number = w.flavor;
      break;
    case MPI_WIN_MODEL:
      c_value = &w.model;
      number = w.model;
      break;
    default:
      return false;
  }
  if (as == AttrKind::kPointer)
    *static_cast<void**>(out) = c_value;
  else
    deliver_integer(number, out, as);
  return true;
}

}  // namespace

int delete_win_attributes(const Call& call, Win& w) {
  while (!w.attributes.empty()) {
    Attribute a = w.attributes.back();
    if (int rc = call_win_delete(w.handle, a); rc != MPI_SUCCESS)
      return callback_failed(call, w.handle, a.keyval, rc);
    std::erase_if(w.attributes, [&a](const Attribute& x) { return x.keyval == a.keyval; });
    unref_keyval(a.keyval);
  }
  return MPI_SUCCESS;
}

int set_win_attr(const Call& call, MPI_Win win, Attribute attribute) {
  GPURUN_CHECK_WIN(w, win);
  int keyval = attribute.keyval;
  if (int rc = check_win_keyval(call, win, keyval); rc != MPI_SUCCESS) return rc;
  if (Attribute* a = find(*w, keyval)) {
    if (int rc = call_win_delete(win, *a); rc != MPI_SUCCESS)
      return callback_failed(call, win, keyval, rc);
    if (Attribute* again = find(*w, keyval)) {
      *again = std::move(attribute);
      return MPI_SUCCESS;
    }
  }
  ++keyval_of(keyval)->refs;
  w->attributes.push_back(std::move(attribute));
  return MPI_SUCCESS;
}

int get_win_attr(const Call& call, MPI_Win win, int keyval, void* value, int* flag, AttrKind as) {
  GPURUN_CHECK_WIN(w, win);
  if (value == nullptr || flag == nullptr) {
    return raise_win(call, win, MPI_ERR_ARG, "argument %s is a null pointer",
                     value ? "flag" : "attribute_val");
  }
  if (predefined(*w, keyval, value, as)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (int rc = check_win_keyval(call, win, keyval); rc != MPI_SUCCESS) return rc;
  const Attribute* a = find(*w, keyval);
  if (a != nullptr) deliver_attribute(*a, value, as);
  *flag = a != nullptr ? 1 : 0;
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
  return set_win_attr(call, win, Attribute{win_keyval, attribute_val});
}

extern "C" int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  GPURUN_API_ENTER("MPI_Win_get_attr");
  return get_win_attr(call, win, win_keyval, attribute_val, flag, AttrKind::kPointer);
}

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  GPURUN_API_ENTER("MPI_Win_delete_attr");
  GPURUN_CHECK_WIN(w, win);
  if (int rc = check_win_keyval(call, win, win_keyval); rc != MPI_SUCCESS) return rc;
  Attribute* a = find(*w, win_keyval);
  if (a == nullptr) return MPI_SUCCESS;
  if (int rc = call_win_delete(win, *a); rc != MPI_SUCCESS)
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
