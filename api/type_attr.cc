// Attributes on datatypes: keyvals made by MPI_Type_create_keyval (kind kType in the keyval
// table that communicators and windows use; a keyval of one kind is refused on the others),
// values per datatype handle (predefined ones included), copied by MPI_Type_dup through the copy
// callbacks and deleted by MPI_Type_free through the delete callbacks, last set first.
#include "api/type_attr.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "api/attr.h"
#include "api/attr_table.h"
#include "api/datatypes.h"

namespace gpurun::api {
namespace {

using AttributeList = std::vector<Attribute>;

std::unordered_map<MPI_Datatype, AttributeList>& lists() {
  static auto* map = new std::unordered_map<MPI_Datatype, AttributeList>();
  return *map;
}

Attribute* find(MPI_Datatype type, int keyval) {
  auto it = lists().find(type);
  if (it == lists().end()) return nullptr;
  for (Attribute& a : it->second)
    if (a.keyval == keyval) return &a;
  return nullptr;
}

int check_type(const Call& call, MPI_Datatype type) {
  if (find_datatype(type) == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE,
                 type == MPI_DATATYPE_NULL ? "argument datatype is MPI_DATATYPE_NULL"
                                           : "argument datatype (0x%x) is not a datatype",
                 static_cast<unsigned>(type));
  }
  return MPI_SUCCESS;
}

int check_type_keyval(const Call& call, int keyval) {
  Keyval* k = keyval == MPI_KEYVAL_INVALID ? nullptr : keyval_of(keyval);
  if (k == nullptr || k->handle_freed) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_KEYVAL,
                 "argument type_keyval (0x%x) is not a keyval, or was freed",
                 static_cast<unsigned>(keyval));
  }
  if (k->kind != KeyvalKind::kType) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_KEYVAL,
                 "argument type_keyval (0x%x) was made for communicators or windows, not "
                 "datatypes",
                 static_cast<unsigned>(keyval));
  }
  return MPI_SUCCESS;
}

int call_type_delete(MPI_Datatype type, const Attribute& a) {
  Keyval* k = keyval_of(a.keyval);
  if (k == nullptr || k->type_erase == nullptr) return MPI_SUCCESS;
  return run_delete_callback(*k, k->type_erase, type, a);
}

int callback_failed(const Call& call, const char* what, int keyval, int code) {
  return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
               "the %s callback of keyval 0x%x returned error code %d", what,
               static_cast<unsigned>(keyval), code);
}

void forget(MPI_Datatype type, int keyval) {
  auto it = lists().find(type);
  if (it == lists().end()) return;
  std::erase_if(it->second, [&](const Attribute& x) { return x.keyval == keyval; });
  if (it->second.empty()) lists().erase(it);
  unref_keyval(keyval);
}

}  // namespace

int copy_type_attributes(const Call& call, MPI_Datatype from, MPI_Datatype to) {
  auto it = lists().find(from);
  if (it == lists().end()) return MPI_SUCCESS;
  AttributeList parent = it->second, copies;  // callbacks may change the lists
  for (const Attribute& a : parent) {
    Keyval* k = keyval_of(a.keyval);
    if (k == nullptr || k->type_copy == nullptr) continue;
    Attribute copy{a.keyval, nullptr};
    int flag = 0;
    if (int rc = run_copy_callback(*k, k->type_copy, from, a, &copy, &flag); rc != MPI_SUCCESS) {
      for (const Attribute& c : copies) unref_keyval(c.keyval);
      return callback_failed(call, "copy", a.keyval, rc);
    }
    if (flag == 0) continue;
    if (Keyval* still = keyval_of(a.keyval)) ++still->refs;
    copies.push_back(std::move(copy));
  }
  if (!copies.empty()) lists()[to] = std::move(copies);
  return MPI_SUCCESS;
}

