// Statuses and request queries: MPI_Status_c2f/f2c, MPI_Get_count, MPI_Get_elements(_x),
// MPI_Status_set_elements(_x), MPI_Status_set_cancelled, MPI_Test_cancelled,
// MPI_Request_get_status and MPI_Cancel.
#include <climits>
#include <cstdint>
#include <cstring>

#include "api/checks.h"
#include "api/requests.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {
namespace {

#define GPURUN_CHECK_STATUS(status)               \
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, status);   \
  if ((status) == MPI_STATUS_IGNORE) [[unlikely]] \
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,  \
               "argument " #status                \
               " is MPI_STATUS_IGNORE, which "    \
               "holds nothing to read or write")

// Elements of `type` in the status's bytes: whole elements (get_count) or basic elements
// (get_elements); MPI_UNDEFINED when the bytes end inside one.
int count_of(const Call& call, const MPI_Status* status, MPI_Datatype datatype, bool basic,
             MPI_Count* count) {
  GPURUN_CHECK_STATUS(status);
  GPURUN_CHECK_TYPE(MPI_COMM_NULL, type, datatype);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, count);
  std::uint64_t bytes = status_bytes(*status);
  auto size = static_cast<std::uint64_t>(type->size());
  if (basic) {
    std::int64_t n = type->count_elements(bytes);
    *count = n < 0 ? MPI_UNDEFINED : n;
  } else if (size == 0) {
    *count = bytes == 0 ? 0 : MPI_UNDEFINED;  // as MPICH: nothing can hold the bytes
  } else {
    *count = bytes % size != 0 ? MPI_UNDEFINED : static_cast<MPI_Count>(bytes / size);
  }
  return MPI_SUCCESS;
}

// The int forms: a count that does not fit an int is MPI_UNDEFINED.
int int_count_of(const Call& call, const MPI_Status* status, MPI_Datatype datatype, bool basic,
                 int* count) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, count);
  MPI_Count n;
  if (int rc = count_of(call, status, datatype, basic, &n); rc != MPI_SUCCESS) return rc;
  *count = n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}

int set_elements(const Call& call, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  GPURUN_CHECK_STATUS(status);
  GPURUN_CHECK_TYPE(MPI_COMM_NULL, type, datatype);
  GPURUN_CHECK_COUNT(MPI_COMM_NULL, count);
  // The status holds 63 bits of byte count.
  if (type->size() != 0 && count > INT64_MAX / type->size()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_COUNT,
                 "argument count %lld is too large: its bytes do not fit a status",
                 static_cast<long long>(count));
  }
  // So that MPI_Get_elements on this status and type gives `count` back.
  set_status_bytes(status, static_cast<std::uint64_t>(type->bytes_of_elements(count)));
  return MPI_SUCCESS;
}

int request_get_status(const Call& call, MPI_Request request, int* flag, MPI_Status* status) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "status", status);
  core::Request* r = nullptr;
  if (request != MPI_REQUEST_NULL) {
    r = find_request(request);
    if (r == nullptr) return bad_request(call, "request", request);
    if (r->enqueued) return refuse_enqueued(call, "request", request);
  }
  if (r == nullptr || (r->persistent && !r->active)) {
    *flag = 1;
    write_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!request_done(r)) progress::engine().poll();
  *flag = r->complete();
  if (!*flag) return MPI_SUCCESS;
  return report_status(call, r, status);
}

int cancel(const Call& call, MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  core::Request* r = find_request(*request);
  if (r == nullptr) return bad_request(call, "request", *request);
  if (r->enqueued) return refuse_enqueued(call, "request", *request);
  if (r->persistent && !r->active) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                 "argument request (0x%x) is an inactive persistent request: there is nothing "
                 "to cancel",
                 static_cast<unsigned>(*request));
  }
  if (r->kind == core::RequestKind::kGeneralized) return cancel_generalized(call, r);
  // Too late (matched, gone, complete) is no error: the request completes normally and
  // MPI_Test_cancelled says false.
  (void)the_pml().cancel(r);
  return MPI_SUCCESS;
}

// MPI_Status_get/set_source, _tag and _error.
int get_field(const Call& call, MPI_Status* status, int MPI_Status::*field, int* value,
              const char* arg) {
  GPURUN_CHECK_STATUS(status);
  if (value == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument %s is a null pointer", arg);
  *value = status->*field;
  return MPI_SUCCESS;
}

int set_field(const Call& call, MPI_Status* status, int MPI_Status::*field, int value) {
  GPURUN_CHECK_STATUS(status);
  status->*field = value;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  GPURUN_API_ENTER("MPI_Get_count");
  return int_count_of(call, status, datatype, false, count);
}

extern "C" int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  GPURUN_API_ENTER("MPI_Get_count_c");
  return count_of(call, status, datatype, false, count);
}

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  GPURUN_API_ENTER("MPI_Get_elements");
  return int_count_of(call, status, datatype, true, count);
}

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  GPURUN_API_ENTER("MPI_Get_elements_x");
  return count_of(call, status, datatype, true, count);
}

