// The queues of enqueued operations and the MPIX_*_enqueue calls (api/enqueue.h).
#include "api/enqueue.h"

#include <algorithm>
#include <cstddef>

#include "api/checks.h"
#include "api/coll.h"
#include "api/progress_helper.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "api/stream.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {
namespace {

// The queues of streams that have had enqueued operations, and how many have points pending
// (the poller's pending word).
std::vector<EnqueueQueue*>& queues() {
  static auto* list = new std::vector<EnqueueQueue*>();
  return *list;
}
progress::PendingWord g_busy{0};

int poll_queues(void* /*context*/) {
  int work = 0;
  for (EnqueueQueue* q : queues()) work += q->poll();
  return work;
}

// What the queues do with their requests: MPI's start, completion and collection.
class MpiOperations final : public EnqueueQueue::Operations {
 public:
  bool start(core::Request* r, const char* call_name) override {
    return start_request(Call{call_name}, r) == MPI_SUCCESS;
  }
  bool complete(const core::Request* r) override { return r->complete(); }
  void finish(core::Request* r, const char* call_name, bool failed, MPI_Status* status) override {
    if (!failed) {
      write_status(status, r->status);
      if (r->status.error != ErrorCode::kOk) raise_request(Call{call_name}, r);
    }
    r->enqueued = false;
    r->active = false;
    release_request(r);
  }
  void abandon(core::Request* r) override {
    r->enqueued = false;
    if (r->complete() || !r->active) {
      release_request(r);
    } else {
      orphan_request(r);
    }
  }
  void busy(bool busy) override {
    if (busy) {
      progress::add_pending(g_busy, 1);
      helper::helped_begin();
    } else {
      progress::add_pending(g_busy, -1);
      helper::helped_end();
    }
  }
};

MpiOperations g_operations;

// The queue of `comm`'s CUDA stream on this process, made on first use; or the error.
int queue_of(const Call& call, MPI_Comm comm, EnqueueQueue** out) {
  GPURUN_CHECK_COMM(entry, comm);
  StreamEntry* stream = local_stream(*entry);
  if (stream == nullptr || !stream->device) {
    return raise(call, comm, MPI_ERR_COMM,
                 "argument comm has no CUDA stream on this rank (make it with "
                 "MPIX_Stream_comm_create and a stream of type \"cudaStream_t\")");
  }
  if (!stream->enqueued) {
    static const bool polled = [] {
      progress::engine().add(poll_queues, nullptr, "enqueued operations", &g_busy);
      return true;
    }();
    (void)polled;
    stream->enqueued = std::make_unique<EnqueueQueue>(*stream->device, g_operations);
    queues().push_back(stream->enqueued.get());
  }
  *out = stream->enqueued.get();
  return MPI_SUCCESS;
}

}  // namespace

void drop_queue(std::unique_ptr<EnqueueQueue> queue) {
  auto& list = queues();
  list.erase(std::remove(list.begin(), list.end(), queue.get()), list.end());
}

namespace {

// The request `handle` (argument `request`, or array_of_requests[index] when index >= 0) if a
// queue may wait for it; or the error.
int enqueued_request(const Call& call, int index, MPI_Request handle, core::Request** out,
                     EnqueueQueue** queue) {
  core::Request* r = find_request(handle);
  auto& list = queues();
  auto it = r == nullptr || !r->enqueued
                ? list.end()
                : std::find_if(list.begin(), list.end(),
                               [r](const EnqueueQueue* q) { return q->waitable(r); });
  if (it != list.end()) {
    *out = r;
    *queue = *it;
    return MPI_SUCCESS;
  }
  std::string arg = index < 0 ? "request" : "array_of_requests[" + std::to_string(index) + "]";
  if (r == nullptr) return bad_request(call, arg.c_str(), handle);
  return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
               "argument %s (0x%x) is not a request of MPIX_Isend_enqueue or "
               "MPIX_Irecv_enqueue that is still to be waited for",
               arg.c_str(), static_cast<unsigned>(handle));
}

