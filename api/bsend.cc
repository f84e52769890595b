// MPI_Bsend, MPI_Ibsend and their large-count _c forms; the buffers' slots and their flushes
// (the attach, detach and flush calls themselves are in api/bsend_attach.cc).
#include "api/bsend.h"

#include "api/checks.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "api/session.h"
#include "api/state.h"
#include "runtime/base/log.h"

namespace gpurun::api {

BsendSlot& process_bsend() {
  static auto* slot = new BsendSlot();  // never destroyed: ranks exit from anywhere
  return *slot;
}

namespace {

std::size_t g_in_flight = 0;  // buffered sends not yet completed, over every slot

const core::Datatype* byte_type() {
  static const core::Datatype* type = find_datatype(MPI_BYTE);
  return type;
}

// Completes the slot's flush requests whose sends have all completed.
void settle_flushes(BsendSlot& slot) {
  std::erase_if(slot.flushes, [&slot](const BsendSlot::Flush& f) {
    if (!slot.buffer.released_upto(f.upto)) return false;
    f.request->set_complete();
    if (f.request->orphan) the_pml().requests().release(f.request);  // freed meanwhile
    return true;
  });
}

// The internal send of a buffered message completed: its block (the request's buffer) goes
// back to its slot (the request's owner).
void on_buffered_send_done(core::Request* r) {
  if (r->status.error == ErrorCode::kPeerFailed) {
    GPURUN_LOG(warn, pml,
               "a buffered send (MPI_Bsend or MPI_Ibsend) of %llu bytes to rank %d, tag %d, was "
               "never received: that rank finalized (or was lost) without a matching receive",
               static_cast<unsigned long long>(r->size), r->peer, r->tag);
  } else if (r->status.error != ErrorCode::kOk) {
    GPURUN_LOG(warn, pml, "buffered send of %llu bytes to rank %d failed: %s",
               static_cast<unsigned long long>(r->size), r->peer,
               std::string(error_code_name(r->status.error)).c_str());
  }
  auto& slot = *static_cast<BsendSlot*>(r->owner);
  slot.buffer.release(static_cast<std::byte*>(r->buffer));
  --g_in_flight;
  settle_flushes(slot);
}

// Waits until every block of the slot's buffer is back (before it is detached).
void drain(BsendSlot& slot) {
  BsendBuffer& buffer = slot.buffer;
  if (buffer.blocks() != 0) wait_until([&buffer] { return buffer.blocks() == 0; });
}

BsendSlot* attached(const std::shared_ptr<BsendSlot>& slot) {
  return slot && slot->buffer.attached() ? slot.get() : nullptr;
}

// The slot a buffered send on `comm` takes its space from.
BsendSlot& slot_for(MPI_Comm comm) {
  if (const CommEntry* entry = find_comm(comm)) {
    if (BsendSlot* own = attached(entry->bsend)) return *own;
    if (const Session* s = find_session(entry->session)) {
      if (BsendSlot* session = attached(s->bsend)) return *session;
    }
  }
  return process_bsend();
}

int no_room(const Call& call, MPI_Comm comm, const BsendBuffer& buffer, std::size_t bytes) {
  if (!buffer.attached()) {
    return raise(call, comm, MPI_ERR_BUFFER,
                 "no buffer is attached for buffered sends (call MPI_Buffer_attach, or "
                 "MPI_Comm_attach_buffer, first)");
  }
  return raise(call, comm, MPI_ERR_BUFFER,
               "a message of %zu bytes (+%d of MPI_BSEND_OVERHEAD) does not fit the attached "
               "buffer (%zu bytes, %zu buffered messages in flight): attach a larger buffer",
               bytes, MPI_BSEND_OVERHEAD, buffer.size(), buffer.blocks());
}

}  // namespace

int bsend_start(const Call& call, MPI_Comm comm, const pml::SendArgs& args) {
  BsendSlot& slot = slot_for(comm);
  BsendBuffer& buffer = slot.buffer;
  auto bytes = static_cast<std::size_t>(args.count * args.type->size());
  std::byte* block = buffer.allocate(bytes);
  if (block == nullptr) return no_room(call, comm, buffer, bytes);
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
  r->owner = &slot;
  r->on_complete = on_buffered_send_done;
  ++g_in_flight;
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
      --g_in_flight;
      buffer.release(block);
      pml.requests().release(r);
    }
    return raise_status(call, comm, st);
  }
  return MPI_SUCCESS;
}

AttachResult attach_bsend(BsendSlot& slot, void* buffer, MPI_Count size, const char* detach_call) {
  if (buffer == MPI_BUFFER_AUTOMATIC) size = 0;  // the standard: size is ignored then
  if (size < 0) return {MPI_ERR_ARG, "argument size " + std::to_string(size) + " is negative"};
  if (buffer == nullptr && size > 0) {
    return {MPI_ERR_BUFFER, "argument buffer is a null pointer with size " + std::to_string(size)};
  }
  const BsendBuffer& now = slot.buffer;
  if (now.attached()) {
    std::string what = now.automatic() ? std::string("MPI_BUFFER_AUTOMATIC")
                                       : std::to_string(now.size()) + " bytes";
    return {MPI_ERR_BUFFER, "a buffer is already attached here (" + what + "): detach it with " +
                                detach_call + " first"};
  }
  slot.buffer.attach(buffer, static_cast<std::size_t>(size));
  return {};
}

void detach_bsend(BsendSlot& slot, void* buffer_addr, MPI_Count* size) {
  drain(slot);
  *static_cast<void**>(buffer_addr) = slot.buffer.base();
  *size = static_cast<MPI_Count>(slot.buffer.size());
  slot.buffer.detach();
}

void flush_bsend(BsendSlot& slot) {
  const BsendBuffer& buffer = slot.buffer;
  std::uint64_t upto = buffer.taken();
  if (!buffer.released_upto(upto))
    wait_until([&buffer, upto] { return buffer.released_upto(upto); });
}

core::Request* iflush_bsend(BsendSlot& slot) {
  std::uint64_t upto = slot.buffer.taken();
  if (slot.buffer.released_upto(upto)) return completed_request(core::MessageStatus{});
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kComposite;
  r->active = true;
  slot.flushes.push_back({r, upto});
  return r;
}

void retire_bsend(std::shared_ptr<BsendSlot>& slot) {
  if (!slot) return;
  drain(*slot);
  slot->buffer.detach();
  slot.reset();
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
