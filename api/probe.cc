// MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv (and the _c forms of
// the last two).
//
// Probes look at the messages that arrived before a receive matched them, after a round of
// progress so that a waiting message is seen. MPI_Mprobe takes the message off the queue and
// names it by an MPI_Message handle: the MPICH encoding of a request, with the direct kind so
// that it never aliases an MPI_Request handle. MPI_MESSAGE_NO_PROC is the message of a probe
// of MPI_PROC_NULL.
#include "api/checks.h"
#include "api/memory.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {
namespace {

struct MessageEntry {
  pml::Message* message;
  const core::Communicator* comm;
  MPI_Comm comm_handle;
};

HandleTable<MessageEntry>& messages() {
  static HandleTable<MessageEntry> table;
  return table;
}

MPI_Message message_handle(std::uint32_t index) {
  return make_handle(HandleKind::kDirect, ObjectType::kRequest, index);
}

MessageEntry* find_message(MPI_Message handle) {
  if (handle_kind(handle) != HandleKind::kDirect || handle_type(handle) != ObjectType::kRequest)
    return nullptr;
  return messages().find(handle_index(handle));
}

int check_probe(const Call& call, int source, int tag, MPI_Comm comm, CommEntry** out) {
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_RANK(comm, entry, "source", source, true);
  GPURUN_CHECK_TAG(comm, tag, true);
  *out = entry;
  return MPI_SUCCESS;
}

// Looks for a matching message (takes it off the queue when `message`).
bool find(const CommEntry& entry, int source, int tag, core::MessageStatus* m,
          pml::Message** message) {
  pml::Pml& pml = the_pml();
  if (message == nullptr) return pml.iprobe(*entry.comm, source, tag, pml::Channel::kUser, m);
  *message = pml.improbe(*entry.comm, source, tag, pml::Channel::kUser, m);
  return *message != nullptr;
}

// Polls once, then looks; when nothing matches and `source` left, `gone`. A rank that left
// sent everything before it said so (pml/leave.cc): a probe that found nothing never will.
bool look(const CommEntry& entry, int source, int tag, core::MessageStatus* m,
          pml::Message** message, bool* gone) {
  progress::engine().poll();
  if (find(entry, source, tag, m, message)) return true;
  *gone = the_pml().left(*entry.comm, source);
  return false;
}

// Until a message matches (true) or `source` has left without one (false). From
// MPI_ANY_SOURCE: until every other member has left, when no other thread could send to this
// rank (look() polled first: what this rank sent itself before is in).
bool wait_look(const CommEntry& entry, int source, int tag, core::MessageStatus* m,
               pml::Message** message) {
  bool gone = false;
  auto alone = [&] {
    return source == MPI_ANY_SOURCE && !g_thread_multiple && the_pml().all_others_left(*entry.comm);
  };
  if (look(entry, source, tag, m, message, &gone)) return true;
  if (gone || alone()) return false;
  bool found = false;
  wait_until([&] {
    found = find(entry, source, tag, m, message);
    return found || the_pml().left(*entry.comm, source) || alone();
  });
  return found;
}

int source_gone(const Call& call, MPI_Comm comm, int source) {
  if (source == MPI_ANY_SOURCE)
    return raise(call, comm, MPI_ERR_PROC_ABORTED,
                 "every other rank of the communicator called MPI_Finalize: no message matches "
                 "this probe from MPI_ANY_SOURCE");
  return raise(call, comm, MPI_ERR_PROC_ABORTED,
               "rank %d called MPI_Finalize: no message from it matches this probe", source);
}

MPI_Message keep_message(pml::Message* message, const CommEntry& entry, MPI_Comm comm) {
  auto stored = std::make_unique<MessageEntry>(MessageEntry{message, entry.comm.get(), comm});
  return message_handle(messages().insert(std::move(stored)));
}

struct ProbeCall {
  int source;
  int tag;
  MPI_Comm comm;
  bool block;
};

int probe(const Call& call, const ProbeCall& a, int* flag, MPI_Status* status) {
  CommEntry* entry = nullptr;
  if (int rc = check_probe(call, a.source, a.tag, a.comm, &entry); rc != MPI_SUCCESS) return rc;
  if (!a.block) GPURUN_CHECK_NOT_NULL(a.comm, flag);
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  if (flag != nullptr) *flag = 1;
  if (a.source == MPI_PROC_NULL) {
    write_status(status, proc_null_status());
    return MPI_SUCCESS;
  }
  core::MessageStatus m;
  bool gone = false;
  if (a.block) {
    if (!wait_look(*entry, a.source, a.tag, &m, nullptr))
      return source_gone(call, a.comm, a.source);
  } else if (!look(*entry, a.source, a.tag, &m, nullptr, &gone)) {
    *flag = 0;
    return gone ? source_gone(call, a.comm, a.source) : MPI_SUCCESS;
  }
  write_status(status, m);
  return MPI_SUCCESS;
}

int mprobe(const Call& call, const ProbeCall& a, int* flag, MPI_Message* message,
           MPI_Status* status) {
  CommEntry* entry = nullptr;
  if (int rc = check_probe(call, a.source, a.tag, a.comm, &entry); rc != MPI_SUCCESS) return rc;
  if (!a.block) GPURUN_CHECK_NOT_NULL(a.comm, flag);
  GPURUN_CHECK_NOT_NULL(a.comm, message);
  GPURUN_CHECK_STATUS_OUT(a.comm, "status", status);
  if (flag != nullptr) *flag = 1;
  if (a.source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    write_status(status, proc_null_status());
    return MPI_SUCCESS;
  }
  core::MessageStatus m;
  pml::Message* found = nullptr;
  bool gone = false;
  if (a.block) {
    if (!wait_look(*entry, a.source, a.tag, &m, &found)) return source_gone(call, a.comm, a.source);
  } else if (!look(*entry, a.source, a.tag, &m, &found, &gone)) {
    *flag = 0;
    return gone ? source_gone(call, a.comm, a.source) : MPI_SUCCESS;
  }
  *message = keep_message(found, *entry, a.comm);
  write_status(status, m);
  return MPI_SUCCESS;
}

struct MrecvCall {
  void* buf;
  MPI_Count count;
  MPI_Datatype datatype;
  MPI_Message* message;
};

// Checks the arguments of MPI_Mrecv/MPI_Imrecv; `entry` is null for MPI_MESSAGE_NO_PROC.
int check_mrecv(const Call& call, const MrecvCall& a, MessageEntry** entry,
                const core::Datatype** out_type) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, a.message);
  *entry = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  if (*a.message != MPI_MESSAGE_NO_PROC) {
    *entry = find_message(*a.message);
    if (*entry == nullptr) {
      return raise(call, MPI_COMM_NULL, MPI_ERR_REQUEST,
                   *a.message == MPI_MESSAGE_NULL
                       ? "argument message is MPI_MESSAGE_NULL"
                       : "argument message (0x%x) is not a message (already received?)",
                   static_cast<unsigned>(*a.message));
    }
    comm = (*entry)->comm_handle;
  }
  GPURUN_CHECK_COUNT(comm, a.count);
  GPURUN_CHECK_TYPE(comm, type, a.datatype);
  GPURUN_CHECK_BUFFER(comm, a.buf, a.count, type);
  *out_type = type;
  return MPI_SUCCESS;
}