// Appends the start of the persistent request `handle` made for `call` (and its wait point
// when `request` is null: a blocking form; its status goes to `status`).
int append(const Call& call, MPI_Comm comm, EnqueueQueue& queue, MPI_Request handle,
           MPI_Request* request, MPI_Status* status) {
  core::Request* r = find_request(handle);
  r->enqueued = true;
  if (Status st = queue.start_at(call.name, r); !st.ok()) {
    r->enqueued = false;
    release_request(r);
    return raise_status(call, comm, st);
  }
  if (request != nullptr) {
    *request = handle;
    return MPI_SUCCESS;
  }
  if (Status st = queue.wait_for({r}, {status}); !st.ok()) return raise_status(call, comm, st);
  return MPI_SUCCESS;
}

template <class Count>
int send_enqueue(const Call& call, const void* buf, Count count, MPI_Datatype datatype, int dest,
                 int tag, MPI_Comm comm, MPI_Request* request) {
  EnqueueQueue* queue = nullptr;
  if (int rc = queue_of(call, comm, &queue); rc != MPI_SUCCESS) return rc;
  MPI_Request handle = MPI_REQUEST_NULL;
  SendCall a = send_call(buf, count, datatype, dest, tag, comm, pml::SendMode::kStandard);
  if (int rc = persistent_send(call, a, &handle); rc != MPI_SUCCESS) return rc;
  return append(call, comm, *queue, handle, request, MPI_STATUS_IGNORE);
}

template <class Count>
int recv_enqueue(const Call& call, void* buf, Count count, MPI_Datatype datatype, int source,
                 int tag, MPI_Comm comm, MPI_Status* status, MPI_Request* request) {
  EnqueueQueue* queue = nullptr;
  if (int rc = queue_of(call, comm, &queue); rc != MPI_SUCCESS) return rc;
  MPI_Request handle = MPI_REQUEST_NULL;
  if (int rc = persistent_recv(call, recv_call(buf, count, datatype, source, tag, comm), &handle);
      rc != MPI_SUCCESS)
    return rc;
  return append(call, comm, *queue, handle, request, status);
}

template <class Count>
int allreduce_enqueue(const Call& call, const void* sendbuf, void* recvbuf, Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  EnqueueQueue* queue = nullptr;
  if (int rc = queue_of(call, comm, &queue); rc != MPI_SUCCESS) return rc;
  MPI_Request handle = MPI_REQUEST_NULL;
  if (int rc = allreduce_init(call, sendbuf, recvbuf, count, datatype, op, comm, &handle);
      rc != MPI_SUCCESS)
    return rc;
  return append(call, comm, *queue, handle, nullptr, MPI_STATUS_IGNORE);
}

// MPIX_Wait_enqueue (`single`: the argument is `request`) and MPIX_Waitall_enqueue.
int wait_enqueue(const Call& call, int count, MPI_Request* requests, MPI_Status* statuses,
                 bool single) {
  std::vector<core::Request*> list;
  std::vector<MPI_Status*> outs;
  EnqueueQueue* queue = nullptr;
  for (int i = 0; i < count; ++i) {
    MPI_Status* out = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    if (requests[i] == MPI_REQUEST_NULL) {
      if (out != MPI_STATUS_IGNORE) write_empty_status(out);
      continue;
    }
    core::Request* r = nullptr;
    EnqueueQueue* q = nullptr;
    int index = single ? -1 : i;
    if (int rc = enqueued_request(call, index, requests[i], &r, &q); rc != MPI_SUCCESS) return rc;
    if (queue != nullptr && q != queue) {
      return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                   "argument array_of_requests[%d] was enqueued on another stream than the "
                   "requests before it",
                   i);
    }
    queue = q;
    list.push_back(r);
    outs.push_back(out);
  }
  if (list.empty()) return MPI_SUCCESS;
  if (Status st = queue->wait_for(list, std::move(outs)); !st.ok())
    return raise_status(call, comm_handle_of(list.front()), st);
  for (int i = 0; i < count; ++i) requests[i] = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

