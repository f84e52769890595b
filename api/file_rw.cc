// MPI-IO: the entry points of every read and write call, blocking, nonblocking and split
// collective, with int and MPI_Count counts. All run api/file_access.cc's file_access(); the
// nonblocking ones finish the access before returning a completed request, and a split
// collective's begin does the access and keeps its status for the end.
#include <string>

#include "api/file_access.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

Access with(bool write, Position position, bool collective) {
  return Access{write, position, collective};
}

int nonblocking(const Call& call, MPI_File fh, const Access& a, MPI_Offset offset, const void* buf,
                MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  if (request == nullptr) {
    int rc = raise_file(call, find_file(fh) ? fh : MPI_FILE_NULL, MPI_ERR_ARG,
                        "argument request is a null pointer");
    return access_refused(call, fh, a, rc);
  }
  MPI_Status status;
  int rc = file_access(call, fh, a, offset, buf, count, datatype, &status);
  if (rc != MPI_SUCCESS) return rc;
  core::MessageStatus m;
  m.bytes = status_bytes(status);
  *request = handle_of(completed_request(m));
  return MPI_SUCCESS;
}

int begin(const Call& call, MPI_File fh, const Access& a, MPI_Offset offset, const void* buf,
          MPI_Count count, MPI_Datatype datatype) {
  GPURUN_CHECK_FILE(f, fh);
  if (f->split != nullptr) {
    int rc = raise_file(call, fh, MPI_ERR_OTHER,
                        "%s was called and its end was not: one split collective at a time",
                        f->split);
    return access_refused(call, fh, a, rc);
  }
  int rc = file_access(call, fh, a, offset, buf, count, datatype, &f->split_status);
  if (rc == MPI_SUCCESS) f->split = call.name;
  return rc;
}

// Whether split collective `split` (a *_begin call's name, maybe with _c) is `begun`'s.
bool begun_by(const char* split, const char* begun) {
  if (split == nullptr) return false;
  std::string name(split);
  if (name.size() > 2 && name.compare(name.size() - 2, 2, "_c") == 0) name.resize(name.size() - 2);
  return name == begun;
}