extern "C" int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  GPURUN_API_ENTER("MPI_Get_elements_c");
  return count_of(call, status, datatype, true, count);
}

extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  GPURUN_API_ENTER("MPI_Status_set_elements");
  return set_elements(call, status, datatype, count);
}

extern "C" int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype,
                                          MPI_Count count) {
  GPURUN_API_ENTER("MPI_Status_set_elements_x");
  return set_elements(call, status, datatype, count);
}

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  GPURUN_API_ENTER("MPI_Status_set_cancelled");
  GPURUN_CHECK_STATUS(status);
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  GPURUN_API_ENTER("MPI_Test_cancelled");
  GPURUN_CHECK_STATUS(status);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  *flag = status->count_hi_and_cancelled & 1;
  return MPI_SUCCESS;
}

// MPI-4.1's accessors of the public fields (MPI_SOURCE, MPI_TAG, MPI_ERROR), for the languages
// that cannot reach them; here they read and write the fields.
extern "C" int PMPI_Status_get_source(MPI_Status* status, int* source) {
  GPURUN_API_ENTER("MPI_Status_get_source");
  return get_field(call, status, &MPI_Status::MPI_SOURCE, source, "source");
}

extern "C" int PMPI_Status_set_source(MPI_Status* status, int source) {
  GPURUN_API_ENTER("MPI_Status_set_source");
  return set_field(call, status, &MPI_Status::MPI_SOURCE, source);
}

extern "C" int PMPI_Status_get_tag(MPI_Status* status, int* tag) {
  GPURUN_API_ENTER("MPI_Status_get_tag");
  return get_field(call, status, &MPI_Status::MPI_TAG, tag, "tag");
}

extern "C" int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  GPURUN_API_ENTER("MPI_Status_set_tag");
  return set_field(call, status, &MPI_Status::MPI_TAG, tag);
}

extern "C" int PMPI_Status_get_error(MPI_Status* status, int* error) {
  GPURUN_API_ENTER("MPI_Status_get_error");
  return get_field(call, status, &MPI_Status::MPI_ERROR, error, "error");
}

extern "C" int PMPI_Status_set_error(MPI_Status* status, int error) {
  GPURUN_API_ENTER("MPI_Status_set_error");
  return set_field(call, status, &MPI_Status::MPI_ERROR, error);
}

// A Fortran status is the C one's five fields in the same order (MPI_F_STATUS_SIZE).
extern "C" int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  GPURUN_API_ENTER("MPI_Status_c2f");
  GPURUN_CHECK_STATUS(c_status);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, f_status);
  if (f_status == MPI_F_STATUS_IGNORE)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument f_status is MPI_F_STATUS_IGNORE");
  static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  GPURUN_API_ENTER("MPI_Status_f2c");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, f_status);
  if (f_status == MPI_F_STATUS_IGNORE)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument f_status is MPI_F_STATUS_IGNORE");
  GPURUN_CHECK_STATUS(c_status);
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Request_get_status");
  return request_get_status(call, request, flag, status);
}

extern "C" int PMPI_Cancel(MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Cancel");
  return cancel(call, request);
}

GPURUN_MPI_ALIAS(MPI_Get_count)
GPURUN_MPI_ALIAS(MPI_Status_get_source)
GPURUN_MPI_ALIAS(MPI_Status_set_source)
GPURUN_MPI_ALIAS(MPI_Status_get_tag)
GPURUN_MPI_ALIAS(MPI_Status_set_tag)
GPURUN_MPI_ALIAS(MPI_Status_get_error)
GPURUN_MPI_ALIAS(MPI_Status_set_error)
GPURUN_MPI_ALIAS(MPI_Get_count_c)
GPURUN_MPI_ALIAS(MPI_Get_elements)
GPURUN_MPI_ALIAS(MPI_Get_elements_x)
GPURUN_MPI_ALIAS(MPI_Get_elements_c)
GPURUN_MPI_ALIAS(MPI_Status_set_elements)
GPURUN_MPI_ALIAS(MPI_Status_set_elements_x)
GPURUN_MPI_ALIAS(MPI_Status_set_cancelled)
GPURUN_MPI_ALIAS(MPI_Test_cancelled)
GPURUN_MPI_ALIAS(MPI_Status_c2f)
GPURUN_MPI_ALIAS(MPI_Status_f2c)
GPURUN_MPI_ALIAS(MPI_Request_get_status)
GPURUN_MPI_ALIAS(MPI_Cancel)
