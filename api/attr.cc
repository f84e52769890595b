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

int call_delete(MPI_Comm comm, const Attribute& a) {
  Keyval* k = keyval_of(a.keyval);
  if (k == nullptr || k->erase == nullptr) return MPI_SUCCESS;
  return run_delete_callback(*k, k->erase, comm, a);
}

int copy_attributes(MPI_Comm old_handle, const CommEntry& from, std::vector<Attribute>* out,
                    int* failed_keyval) {
  std::vector<Attribute> parent = from.attributes;  // callbacks may change the parent's list
  for (const Attribute& a : parent) {
    Keyval* k = keyval_of(a.keyval);
    if (k == nullptr || k->copy == nullptr) continue;
    Attribute copy{a.keyval, nullptr};
    int flag = 0;
    if (int rc = run_copy_callback(*k, k->copy, old_handle, a, &copy, &flag); rc != MPI_SUCCESS) {
      *failed_keyval = a.keyval;
      drop_attributes(*out);
      return rc;
    }
    if (flag == 0) continue;
    if (Keyval* still = keyval_of(a.keyval)) ++still->refs;
    out->push_back(std::move(copy));
  }
  return MPI_SUCCESS;
}

int delete_attributes(MPI_Comm handle, CommEntry& entry, int* failed_keyval) {
  while (!entry.attributes.empty()) {
    Attribute a = entry.attributes.back();
    if (int rc = call_delete(handle, a); rc != MPI_SUCCESS) {
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

Attribute make_attribute(int keyval, void* value, AttrKind kind) {
  Attribute a{keyval, value, kind};
  if (kind != AttrKind::kPointer)
    a.cell =
        std::make_shared<MPI_Aint>(static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(value)));
  return a;
}

void deliver_integer(MPI_Aint value, void* out, AttrKind as) {
  if (as == AttrKind::kInteger)
    *static_cast<int*>(out) = static_cast<int>(value);
  else
    *static_cast<MPI_Aint*>(out) = value;
}

void deliver_attribute(const Attribute& a, void* out, AttrKind as) {
  if (as == AttrKind::kPointer) {
    *static_cast<void**>(out) = a.as_pointer();
    return;
  }
  deliver_integer(static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(a.value)), out, as);
}

int raise_callback_error(const Call& call, MPI_Comm comm, const char* what, int keyval, int code) {
  int error_class = (code > 0 && code <= MPI_ERR_LASTCODE) ? code % 128 : MPI_ERR_OTHER;
  if (error_class == MPI_SUCCESS) error_class = MPI_ERR_OTHER;
  return raise(call, comm, error_class, "the %s callback of keyval 0x%x returned error code %d",
               what, static_cast<unsigned>(keyval), code);
}

}  // namespace gpurun::api
