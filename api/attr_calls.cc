// The attribute calls: keyvals, MPI_Comm_set/get/delete_attr, the predefined attributes, and
// the MPI-1 spellings (MPI_Keyval_create/free, MPI_Attr_put/get/delete).
#include "api/attr.h"
#include "api/attr_table.h"
#include "api/checks.h"
#include "api/error_codes.h"

namespace gpurun::api {
namespace {

struct Predefined {
  int keyval;
  const char* name;
};
constexpr Predefined kPredefined[] = {
    {MPI_TAG_UB, "MPI_TAG_UB"},
    {MPI_HOST, "MPI_HOST"},
    {MPI_IO, "MPI_IO"},
    {MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL"},
    {MPI_UNIVERSE_SIZE, "MPI_UNIVERSE_SIZE"},
    {MPI_LASTUSEDCODE, "MPI_LASTUSEDCODE"},
    {MPI_APPNUM, "MPI_APPNUM"},
};

const char* predefined_name(int keyval) {
  for (const Predefined& p : kPredefined)
    if (p.keyval == keyval) return p.name;
  return nullptr;
}

// The value of a predefined attribute: the address of an int that holds it.
void* predefined_value(int keyval) {
  static int values[7];
  const bootstrap::JobInfo& job = state().bootstrap->job();
  int* v = nullptr;
  switch (keyval) {
    case MPI_TAG_UB:
      *(v = &values[0]) = kTagUpperBound;
      break;
    case MPI_HOST:
      *(v = &values[1]) = MPI_PROC_NULL;
      break;
    case MPI_IO:
      *(v = &values[2]) = MPI_ANY_SOURCE;
      break;  // every process can do I/O
    case MPI_WTIME_IS_GLOBAL:
      *(v = &values[3]) = 0;
      break;
    case MPI_UNIVERSE_SIZE:
      *(v = &values[4]) = job.universe_size;
      break;
    case MPI_LASTUSEDCODE:
      *(v = &values[5]) = last_used_code();  // MPI_ERR_LASTCODE until a user adds one
      break;
    case MPI_APPNUM:
      *(v = &values[6]) = job.appnum;
      break;
    default:
      break;
  }
  return v;
}

// Checks a keyval argument of a set/get/delete/free call; returns the error or MPI_SUCCESS.
// Predefined keyvals pass only when `predefined_ok`.
int check_keyval(const Call& call, MPI_Comm comm, int keyval, bool predefined_ok) {
  if (keyval == MPI_KEYVAL_INVALID)
    return raise(call, comm, MPI_ERR_KEYVAL, "argument keyval is MPI_KEYVAL_INVALID");
  if (const char* name = predefined_name(keyval)) {
    if (predefined_ok) return MPI_SUCCESS;
    return raise(call, comm, MPI_ERR_KEYVAL,
                 "argument keyval is %s, a predefined attribute that cannot be changed", name);
  }
  Keyval* k = keyval_of(keyval);
  if (k == nullptr || k->handle_freed) {
    return raise(call, comm, MPI_ERR_KEYVAL, "argument keyval (0x%x) is not a keyval, or was freed",
                 static_cast<unsigned>(keyval));
  }
  if (k->kind != KeyvalKind::kComm) {
    return raise(call, comm, MPI_ERR_KEYVAL, "argument keyval (0x%x) was made for %s",
                 static_cast<unsigned>(keyval),
                 k->kind == KeyvalKind::kWin ? "windows (MPI_Win_create_keyval)"
                                             : "datatypes (MPI_Type_create_keyval)");
  }
  return MPI_SUCCESS;
}

int create_keyval(const Call& call, MPI_Comm_copy_attr_function* copy,
                  MPI_Comm_delete_attr_function* erase, int* keyval, void* extra_state) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, keyval);
  auto k = std::make_unique<Keyval>();
  k->copy = copy;
  k->erase = erase;
  k->extra_state = extra_state;
  std::uint32_t index = keyvals().insert(std::move(k));
  if (index == ObjectTable<Keyval>::kFull)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many keyvals; free some");
  *keyval = make_handle(HandleKind::kIndirect, ObjectType::kKeyval, index);
  return MPI_SUCCESS;
}

int free_keyval(const Call& call, int* keyval) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, keyval);
  if (int rc = check_keyval(call, MPI_COMM_NULL, *keyval, false); rc != MPI_SUCCESS) return rc;
  keyval_of(*keyval)->handle_freed = true;
  unref_keyval(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

}  // namespace

