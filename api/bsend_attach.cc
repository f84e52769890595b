// The calls that attach, detach and flush the buffers of buffered sends: the process's
// (MPI_Buffer_attach, _detach, _flush, _iflush), a communicator's (MPI_Comm_attach_buffer ...)
// and a session's (MPI_Session_attach_buffer ...), with their large-count _c forms. Errors of
// the communicator and session calls go through the handler of their communicator or session.
#include <climits>

#include "api/bsend.h"
#include "api/checks.h"
#include "api/requests.h"
#include "api/session.h"
#include "api/state.h"

namespace gpurun::api {
namespace {

// The slot behind `slot`, made on first use.
BsendSlot& slot_of(std::shared_ptr<BsendSlot>& slot) {
  if (!slot) slot = std::make_shared<BsendSlot>();
  return *slot;
}

int process_attach(const Call& call, void* buffer, MPI_Count size) {
  AttachResult r = attach_bsend(process_bsend(), buffer, size, "MPI_Buffer_detach");
  if (r.error_class == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, r.error_class, "%s", r.message.c_str());
}

int comm_attach(const Call& call, MPI_Comm comm, void* buffer, MPI_Count size) {
  GPURUN_CHECK_COMM(entry, comm);
  AttachResult r = attach_bsend(slot_of(entry->bsend), buffer, size, "MPI_Comm_detach_buffer");
  if (r.error_class == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(call, comm, r.error_class, "%s", r.message.c_str());
}

int session_attach(const Call& call, MPI_Session session, void* buffer, MPI_Count size) {
  GPURUN_CHECK_SESSION(s, session);
  AttachResult r = attach_bsend(slot_of(s->bsend), buffer, size, "MPI_Session_detach_buffer");
  if (r.error_class == MPI_SUCCESS) return MPI_SUCCESS;
  return raise_session(call, session, r.error_class, "%s", r.message.c_str());
}

// The int forms of the detach calls: a buffer attached through a _c form may not fit an int.
int int_size(MPI_Count bytes) { return bytes > INT_MAX ? MPI_UNDEFINED : static_cast<int>(bytes); }

// Detaches `slot` (none attached: nullptr and 0) into the caller's arguments, checked.
template <class Size>
int detach_into(const Call& call, MPI_Comm comm, BsendSlot* slot, void* buffer_addr, Size* size) {
  GPURUN_CHECK_NOT_NULL(comm, buffer_addr);
  GPURUN_CHECK_NOT_NULL(comm, size);
  MPI_Count bytes = 0;
  if (slot != nullptr) {
    detach_bsend(*slot, buffer_addr, &bytes);
  } else {
    *static_cast<void**>(buffer_addr) = nullptr;
  }
  if constexpr (sizeof(Size) == sizeof(int)) {
    *size = int_size(bytes);
  } else {
    *size = bytes;
  }
  return MPI_SUCCESS;
}

template <class Size>
int comm_detach(const Call& call, MPI_Comm comm, void* buffer_addr, Size* size) {
  GPURUN_CHECK_COMM(entry, comm);
  return detach_into(call, comm, entry->bsend.get(), buffer_addr, size);
}

template <class Size>
int session_detach(const Call& call, MPI_Session session, void* buffer_addr, Size* size) {
  GPURUN_CHECK_SESSION(s, session);
  if (buffer_addr == nullptr || size == nullptr) {
    return raise_session(call, session, MPI_ERR_ARG, "argument %s is a null pointer",
                         buffer_addr == nullptr ? "buffer_addr" : "size");
  }
  return detach_into(call, MPI_COMM_NULL, s->bsend.get(), buffer_addr, size);
}

// MPI_*_iflush_buffer's request for `slot` (none attached: complete at once).
int iflush_into(const Call& call, MPI_Comm comm, BsendSlot* slot, MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(comm, request);
  core::Request* r = slot ? iflush_bsend(*slot) : completed_request(core::MessageStatus{});
  *request = handle_of(r);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  GPURUN_API_ENTER("MPI_Buffer_attach");
  return process_attach(call, buffer, size);
}

extern "C" int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  GPURUN_API_ENTER("MPI_Buffer_attach_c");
  return process_attach(call, buffer, size);
}

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  GPURUN_API_ENTER("MPI_Buffer_detach");
  return detach_into(call, MPI_COMM_NULL, &process_bsend(), buffer_addr, size);
}

extern "C" int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Buffer_detach_c");
  return detach_into(call, MPI_COMM_NULL, &process_bsend(), buffer_addr, size);
}