// Starts the receive of a probed message on a new request.
int start_mrecv(const Call& call, const MrecvCall& a, MessageEntry* entry,
                const core::Datatype* type, core::Request** out) {
  pml::Pml& pml = the_pml();
  core::Request* r = pml.requests().allocate();
  pml::RecvArgs args{.comm = entry->comm,
                     .buf = a.buf,
                     .count = a.count,
                     .type = type,
                     .source = entry->message->source,
                     .tag = entry->message->tag,
                     .memory = memory_of(a.buf)};
  MPI_Comm comm = entry->comm_handle;
  Status st = pml.mrecv(entry->message, args, r);
  messages().release(handle_index(*a.message));
  *a.message = MPI_MESSAGE_NULL;
  if (!st.ok()) {
    pml.requests().release(r);
    return raise_status(call, comm, st);
  }
  *out = r;
  return MPI_SUCCESS;
}

int mrecv(const Call& call, const MrecvCall& a, MPI_Status* status) {
  MessageEntry* entry = nullptr;
  const core::Datatype* type = nullptr;
  if (int rc = check_mrecv(call, a, &entry, &type); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_STATUS_OUT(entry ? entry->comm_handle : MPI_COMM_NULL, "status", status);
  if (entry == nullptr) {
    *a.message = MPI_MESSAGE_NULL;
    write_status(status, proc_null_status());
    return MPI_SUCCESS;
  }
  core::Request* r = nullptr;
  if (int rc = start_mrecv(call, a, entry, type, &r); rc != MPI_SUCCESS) return rc;
  if (!r->complete()) wait_for(r);
  MPI_Request handle = MPI_REQUEST_NULL;
  return collect(call, r, &handle, status);
}

int imrecv(const Call& call, const MrecvCall& a, MPI_Request* request) {
  MessageEntry* entry = nullptr;
  const core::Datatype* type = nullptr;
  if (int rc = check_mrecv(call, a, &entry, &type); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(entry ? entry->comm_handle : MPI_COMM_NULL, request);
  if (entry == nullptr) {
    *a.message = MPI_MESSAGE_NULL;
    *request = handle_of(completed_request(proc_null_status()));
    return MPI_SUCCESS;
  }
  core::Request* r = nullptr;
  if (int rc = start_mrecv(call, a, entry, type, &r); rc != MPI_SUCCESS) return rc;
  r->active = true;
  *request = handle_of(r);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Probe");
  return probe(call, ProbeCall{source, tag, comm, true}, nullptr, status);
}

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Iprobe");
  return probe(call, ProbeCall{source, tag, comm, false}, flag, status);
}

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                           MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Mprobe");
  return mprobe(call, ProbeCall{source, tag, comm, true}, nullptr, message, status);
}

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Improbe");
  return mprobe(call, ProbeCall{source, tag, comm, false}, flag, message, status);
}

#define GPURUN_MRECV_FN(name, count_type)                                                          \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, MPI_Message* message, \
                         MPI_Status* status) {                                                     \
    GPURUN_API_ENTER(#name);                                                                       \
    return mrecv(call, MrecvCall{buf, count, datatype, message}, status);                          \
  }                                                                                                \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_IMRECV_FN(name, count_type)                                                         \
  extern "C" int P##name(void* buf, count_type count, MPI_Datatype datatype, MPI_Message* message, \
                         MPI_Request* request) {                                                   \
    GPURUN_API_ENTER(#name);                                                                       \
    return imrecv(call, MrecvCall{buf, count, datatype, message}, request);                        \
  }                                                                                                \
  GPURUN_MPI_ALIAS(name)

GPURUN_MRECV_FN(MPI_Mrecv, int)
GPURUN_MRECV_FN(MPI_Mrecv_c, MPI_Count)
GPURUN_IMRECV_FN(MPI_Imrecv, int)
GPURUN_IMRECV_FN(MPI_Imrecv_c, MPI_Count)

GPURUN_MPI_ALIAS(MPI_Probe)
GPURUN_MPI_ALIAS(MPI_Iprobe)
GPURUN_MPI_ALIAS(MPI_Mprobe)
GPURUN_MPI_ALIAS(MPI_Improbe)
