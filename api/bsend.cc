// MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend and their large-count _c forms.
#include "api/bsend.h"

#include <climits>

#include "api/bsend_buffer.h"
#include "api/checks.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "runtime/base/log.h"

namespace gpurun::api {
namespace {

BsendBuffer& bsend_buffer() {
  static BsendBuffer buffer;
  return buffer;
}

const core::Datatype* byte_type() {
  static const core::Datatype* type = find_datatype(MPI_BYTE);
  return type;
}

// The internal send of a buffered message completed: its block goes back to the buffer.
void on_buffered_send_done(core::Request* r) {
  if (r->status.error != ErrorCode::kOk) {
    GPURUN_LOG(warn, pml, "buffered send of %llu bytes to rank %d failed: %s",
               static_cast<unsigned long long>(r->size), r->peer,
               std::string(error_code_name(r->status.error)).c_str());
  }
  bsend_buffer().release(static_cast<std::byte*>(r->owner));
}

int no_room(const Call& call, MPI_Comm comm, std::size_t bytes) {
  const BsendBuffer& buffer = bsend_buffer();
  if (!buffer.attached()) {
    return raise(call, comm, MPI_ERR_BUFFER,
                 "no buffer is attached for buffered sends (call MPI_Buffer_attach first)");
  }
  return raise(call, comm, MPI_ERR_BUFFER,
               "a message of %zu bytes (+%d of MPI_BSEND_OVERHEAD) does not fit the attached "
               "buffer (%zu bytes, %zu buffered messages in flight): attach a larger buffer",
               bytes, MPI_BSEND_OVERHEAD, buffer.size(), buffer.blocks());
}

}  // namespace

int bsend_start(const Call& call, MPI_Comm comm, const pml::SendArgs& args) {
  BsendBuffer& buffer = bsend_buffer();
  auto bytes = static_cast<std::size_t>(args.count * args.type->size());
  std::byte* block = buffer.allocate(bytes);
  if (block == nullptr) return no_room(call, comm, bytes);
  pml::Pml& pml = the_pml();
  if (pml.send_now(args)) {
    buffer.release(block);
    return MPI_SUCCESS;
  }
  if (int rc = pack_to_host(call, comm, args, block); rc != MPI_SUCCESS) {
    buffer.release(block);
    return rc;
  }
  core::Request* r = pml.requests().allocate();
  r->orphan = true;  // nobody waits for it: the pml releases it when it completes
  r->owner = block;
  r->on_complete = on_buffered_send_done;
  pml::SendArgs copy{.comm = args.comm,
                     .buf = block,
                     .count = static_cast<std::int64_t>(bytes),
                     .type = byte_type(),
                     .dest = args.dest,
                     .tag = args.tag,
                     .channel = args.channel};
  Status st = pml.isend(copy, r);
  if (!st.ok()) {
    if (!r->complete()) {
      buffer.release(block);
      pml.requests().release(r);
    }
    return raise_status(call, comm, st);
  }
  return MPI_SUCCESS;
}

void wait_buffered_sends() {
  BsendBuffer& buffer = bsend_buffer();
  if (buffer.blocks() != 0) wait_until([&buffer] { return buffer.blocks() == 0; });
}

namespace {

int buffered_send(const Call& call, const SendCall& a) {
  Resolved res;
  if (int rc = check_send(call, a, &res); rc != MPI_SUCCESS) return rc;
  if (a.dest == MPI_PROC_NULL) return MPI_SUCCESS;
  return bsend_start(call, a.comm, send_args(a, res));
}

int ibuffered_send(const Call& call, const SendCall& a, MPI_Request* request) {
  Resolved res;
  if (int rc = check_send(call, a, &res); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(a.comm, request);
  if (a.dest != MPI_PROC_NULL) {
    if (int rc = bsend_start(call, a.comm, send_args(a, res)); rc != MPI_SUCCESS) return rc;
  }
  // The message is in the attached buffer (or gone): the request is complete at once.
  core::MessageStatus status = a.dest == MPI_PROC_NULL ? proc_null_status() : core::MessageStatus{};
  *request = handle_of(completed_request(status));
  return MPI_SUCCESS;
}

int buffer_attach(const Call& call, void* buffer, MPI_Count size) {
  if (size < 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument size %lld is negative",
                 static_cast<long long>(size));
  }
  if (buffer == nullptr && size > 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_BUFFER,
                 "argument buffer is a null pointer with size %lld", static_cast<long long>(size));
  }
  if (!bsend_buffer().attach(buffer, static_cast<std::size_t>(size))) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_BUFFER,
                 "a buffer is already attached (%zu bytes): detach it with MPI_Buffer_detach "
                 "first",
                 bsend_buffer().size());
  }
  return MPI_SUCCESS;
}

// Waits for the buffered sends in flight, then gives the buffer back through *buffer_addr
// (a void**, as the standard's C binding says) and *size.
int buffer_detach(const Call& call, void* buffer_addr, MPI_Count* size) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, buffer_addr);
  wait_buffered_sends();
  BsendBuffer& buffer = bsend_buffer();
  *static_cast<void**>(buffer_addr) = buffer.base();
  *size = static_cast<MPI_Count>(buffer.size());
  buffer.detach();
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using gpurun::pml::SendMode;

#define GPURUN_BSEND_FN(name, count_type)                                                        \
  extern "C" int P##name(const void* buf, count_type count, MPI_Datatype datatype, int dest,     \
                         int tag, MPI_Comm comm) {                                               \
    GPURUN_API_ENTER(#name);                                                                     \
    return buffered_send(call,                                                                   \
                         send_call(buf, count, datatype, dest, tag, comm, SendMode::kStandard)); \
  }                                                                                              \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_IBSEND_FN(name, count_type)                                                     \
  extern "C" int P##name(const void* buf, count_type count, MPI_Datatype datatype, int dest,   \
                         int tag, MPI_Comm comm, MPI_Request* request) {                       \
    GPURUN_API_ENTER(#name);                                                                   \
    return ibuffered_send(                                                                     \
        call, send_call(buf, count, datatype, dest, tag, comm, SendMode::kStandard), request); \
  }                                                                                            \
  GPURUN_MPI_ALIAS(name)

GPURUN_BSEND_FN(MPI_Bsend, int)
GPURUN_BSEND_FN(MPI_Bsend_c, MPI_Count)
GPURUN_IBSEND_FN(MPI_Ibsend, int)
GPURUN_IBSEND_FN(MPI_Ibsend_c, MPI_Count)

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  GPURUN_API_ENTER("MPI_Buffer_attach");
  return buffer_attach(call, buffer, size);
}

extern "C" int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  GPURUN_API_ENTER("MPI_Buffer_attach_c");
  return buffer_attach(call, buffer, size);
}

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  GPURUN_API_ENTER("MPI_Buffer_detach");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, size);
  MPI_Count bytes = 0;
  if (int rc = buffer_detach(call, buffer_addr, &bytes); rc != MPI_SUCCESS) return rc;
  // A buffer attached through MPI_Buffer_attach_c may not fit an int.
  *size = bytes > INT_MAX ? MPI_UNDEFINED : static_cast<int>(bytes);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Buffer_detach_c");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, size);
  return buffer_detach(call, buffer_addr, size);
}

GPURUN_MPI_ALIAS(MPI_Buffer_attach)
GPURUN_MPI_ALIAS(MPI_Buffer_attach_c)
GPURUN_MPI_ALIAS(MPI_Buffer_detach)
GPURUN_MPI_ALIAS(MPI_Buffer_detach_c)