extern "C" int PMPI_Buffer_flush() {
  GPURUN_API_ENTER("MPI_Buffer_flush");
  flush_bsend(process_bsend());
  return MPI_SUCCESS;
}

extern "C" int PMPI_Buffer_iflush(MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Buffer_iflush");
  return iflush_into(call, MPI_COMM_NULL, &process_bsend(), request);
}

extern "C" int PMPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  GPURUN_API_ENTER("MPI_Comm_attach_buffer");
  return comm_attach(call, comm, buffer, size);
}

extern "C" int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  GPURUN_API_ENTER("MPI_Comm_attach_buffer_c");
  return comm_attach(call, comm, buffer, size);
}

extern "C" int PMPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  GPURUN_API_ENTER("MPI_Comm_detach_buffer");
  return comm_detach(call, comm, buffer_addr, size);
}

extern "C" int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Comm_detach_buffer_c");
  return comm_detach(call, comm, buffer_addr, size);
}

extern "C" int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Comm_flush_buffer");
  GPURUN_CHECK_COMM(entry, comm);
  if (entry->bsend) flush_bsend(*entry->bsend);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Comm_iflush_buffer");
  GPURUN_CHECK_COMM(entry, comm);
  return iflush_into(call, comm, entry->bsend.get(), request);
}

extern "C" int PMPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  GPURUN_API_ENTER("MPI_Session_attach_buffer");
  return session_attach(call, session, buffer, size);
}

extern "C" int PMPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  GPURUN_API_ENTER("MPI_Session_attach_buffer_c");
  return session_attach(call, session, buffer, size);
}

extern "C" int PMPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  GPURUN_API_ENTER("MPI_Session_detach_buffer");
  return session_detach(call, session, buffer_addr, size);
}

extern "C" int PMPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr,
                                            MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Session_detach_buffer_c");
  return session_detach(call, session, buffer_addr, size);
}

extern "C" int PMPI_Session_flush_buffer(MPI_Session session) {
  GPURUN_API_ENTER("MPI_Session_flush_buffer");
  GPURUN_CHECK_SESSION(s, session);
  if (s->bsend) flush_bsend(*s->bsend);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Session_iflush_buffer");
  GPURUN_CHECK_SESSION(s, session);
  if (request == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument request is a null pointer");
  return iflush_into(call, MPI_COMM_NULL, s->bsend.get(), request);
}

GPURUN_MPI_ALIAS(MPI_Buffer_attach)
GPURUN_MPI_ALIAS(MPI_Buffer_attach_c)
GPURUN_MPI_ALIAS(MPI_Buffer_detach)
GPURUN_MPI_ALIAS(MPI_Buffer_detach_c)
GPURUN_MPI_ALIAS(MPI_Buffer_flush)
GPURUN_MPI_ALIAS(MPI_Buffer_iflush)
GPURUN_MPI_ALIAS(MPI_Comm_attach_buffer)
GPURUN_MPI_ALIAS(MPI_Comm_attach_buffer_c)
GPURUN_MPI_ALIAS(MPI_Comm_detach_buffer)
GPURUN_MPI_ALIAS(MPI_Comm_detach_buffer_c)
GPURUN_MPI_ALIAS(MPI_Comm_flush_buffer)
GPURUN_MPI_ALIAS(MPI_Comm_iflush_buffer)
GPURUN_MPI_ALIAS(MPI_Session_attach_buffer)
GPURUN_MPI_ALIAS(MPI_Session_attach_buffer_c)
GPURUN_MPI_ALIAS(MPI_Session_detach_buffer)
GPURUN_MPI_ALIAS(MPI_Session_detach_buffer_c)
GPURUN_MPI_ALIAS(MPI_Session_flush_buffer)
GPURUN_MPI_ALIAS(MPI_Session_iflush_buffer)
