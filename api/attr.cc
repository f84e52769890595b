// Keyvals and attribute values on communicators: the bookkeeping and the callbacks.
#include "api/attr.h"

#include <algorithm>

#include "api/attr_table.h"

namespace gpurun::api {

ObjectTable<Keyval>& keyvals() {
  static auto* table = new ObjectTable<Keyval>();
  return *table;
}

Keyval* keyval_of(int handle) {
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kKeyval)
    return nullptr;
  return keyvals().find(handle_index(handle));
}

void unref_keyval(int handle) {
  Keyval* k = keyval_of(handle);
  if (k != nullptr && --k->refs == 0) keyvals().release(handle_index(handle));
}

Attribute* find_attribute(CommEntry& entry, int keyval) {
  for (Attribute& a : entry.attributes)
    if (a.keyval == keyval) return &a;
  return nullptr;
}

int call_delete(MPI_Comm comm, int keyval, void* value) {
  Keyval* k = keyval_of(keyval);
  if (k == nullptr || k->erase == nullptr) return MPI_SUCCESS;
  MPI_Comm_delete_attr_function* fn = k->erase;
  void* extra = k->extra_state;
  const UserCallbackScope unlocked;
  return fn(comm, keyval, value, extra);
}

int copy_attributes(MPI_Comm old_handle, const CommEntry& from, std::vector<Attribute>* out,
                    int* failed_keyval) {
  std::vector<Attribute> parent = from.attributes;  // callbacks may change the parent's list
  for (const Attribute& a : parent) {
    Keyval* k = keyval_of(a.keyval);
    if (k == nullptr || k->copy == nullptr) continue;
    MPI_Comm_copy_attr_function* fn = k->copy;
    void* extra = k->extra_state;
    void* value = nullptr;
    int flag = 0;
    int rc;
    {
      const UserCallbackScope unlocked;
      rc = fn(old_handle, a.keyval, extra, a.value, &value, &flag);
    }
    if (rc != MPI_SUCCESS) {
      *failed_keyval = a.keyval;
      drop_attributes(*out);
      return rc;
    }
    if (flag == 0) continue;
    if (Keyval* still = keyval_of(a.keyval)) ++still->refs;
    out->push_back(Attribute{a.keyval, value});
  }
  return MPI_SUCCESS;
}

int delete_attributes(MPI_Comm handle, CommEntry& entry, int* failed_keyval) {
  while (!entry.attributes.empty()) {
    Attribute a = entry.attributes.back();
    if (int rc = call_delete(handle, a.keyval, a.value); rc != MPI_SUCCESS) {
      *failed_keyval = a.keyval;
      return rc;
    }
    std::erase_if(entry.attributes, [&a](const Attribute& x) { return x.keyval == a.keyval; });
    unref_keyval(a.keyval);
  }
  return MPI_SUCCESS;
}

void drop_attributes(std::vector<Attribute>& attributes) {
  for (const Attribute& a : attributes) unref_keyval(a.keyval);
  attributes.clear();
}

int raise_callback_error(const Call& call, MPI_Comm comm, const char* what, int keyval, int code) {
  int error_class = (code > 0 && code <= MPI_ERR_LASTCODE) ? code % 128 : MPI_ERR_OTHER;
  if (error_class == MPI_SUCCESS) error_class = MPI_ERR_OTHER;
  return raise(call, comm, error_class, "the %s callback of keyval 0x%x returned error code %d",
               what, static_cast<unsigned>(keyval), code);
}

}  // namespace gpurun::api