int delete_type_attributes(const Call& call, MPI_Datatype type) {
  while (lists().count(type) != 0) {
    Attribute a = lists()[type].back();
    if (int rc = call_type_delete(type, a); rc != MPI_SUCCESS)
      return callback_failed(call, "delete", a.keyval, rc);
    forget(type, a.keyval);
  }
  return MPI_SUCCESS;
}

int set_type_attr(const Call& call, MPI_Datatype datatype, Attribute attribute) {
  int keyval = attribute.keyval;
  if (int rc = check_type(call, datatype); rc != MPI_SUCCESS) return rc;
  if (int rc = check_type_keyval(call, keyval); rc != MPI_SUCCESS) return rc;
  if (Attribute* a = find(datatype, keyval)) {
    if (int rc = call_type_delete(datatype, *a); rc != MPI_SUCCESS)
      return callback_failed(call, "delete", keyval, rc);
    if (Attribute* again = find(datatype, keyval)) {
      *again = std::move(attribute);
      return MPI_SUCCESS;
    }
  }
  ++keyval_of(keyval)->refs;
  lists()[datatype].push_back(std::move(attribute));
  return MPI_SUCCESS;
}

int get_type_attr(const Call& call, MPI_Datatype datatype, int keyval, void* attribute_val,
                  int* flag, AttrKind as) {
  if (int rc = check_type(call, datatype); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, attribute_val);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  if (int rc = check_type_keyval(call, keyval); rc != MPI_SUCCESS) return rc;
  const Attribute* a = find(datatype, keyval);
  if (a != nullptr) deliver_attribute(*a, attribute_val, as);
  *flag = a != nullptr ? 1 : 0;
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                       MPI_Type_delete_attr_function* type_delete_attr_fn,
                                       int* type_keyval, void* extra_state) {
  GPURUN_API_ENTER("MPI_Type_create_keyval");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, type_keyval);
  auto k = std::make_unique<Keyval>();
  k->kind = KeyvalKind::kType;
  k->type_copy = type_copy_attr_fn;
  k->type_erase = type_delete_attr_fn;
  k->extra_state = extra_state;
  std::uint32_t index = keyvals().insert(std::move(k));
  if (index == ObjectTable<Keyval>::kFull)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many keyvals; free some");
  *type_keyval = make_handle(HandleKind::kIndirect, ObjectType::kKeyval, index);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Type_free_keyval(int* type_keyval) {
  GPURUN_API_ENTER("MPI_Type_free_keyval");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, type_keyval);
  if (int rc = check_type_keyval(call, *type_keyval); rc != MPI_SUCCESS) return rc;
  keyval_of(*type_keyval)->handle_freed = true;
  unref_keyval(*type_keyval);
  *type_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

// A value already set goes through its delete callback first; if that fails, it stays.
extern "C" int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  GPURUN_API_ENTER("MPI_Type_set_attr");
  return set_type_attr(call, datatype, Attribute{type_keyval, attribute_val});
}

extern "C" int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                  int* flag) {
  GPURUN_API_ENTER("MPI_Type_get_attr");
  return get_type_attr(call, datatype, type_keyval, attribute_val, flag, AttrKind::kPointer);
}

extern "C" int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  GPURUN_API_ENTER("MPI_Type_delete_attr");
  if (int rc = check_type(call, datatype); rc != MPI_SUCCESS) return rc;
  if (int rc = check_type_keyval(call, type_keyval); rc != MPI_SUCCESS) return rc;
  const Attribute* a = find(datatype, type_keyval);
  if (a == nullptr) return MPI_SUCCESS;
  if (int rc = call_type_delete(datatype, *a); rc != MPI_SUCCESS)
    return callback_failed(call, "delete", type_keyval, rc);
  forget(datatype, type_keyval);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Type_create_keyval)
GPURUN_MPI_ALIAS(MPI_Type_free_keyval)
GPURUN_MPI_ALIAS(MPI_Type_set_attr)
GPURUN_MPI_ALIAS(MPI_Type_get_attr)
GPURUN_MPI_ALIAS(MPI_Type_delete_attr)