int set_comm_attr(const Call& call, MPI_Comm comm, Attribute attribute) {
  GPURUN_CHECK_COMM(entry, comm);
  int keyval = attribute.keyval;
  if (int rc = check_keyval(call, comm, keyval, false); rc != MPI_SUCCESS) return rc;
  if (Attribute* a = find_attribute(*entry, keyval)) {
    // The old value goes through its delete callback first; if that fails, it stays.
    if (int rc = call_delete(comm, *a); rc != MPI_SUCCESS)
      return raise_callback_error(call, comm, "delete", keyval, rc);
    if (Attribute* again = find_attribute(*entry, keyval)) {
      *again = std::move(attribute);
      return MPI_SUCCESS;
    }
  }
  ++keyval_of(keyval)->refs;
  entry->attributes.push_back(std::move(attribute));
  return MPI_SUCCESS;
}

int get_comm_attr(const Call& call, MPI_Comm comm, int keyval, void* value, int* flag,
                  AttrKind as) {
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, value);
  GPURUN_CHECK_NOT_NULL(comm, flag);
  if (int rc = check_keyval(call, comm, keyval, true); rc != MPI_SUCCESS) return rc;
  if (predefined_name(keyval) != nullptr) {
    void* held = predefined_value(keyval);  // an int's address: C takes it, Fortran the int
    if (as == AttrKind::kPointer)
      *static_cast<void**>(value) = held;
    else
      deliver_integer(*static_cast<int*>(held), value, as);
    *flag = 1;
    return MPI_SUCCESS;
  }
  Attribute* a = find_attribute(*entry, keyval);
  *flag = a != nullptr;
  if (a != nullptr) deliver_attribute(*a, value, as);
  return MPI_SUCCESS;
}

namespace {

int set_attr(const Call& call, MPI_Comm comm, int keyval, void* value) {
  return set_comm_attr(call, comm, Attribute{keyval, value});
}

int get_attr(const Call& call, MPI_Comm comm, int keyval, void* value, int* flag) {
  return get_comm_attr(call, comm, keyval, value, flag, AttrKind::kPointer);
}

int delete_attr(const Call& call, MPI_Comm comm, int keyval) {
  GPURUN_CHECK_COMM(entry, comm);
  if (int rc = check_keyval(call, comm, keyval, false); rc != MPI_SUCCESS) return rc;
  Attribute* a = find_attribute(*entry, keyval);
  if (a == nullptr) return MPI_SUCCESS;  // nothing to delete (as MPICH)
  if (int rc = call_delete(comm, *a); rc != MPI_SUCCESS)
    return raise_callback_error(call, comm, "delete", keyval, rc);
  std::erase_if(entry->attributes, [keyval](const Attribute& x) { return x.keyval == keyval; });
  unref_keyval(keyval);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function* comm_delete_attr_fn,
                                       int* comm_keyval, void* extra_state) {
  GPURUN_API_ENTER("MPI_Comm_create_keyval");
  return create_keyval(call, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}

extern "C" int PMPI_Comm_free_keyval(int* comm_keyval) {
  GPURUN_API_ENTER("MPI_Comm_free_keyval");
  return free_keyval(call, comm_keyval);
}

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  GPURUN_API_ENTER("MPI_Comm_set_attr");
  return set_attr(call, comm, comm_keyval, attribute_val);
}

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  GPURUN_API_ENTER("MPI_Comm_get_attr");
  return get_attr(call, comm, comm_keyval, attribute_val, flag);
}

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  GPURUN_API_ENTER("MPI_Comm_delete_attr");
  return delete_attr(call, comm, comm_keyval);
}

extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn,
                                  int* keyval, void* extra_state) {
  GPURUN_API_ENTER("MPI_Keyval_create");
  return create_keyval(call, copy_fn, delete_fn, keyval, extra_state);
}

extern "C" int PMPI_Keyval_free(int* keyval) {
  GPURUN_API_ENTER("MPI_Keyval_free");
  return free_keyval(call, keyval);
}

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  GPURUN_API_ENTER("MPI_Attr_put");
  return set_attr(call, comm, keyval, attribute_val);
}

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  GPURUN_API_ENTER("MPI_Attr_get");
  return get_attr(call, comm, keyval, attribute_val, flag);
}

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  GPURUN_API_ENTER("MPI_Attr_delete");
  return delete_attr(call, comm, keyval);
}

GPURUN_MPI_ALIAS(MPI_Comm_create_keyval)
GPURUN_MPI_ALIAS(MPI_Comm_free_keyval)
GPURUN_MPI_ALIAS(MPI_Comm_set_attr)
GPURUN_MPI_ALIAS(MPI_Comm_get_attr)
GPURUN_MPI_ALIAS(MPI_Comm_delete_attr)
GPURUN_MPI_ALIAS(MPI_Keyval_create)
GPURUN_MPI_ALIAS(MPI_Keyval_free)
GPURUN_MPI_ALIAS(MPI_Attr_put)
GPURUN_MPI_ALIAS(MPI_Attr_get)
GPURUN_MPI_ALIAS(MPI_Attr_delete)
