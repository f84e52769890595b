// The MPI_Info calls. MPI-4 lets them run at any time, before MPI_Init and after MPI_Finalize
// too, so they do not require the initialized phase.
#include <cstring>
#include <string>

#include "api/call.h"
#include "api/info.h"

namespace gpurun::api {
namespace {

// Checks a key argument: present, not empty, at most MPI_MAX_INFO_KEY characters.
int check_key(const Call& call, const char* key) {
  if (key == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_KEY, "argument key is a null pointer");
  std::size_t n = std::strlen(key);
  if (n == 0) return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_KEY, "argument key is empty");
  if (n > MPI_MAX_INFO_KEY) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_KEY,
                 "argument key is %zu characters long, more than MPI_MAX_INFO_KEY (%d)", n,
                 MPI_MAX_INFO_KEY);
  }
  return MPI_SUCCESS;
}

int raise_bad_info(const Call& call, MPI_Info info) {
  return raise(call, MPI_COMM_NULL, MPI_ERR_INFO,
               info == MPI_INFO_NULL ? "argument info is MPI_INFO_NULL"
                                     : "argument info (0x%x) is not an info object, or was freed",
               static_cast<unsigned>(info));
}

int raise_env_changed(const Call& call) {
  return raise(call, MPI_COMM_NULL, MPI_ERR_INFO,
               "argument info is MPI_INFO_ENV, which cannot be changed or freed (MPI_Info_dup "
               "it to get one that can)");
}

// Copies `value` into `out` of `capacity` characters plus the terminating null.
void copy_out(const std::string& value, char* out, std::size_t capacity) {
  std::size_t n = std::min(value.size(), capacity);
  std::memcpy(out, value.data(), n);
  out[n] = '\0';
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

#define GPURUN_INFO_ENTER(call_name)         \
  const ::gpurun::api::Call call{call_name}; \
  const ::gpurun::api::BigLock gpurun_big_lock_

// Looks up `handle` into `var`, or fails with MPI_ERR_INFO; `writable` refuses MPI_INFO_ENV.
#define GPURUN_FIND_INFO(var, handle, writable)              \
  gpurun::core::Info* var = find_info(handle);               \
  if ((var) == nullptr) return raise_bad_info(call, handle); \
  if ((writable) && (handle) == MPI_INFO_ENV) return raise_env_changed(call)

extern "C" int PMPI_Info_create(MPI_Info* info) {
  GPURUN_INFO_ENTER("MPI_Info_create");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, info);
  MPI_Info h = new_info_handle(std::make_unique<gpurun::core::Info>());
  if (h == MPI_INFO_NULL)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many info objects; free some");
  *info = h;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_create_env(int /*argc*/, char* /*argv*/[], MPI_Info* info) {
  GPURUN_INFO_ENTER("MPI_Info_create_env");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, info);
  MPI_Info h = new_info_handle(env_info_copy());
  if (h == MPI_INFO_NULL)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many info objects; free some");
  *info = h;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  GPURUN_INFO_ENTER("MPI_Info_set");
  GPURUN_FIND_INFO(object, info, true);
  if (int rc = check_key(call, key); rc != MPI_SUCCESS) return rc;
  if (value == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_VALUE, "argument value is a null pointer");
  if (std::size_t n = std::strlen(value); n > MPI_MAX_INFO_VAL) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_VALUE,
                 "argument value is %zu characters long, more than MPI_MAX_INFO_VAL (%d)", n,
                 MPI_MAX_INFO_VAL);
  }
  object->set(key, value);
  return MPI_SUCCESS;
}