// `begun` is the begin call's name.
int end(const Call& call, MPI_File fh, const char* begun, MPI_Status* status) {
  GPURUN_CHECK_FILE(f, fh);
  if (!begun_by(f->split, begun))
    return raise_file(call, fh, MPI_ERR_OTHER, "no %s came before it on this file", begun);
  if (status == nullptr)
    return raise_file(call, fh, MPI_ERR_ARG, "argument status is a null pointer");
  f->split = nullptr;
  if (status != MPI_STATUS_IGNORE) *status = f->split_status;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

// MPI_File_read, MPI_File_write_all_c ...: (fh, buf, count, datatype, status).
#define GPURUN_FILE_RW(name, buf_t, count_t, write, position, collective)                    \
  extern "C" int P##name(MPI_File fh, buf_t buf, count_t count, MPI_Datatype datatype,       \
                         MPI_Status* status) {                                               \
    GPURUN_API_ENTER(#name);                                                                 \
    return file_access(call, fh, with(write, position, collective), 0, buf, count, datatype, \
                       status);                                                              \
  }                                                                                          \
  GPURUN_MPI_ALIAS(name)
// MPI_File_read_at ...: (fh, offset, buf, count, datatype, status).
#define GPURUN_FILE_RW_AT(name, buf_t, count_t, write, collective)                           \
  extern "C" int P##name(MPI_File fh, MPI_Offset offset, buf_t buf, count_t count,           \
                         MPI_Datatype datatype, MPI_Status* status) {                        \
    GPURUN_API_ENTER(#name);                                                                 \
    return file_access(call, fh, with(write, Position::kAt, collective), offset, buf, count, \
                       datatype, status);                                                    \
  }                                                                                          \
  GPURUN_MPI_ALIAS(name)
// MPI_File_iread ...: (fh, buf, count, datatype, request).
#define GPURUN_FILE_IRW(name, buf_t, count_t, write, position, collective)                   \
  extern "C" int P##name(MPI_File fh, buf_t buf, count_t count, MPI_Datatype datatype,       \
                         MPI_Request* request) {                                             \
    GPURUN_API_ENTER(#name);                                                                 \
    return nonblocking(call, fh, with(write, position, collective), 0, buf, count, datatype, \
                       request);                                                             \
  }                                                                                          \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_FILE_IRW_AT(name, buf_t, count_t, write, collective)                          \
  extern "C" int P##name(MPI_File fh, MPI_Offset offset, buf_t buf, count_t count,           \
                         MPI_Datatype datatype, MPI_Request* request) {                      \
    GPURUN_API_ENTER(#name);                                                                 \
    return nonblocking(call, fh, with(write, Position::kAt, collective), offset, buf, count, \
                       datatype, request);                                                   \
  }                                                                                          \
  GPURUN_MPI_ALIAS(name)
// MPI_File_read_all_begin ...: (fh, buf, count, datatype).
#define GPURUN_FILE_BEGIN(name, buf_t, count_t, write, position)                         \
  extern "C" int P##name(MPI_File fh, buf_t buf, count_t count, MPI_Datatype datatype) { \
    GPURUN_API_ENTER(#name);                                                             \
    return begin(call, fh, with(write, position, true), 0, buf, count, datatype);        \
  }                                                                                      \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_FILE_BEGIN_AT(name, buf_t, count_t, write)                                   \
  extern "C" int P##name(MPI_File fh, MPI_Offset offset, buf_t buf, count_t count,          \
                         MPI_Datatype datatype) {                                           \
    GPURUN_API_ENTER(#name);                                                                \
    return begin(call, fh, with(write, Position::kAt, true), offset, buf, count, datatype); \
  }                                                                                         \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_FILE_END(name, buf_t, begun)                        \
  extern "C" int P##name(MPI_File fh, buf_t, MPI_Status* status) { \
    GPURUN_API_ENTER(#name);                                       \
    return end(call, fh, begun, status);                           \
  }                                                                \
  GPURUN_MPI_ALIAS(name)

GPURUN_FILE_RW(MPI_File_read, void*, int, false, Position::kIndividual, false)
GPURUN_FILE_RW(MPI_File_read_c, void*, MPI_Count, false, Position::kIndividual, false)
GPURUN_FILE_RW(MPI_File_read_all, void*, int, false, Position::kIndividual, true)
GPURUN_FILE_RW(MPI_File_read_all_c, void*, MPI_Count, false, Position::kIndividual, true)
GPURUN_FILE_RW(MPI_File_read_shared, void*, int, false, Position::kShared, false)
GPURUN_FILE_RW(MPI_File_read_shared_c, void*, MPI_Count, false, Position::kShared, false)
GPURUN_FILE_RW(MPI_File_read_ordered, void*, int, false, Position::kOrdered, true)
GPURUN_FILE_RW(MPI_File_read_ordered_c, void*, MPI_Count, false, Position::kOrdered, true)
GPURUN_FILE_RW(MPI_File_write, const void*, int, true, Position::kIndividual, false)
GPURUN_FILE_RW(MPI_File_write_c, const void*, MPI_Count, true, Position::kIndividual, false)
GPURUN_FILE_RW(MPI_File_write_all, const void*, int, true, Position::kIndividual, true)
GPURUN_FILE_RW(MPI_File_write_all_c, const void*, MPI_Count, true, Position::kIndividual, true)
GPURUN_FILE_RW(MPI_File_write_shared, const void*, int, true, Position::kShared, false)
GPURUN_FILE_RW(MPI_File_write_shared_c, const void*, MPI_Count, true, Position::kShared, false)
GPURUN_FILE_RW(MPI_File_write_ordered, const void*, int, true, Position::kOrdered, true)
GPURUN_FILE_RW(MPI_File_write_ordered_c, const void*, MPI_Count, true, Position::kOrdered, true)

GPURUN_FILE_RW_AT(MPI_File_read_at, void*, int, false, false)
GPURUN_FILE_RW_AT(MPI_File_read_at_c, void*, MPI_Count, false, false)
GPURUN_FILE_RW_AT(MPI_File_read_at_all, void*, int, false, true)
GPURUN_FILE_RW_AT(MPI_File_read_at_all_c, void*, MPI_Count, false, true)
GPURUN_FILE_RW_AT(MPI_File_write_at, const void*, int, true, false)
GPURUN_FILE_RW_AT(MPI_File_write_at_c, const void*, MPI_Count, true, false)
GPURUN_FILE_RW_AT(MPI_File_write_at_all, const void*, int, true, true)
GPURUN_FILE_RW_AT(MPI_File_write_at_all_c, const void*, MPI_Count, true, true)

GPURUN_FILE_IRW(MPI_File_iread, void*, int, false, Position::kIndividual, false)
GPURUN_FILE_IRW(MPI_File_iread_c, void*, MPI_Count, false, Position::kIndividual, false)
GPURUN_FILE_IRW(MPI_File_iread_all, void*, int, false, Position::kIndividual, true)
GPURUN_FILE_IRW(MPI_File_iread_all_c, void*, MPI_Count, false, Position::kIndividual, true)
GPURUN_FILE_IRW(MPI_File_iread_shared, void*, int, false, Position::kShared, false)
GPURUN_FILE_IRW(MPI_File_iread_shared_c, void*, MPI_Count, false, Position::kShared, false)
GPURUN_FILE_IRW(MPI_File_iwrite, const void*, int, true, Position::kIndividual, false)
GPURUN_FILE_IRW(MPI_File_iwrite_c, const void*, MPI_Count, true, Position::kIndividual, false)
GPURUN_FILE_IRW(MPI_File_iwrite_all, const void*, int, true, Position::kIndividual, true)
GPURUN_FILE_IRW(MPI_File_iwrite_all_c, const void*, MPI_Count, true, Position::kIndividual, true)
GPURUN_FILE_IRW(MPI_File_iwrite_shared, const void*, int, true, Position::kShared, false)
GPURUN_FILE_IRW(MPI_File_iwrite_shared_c, const void*, MPI_Count, true, Position::kShared, false)

GPURUN_FILE_IRW_AT(MPI_File_iread_at, void*, int, false, false)
GPURUN_FILE_IRW_AT(MPI_File_iread_at_c, void*, MPI_Count, false, false)
GPURUN_FILE_IRW_AT(MPI_File_iread_at_all, void*, int, false, true)
GPURUN_FILE_IRW_AT(MPI_File_iread_at_all_c, void*, MPI_Count, false, true)
GPURUN_FILE_IRW_AT(MPI_File_iwrite_at, const void*, int, true, false)
GPURUN_FILE_IRW_AT(MPI_File_iwrite_at_c, const void*, MPI_Count, true, false)
GPURUN_FILE_IRW_AT(MPI_File_iwrite_at_all, const void*, int, true, true)
GPURUN_FILE_IRW_AT(MPI_File_iwrite_at_all_c, const void*, MPI_Count, true, true)

GPURUN_FILE_BEGIN(MPI_File_read_all_begin, void*, int, false, Position::kIndividual)
GPURUN_FILE_BEGIN(MPI_File_read_all_begin_c, void*, MPI_Count, false, Position::kIndividual)
GPURUN_FILE_BEGIN(MPI_File_read_ordered_begin, void*, int, false, Position::kOrdered)
GPURUN_FILE_BEGIN(MPI_File_read_ordered_begin_c, void*, MPI_Count, false, Position::kOrdered)
GPURUN_FILE_BEGIN(MPI_File_write_all_begin, const void*, int, true, Position::kIndividual)
GPURUN_FILE_BEGIN(MPI_File_write_all_begin_c, const void*, MPI_Count, true, Position::kIndividual)
GPURUN_FILE_BEGIN(MPI_File_write_ordered_begin, const void*, int, true, Position::kOrdered)
GPURUN_FILE_BEGIN(MPI_File_write_ordered_begin_c, const void*, MPI_Count, true, Position::kOrdered)
GPURUN_FILE_BEGIN_AT(MPI_File_read_at_all_begin, void*, int, false)
GPURUN_FILE_BEGIN_AT(MPI_File_read_at_all_begin_c, void*, MPI_Count, false)
GPURUN_FILE_BEGIN_AT(MPI_File_write_at_all_begin, const void*, int, true)
GPURUN_FILE_BEGIN_AT(MPI_File_write_at_all_begin_c, const void*, MPI_Count, true)

GPURUN_FILE_END(MPI_File_read_all_end, void*, "MPI_File_read_all_begin")
GPURUN_FILE_END(MPI_File_read_ordered_end, void*, "MPI_File_read_ordered_begin")
GPURUN_FILE_END(MPI_File_read_at_all_end, void*, "MPI_File_read_at_all_begin")
GPURUN_FILE_END(MPI_File_write_all_end, const void*, "MPI_File_write_all_begin")
GPURUN_FILE_END(MPI_File_write_ordered_end, const void*, "MPI_File_write_ordered_begin")
GPURUN_FILE_END(MPI_File_write_at_all_end, const void*, "MPI_File_write_at_all_begin")