#define GPURUN_ENQUEUE(sfx, count_t)                                                               \
  extern "C" int PMPIX_Send_enqueue##sfx(const void* buf, count_t count, MPI_Datatype datatype,    \
                                         int dest, int tag, MPI_Comm comm) {                       \
    GPURUN_API_ENTER("MPIX_Send_enqueue" #sfx);                                                    \
    return send_enqueue(call, buf, count, datatype, dest, tag, comm, nullptr);                     \
  }                                                                                                \
  extern "C" int PMPIX_Isend_enqueue##sfx(const void* buf, count_t count, MPI_Datatype datatype,   \
                                          int dest, int tag, MPI_Comm comm,                        \
                                          MPI_Request* request) {                                  \
    GPURUN_API_ENTER("MPIX_Isend_enqueue" #sfx);                                                   \
    GPURUN_CHECK_NOT_NULL(comm, request);                                                          \
    return send_enqueue(call, buf, count, datatype, dest, tag, comm, request);                     \
  }                                                                                                \
  extern "C" int PMPIX_Recv_enqueue##sfx(void* buf, count_t count, MPI_Datatype datatype,          \
                                         int source, int tag, MPI_Comm comm, MPI_Status* status) { \
    GPURUN_API_ENTER("MPIX_Recv_enqueue" #sfx);                                                    \
    GPURUN_CHECK_STATUS_OUT(comm, "status", status);                                               \
    return recv_enqueue(call, buf, count, datatype, source, tag, comm, status, nullptr);           \
  }                                                                                                \
  extern "C" int PMPIX_Irecv_enqueue##sfx(void* buf, count_t count, MPI_Datatype datatype,         \
                                          int source, int tag, MPI_Comm comm,                      \
                                          MPI_Request* request) {                                  \
    GPURUN_API_ENTER("MPIX_Irecv_enqueue" #sfx);                                                   \
    GPURUN_CHECK_NOT_NULL(comm, request);                                                          \
    return recv_enqueue(call, buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE,          \
                        request);                                                                  \
  }                                                                                                \
  extern "C" int PMPIX_Allreduce_enqueue##sfx(const void* sendbuf, void* recvbuf, count_t count,   \
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {   \
    GPURUN_API_ENTER("MPIX_Allreduce_enqueue" #sfx);                                               \
    return allreduce_enqueue(call, sendbuf, recvbuf, count, datatype, op, comm);                   \
  }                                                                                                \
  GPURUN_MPI_ALIAS(MPIX_Send_enqueue##sfx)                                                         \
  GPURUN_MPI_ALIAS(MPIX_Isend_enqueue##sfx)                                                        \
  GPURUN_MPI_ALIAS(MPIX_Recv_enqueue##sfx)                                                         \
  GPURUN_MPI_ALIAS(MPIX_Irecv_enqueue##sfx)                                                        \
  GPURUN_MPI_ALIAS(MPIX_Allreduce_enqueue##sfx)

GPURUN_ENQUEUE(, int)
GPURUN_ENQUEUE(_c, MPI_Count)

extern "C" int PMPIX_Wait_enqueue(MPI_Request* request, MPI_Status* status) {
  GPURUN_API_ENTER("MPIX_Wait_enqueue");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "status", status);
  return wait_enqueue(call, 1, request, status, true);
}
GPURUN_MPI_ALIAS(MPIX_Wait_enqueue)

extern "C" int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                                     MPI_Status* array_of_statuses) {
  GPURUN_API_ENTER("MPIX_Waitall_enqueue");
  if (count < 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_COUNT, "argument count %d is negative", count);
  if (count > 0) {
    GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, array_of_requests);
    GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "array_of_statuses", array_of_statuses);
  }
  return wait_enqueue(call, count, array_of_requests, array_of_statuses, false);
}
GPURUN_MPI_ALIAS(MPIX_Waitall_enqueue)