// MPICH's extension: `value_size` bytes as hexadecimal digits, two per byte in memory order
// (the form in which MPIX_Stream_create takes a cudaStream_t).
extern "C" int PMPIX_Info_set_hex(MPI_Info info, const char* key, const void* value,
                                  int value_size) {
  GPURUN_INFO_ENTER("MPIX_Info_set_hex");
  GPURUN_FIND_INFO(object, info, true);
  if (int rc = check_key(call, key); rc != MPI_SUCCESS) return rc;
  if (value_size < 0 || value_size > MPI_MAX_INFO_VAL / 2) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_VALUE,
                 "argument value_size %d is not between 0 and %d (MPI_MAX_INFO_VAL / 2)",
                 value_size, MPI_MAX_INFO_VAL / 2);
  }
  if (value == nullptr && value_size > 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_VALUE, "argument value is a null pointer");
  object->set(key, gpurun::core::encode_hex(value, static_cast<std::size_t>(value_size)));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPIX_Info_set_hex)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  GPURUN_INFO_ENTER("MPI_Info_get");
  GPURUN_FIND_INFO(object, info, false);
  if (int rc = check_key(call, key); rc != MPI_SUCCESS) return rc;
  if (valuelen < 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument valuelen %d is negative", valuelen);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, value);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  const std::string* v = object->get(key);
  *flag = v != nullptr;
  if (v != nullptr) copy_out(*v, value, static_cast<std::size_t>(valuelen));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value,
                                    int* flag) {
  GPURUN_INFO_ENTER("MPI_Info_get_string");
  GPURUN_FIND_INFO(object, info, false);
  if (int rc = check_key(call, key); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, buflen);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  if (*buflen < 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument *buflen %d is negative", *buflen);
  if (*buflen > 0 && value == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument value is a null pointer");
  const std::string* v = object->get(key);
  *flag = v != nullptr;
  if (v == nullptr) return MPI_SUCCESS;
  if (*buflen > 0) copy_out(*v, value, static_cast<std::size_t>(*buflen - 1));
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  GPURUN_INFO_ENTER("MPI_Info_get_valuelen");
  GPURUN_FIND_INFO(object, info, false);
  if (int rc = check_key(call, key); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, valuelen);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  const std::string* v = object->get(key);
  *flag = v != nullptr;
  if (v != nullptr) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_delete(MPI_Info info, const char* key) {
  GPURUN_INFO_ENTER("MPI_Info_delete");
  GPURUN_FIND_INFO(object, info, true);
  if (int rc = check_key(call, key); rc != MPI_SUCCESS) return rc;
  if (!object->erase(key))
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_NOKEY, "key \"%s\" is not set", key);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  GPURUN_INFO_ENTER("MPI_Info_dup");
  GPURUN_FIND_INFO(object, info, false);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newinfo);
  MPI_Info h = new_info_handle(std::make_unique<gpurun::core::Info>(*object));
  if (h == MPI_INFO_NULL)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many info objects; free some");
  *newinfo = h;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_free(MPI_Info* info) {
  GPURUN_INFO_ENTER("MPI_Info_free");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, info);
  GPURUN_FIND_INFO(object, *info, true);
  (void)object;
  free_info_handle(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  GPURUN_INFO_ENTER("MPI_Info_get_nkeys");
  GPURUN_FIND_INFO(object, info, false);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, nkeys);
  *nkeys = object->size();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  GPURUN_INFO_ENTER("MPI_Info_get_nthkey");
  GPURUN_FIND_INFO(object, info, false);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, key);
  if (n < 0 || n >= object->size()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument n %d is not the index of a key (the info holds %d)", n, object->size());
  }
  copy_out(object->key(n), key, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Info_create)
GPURUN_MPI_ALIAS(MPI_Info_create_env)
GPURUN_MPI_ALIAS(MPI_Info_set)
GPURUN_MPI_ALIAS(MPI_Info_get)
GPURUN_MPI_ALIAS(MPI_Info_get_string)
GPURUN_MPI_ALIAS(MPI_Info_get_valuelen)
GPURUN_MPI_ALIAS(MPI_Info_delete)
GPURUN_MPI_ALIAS(MPI_Info_dup)
GPURUN_MPI_ALIAS(MPI_Info_free)
GPURUN_MPI_ALIAS(MPI_Info_get_nkeys)
GPURUN_MPI_ALIAS(MPI_Info_get_nthkey)
