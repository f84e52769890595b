// Completion: MPI_Wait/Test and their any/some/all forms, MPI_Request_free, and MPI-4.1's
// MPI_Request_get_status_any/all/some (the tests that leave the requests as they are).
#include <cstdio>
#include <vector>

#include "api/checks.h"
#include "api/coll.h"
#include "api/partitioned.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

// A request handle of an array argument, resolved. `r` is nullptr for MPI_REQUEST_NULL and for
// inactive persistent requests: such entries take no part.
struct Slot {
  core::Request* r;
};

constexpr int kSingle = -1;  // the index of a call's only request argument

// Resolves the request argument (array_of_requests[index], or request when index is kSingle)
// into `out`; returns MPI_SUCCESS or the error for a bad handle.
int resolve(const Call& call, MPI_Request handle, int index, Slot* out) {
  out->r = nullptr;
  if (handle == MPI_REQUEST_NULL) return MPI_SUCCESS;
  core::Request* r = find_request(handle);
  if (r == nullptr || r->enqueued) [[unlikely]] {
    char name[48] = "request";
    if (index != kSingle) std::snprintf(name, sizeof name, "array_of_requests[%d]", index);
    return r == nullptr ? bad_request(call, name, handle) : refuse_enqueued(call, name, handle);
  }
  if (r->persistent && !r->active) return MPI_SUCCESS;
  out->r = r;
  return MPI_SUCCESS;
}

int check_array(const Call& call, int count, const MPI_Request* requests) {
  if (count < 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_COUNT, "argument count %d is negative", count);
  if (count > 0 && requests == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument array_of_requests is a null pointer");
  return MPI_SUCCESS;
}

// The status array of the calls over several requests.
int check_statuses(const Call& call, int count, const MPI_Status* statuses) {
  if (count > 0) GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "array_of_statuses", statuses);
  return MPI_SUCCESS;
}

// Resolves every handle; small arrays stay on the stack. A large array grows as its handles
// resolve, so that a count larger than the array (a wrong count) meets a bad handle before it
// costs an allocation of that size.
class Slots {
 public:
  int init(const Call& call, int count, const MPI_Request* requests) {
    if (int rc = check_array(call, count, requests); rc != MPI_SUCCESS) return rc;
    if (count <= kInline) {
      for (int i = 0; i < count; ++i)
        if (int rc = resolve(call, requests[i], i, &inline_[i]); rc != MPI_SUCCESS) return rc;
    } else {
      heap_.reserve(kInline * 4);
      for (int i = 0; i < count; ++i) {
        Slot slot;
        if (int rc = resolve(call, requests[i], i, &slot); rc != MPI_SUCCESS) return rc;
        heap_.push_back(slot);
      }
      slots_ = heap_.data();
    }
    count_ = count;
    return MPI_SUCCESS;
  }
  Slot& operator[](int i) { return slots_[i]; }
  int count() const { return count_; }
  bool none_active() const {
    for (int i = 0; i < count_; ++i)
      if (slots_[i].r) return false;
    return true;
  }

 private:
  static constexpr int kInline = 64;
  Slot inline_[kInline];
  std::vector<Slot> heap_;
  Slot* slots_ = inline_;
  int count_ = 0;
};

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// A completed request's status without freeing it (MPI_Request_get_status's): its error class,
// or, for a generalized request, its query function's error.
int peek_status(const Call& call, core::Request* r, MPI_Status* status) {
  if (r->kind == core::RequestKind::kGeneralized) return generalized_status(call, r, status);
  write_status(status, r->status);
  return request_error_class(r);
}

// Collects every completed, active entry into the output arrays (the some/all forms); with
// `peek` the requests stay as they are (MPI_Request_get_status_all/_some). Returns
// MPI_SUCCESS, or MPI_ERR_IN_STATUS with each status's MPI_ERROR set.
int collect_completed(const Call& call, Slots& slots, MPI_Request* requests, int* outcount,
                      int* indices, MPI_Status* statuses, bool compact, bool peek = false) {
  int n = 0, failed = 0;
  MPI_Comm failed_comm = MPI_COMM_NULL;
  for (int i = 0; i < slots.count(); ++i) {
    core::Request* r = slots[i].r;
    if (r == nullptr || !r->complete()) continue;
    MPI_Status* status = status_at(statuses, compact ? n : i);
    MPI_Comm comm = MPI_COMM_NULL;
    int error_class = peek ? peek_status(call, r, status) : finish(r, &requests[i], status, &comm);
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error_class;
    // A peeked request stays, so its communicator is still there to ask.
    if (error_class != MPI_SUCCESS && failed++ == 0) failed_comm = peek ? comm_handle_of(r) : comm;
    if (indices != nullptr) indices[n] = i;
    ++n;
  }
  if (outcount != nullptr) *outcount = n;
  if (failed == 0) return MPI_SUCCESS;
  return raise_request_error(call, failed_comm, MPI_ERR_IN_STATUS);
}

int wait_one(const Call& call, MPI_Request* request, MPI_Status* status) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "status", status);
  Slot slot;
  if (int rc = resolve(call, *request, kSingle, &slot); rc != MPI_SUCCESS) return rc;
  if (slot.r == nullptr) {
    write_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!slot.r->complete()) {
    if (slot.r->kind == core::RequestKind::kColl) collective_waited(slot.r);
    if (slot.r->kind == core::RequestKind::kGeneralized) wait_generalized(slot.r);
    wait_for(slot.r);
  }
  return collect(call, slot.r, request, status);
}

int test_one(const Call& call, MPI_Request* request, int* flag, MPI_Status* status) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "status", status);
  Slot slot;
  if (int rc = resolve(call, *request, kSingle, &slot); rc != MPI_SUCCESS) return rc;
  if (slot.r == nullptr) {
    *flag = 1;
    write_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!request_done(slot.r)) progress::engine().poll();
  *flag = slot.r->complete();
  if (!*flag) return MPI_SUCCESS;
  return collect(call, slot.r, request, status);
}

// The polls between yields for waiting on all of `slots`: the smallest any of them asks for.
std::uint64_t yield_polls_for_all(Slots& slots) {
  std::uint64_t polls = 0;
  for (int i = 0; i < slots.count(); ++i) {
    core::Request* r = slots[i].r;
    if (r == nullptr || r->complete()) continue;
    std::uint64_t own = yield_polls_for(r);
    if (own == 0) return 0;
    polls = polls == 0 ? own : std::min(polls, own);
  }
  return polls;
}

int wait_all(const Call& call, int count, MPI_Request* requests, MPI_Status* statuses) {
  if (int rc = check_statuses(call, count, statuses); rc != MPI_SUCCESS) return rc;
  Slots slots;
  if (int rc = slots.init(call, count, requests); rc != MPI_SUCCESS) return rc;
  for (int i = 0; i < count; ++i)
    if (slots[i].r != nullptr && slots[i].r->kind == core::RequestKind::kGeneralized)
      wait_generalized(slots[i].r);
  int first_pending = 0;
  StuckReceives stuck;
  wait_until(
      [&] {
        stuck.next_look();
        for (; first_pending < count; ++first_pending) {
          core::Request* r = slots[first_pending].r;
          if (r != nullptr && !request_done(r) && !stuck.fail(r)) return false;
        }
        return true;
      },
      yield_polls_for_all(slots));
  for (int i = 0; i < count; ++i)
    if (slots[i].r == nullptr) write_empty_status(status_at(statuses, i));
  return collect_completed(call, slots, requests, nullptr, nullptr, statuses, false);
}

// Whether every active request of `slots` is complete (a generalized one's poll function runs).
bool all_done(Slots& slots) {
  for (int i = 0; i < slots.count(); ++i)
    if (slots[i].r != nullptr && !request_done(slots[i].r)) return false;
  return true;
}

// MPI_Testall, and, with `peek`, MPI_Request_get_status_all (which leaves the requests as they
// are).
int test_all(const Call& call, int count, MPI_Request* requests, int* flag, MPI_Status* statuses,
             bool peek = false) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  if (int rc = check_statuses(call, count, statuses); rc != MPI_SUCCESS) return rc;
  Slots slots;
  if (int rc = slots.init(call, count, requests); rc != MPI_SUCCESS) return rc;
  if (!all_done(slots)) progress::engine().poll();
  *flag = all_done(slots);
  if (!*flag) return MPI_SUCCESS;
  for (int i = 0; i < count; ++i)
    if (slots[i].r == nullptr) write_empty_status(status_at(statuses, i));
  return collect_completed(call, slots, requests, nullptr, nullptr, statuses, false, peek);
}

int first_complete(Slots& slots) {
  for (int i = 0; i < slots.count(); ++i)
    if (slots[i].r != nullptr && request_done(slots[i].r)) return i;
  return -1;
}

// Blocks until a request of `slots` completes (or fails as StuckReceives says); its index.
int wait_first(Slots& slots) {
  StuckReceives stuck;
  int found = -1;
  wait_until([&] {
    stuck.next_look();
    if ((found = first_complete(slots)) >= 0) return true;
    for (int i = 0; i < slots.count(); ++i)
      if (slots[i].r != nullptr && stuck.fail(slots[i].r)) return (found = i) >= 0;
    return false;
  });
  return found;
}

// MPI_Waitany and MPI_Testany, and, with `peek`, MPI_Request_get_status_any (which leaves the
// requests as they are).
int any(const Call& call, int count, MPI_Request* requests, int* index, int* flag,
        MPI_Status* status, bool block, bool peek = false) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, index);
  GPURUN_CHECK_STATUS_OUT(MPI_COMM_NULL, "status", status);
  Slots slots;
  if (int rc = slots.init(call, count, requests); rc != MPI_SUCCESS) return rc;
  if (slots.none_active()) {
    *index = MPI_UNDEFINED;
    if (flag) *flag = 1;
    write_empty_status(status);
    return MPI_SUCCESS;
  }
  int found = first_complete(slots);
  if (found < 0 && block) found = wait_first(slots);
  if (found < 0) {
    progress::engine().poll();
    found = first_complete(slots);
  }
  if (flag) *flag = found >= 0;
  *index = found >= 0 ? found : MPI_UNDEFINED;
  if (found < 0) return MPI_SUCCESS;
  if (peek) return report_status(call, slots[found].r, status);
  return collect(call, slots[found].r, &requests[found], status);
}

// MPI_Waitsome and MPI_Testsome, and, with `peek`, MPI_Request_get_status_some (which leaves
// the requests as they are).
int some(const Call& call, int count, MPI_Request* requests, int* outcount, int* indices,
         MPI_Status* statuses, bool block, bool peek = false) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, outcount);
  if (count > 0 && indices == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument array_of_indices is a null pointer");
  if (int rc = check_statuses(call, count, statuses); rc != MPI_SUCCESS) return rc;
  Slots slots;
  if (int rc = slots.init(call, count, requests); rc != MPI_SUCCESS) return rc;
  if (slots.none_active()) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (first_complete(slots) < 0) {
    if (block)
      wait_first(slots);
    else
      progress::engine().poll();
  }
  return collect_completed(call, slots, requests, outcount, indices, statuses, true, peek);
}

int request_free(const Call& call, MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, request);
  core::Request* r = find_request(*request);
  if (r == nullptr) return bad_request(call, "request", *request);
  if (r->enqueued) return refuse_enqueued(call, "request", *request);
  if (r->kind == core::RequestKind::kGeneralized) {
    *request = MPI_REQUEST_NULL;
    return free_generalized(call, r);
  }
  if (r->kind == core::RequestKind::kPartitioned) {
    *request = MPI_REQUEST_NULL;
    return free_partitioned(r);
  }
  // An operation still in flight finishes on its own; the request goes when it completes.
  if (r->complete() || (r->persistent && !r->active)) {
    release_request(r);
  } else {
    orphan_request(r);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Wait");
  return wait_one(call, request, status);
}

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Test");
  return test_one(call, request, flag, status);
}

extern "C" int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  GPURUN_API_ENTER("MPI_Waitall");
  return wait_all(call, count, requests, statuses);
}

extern "C" int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  GPURUN_API_ENTER("MPI_Testall");
  return test_all(call, count, requests, flag, statuses);
}

extern "C" int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Waitany");
  return any(call, count, requests, index, nullptr, status, true);
}

extern "C" int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                            MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Testany");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  return any(call, count, requests, index, flag, status, false);
}

extern "C" int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  GPURUN_API_ENTER("MPI_Waitsome");
  return some(call, incount, requests, outcount, indices, statuses, true);
}

extern "C" int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  GPURUN_API_ENTER("MPI_Testsome");
  return some(call, incount, requests, outcount, indices, statuses, false);
}

extern "C" int PMPI_Request_free(MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Request_free");
  return request_free(call, request);
}

extern "C" int PMPI_Request_get_status_any(int count, MPI_Request requests[], int* index, int* flag,
                                           MPI_Status* status) {
  GPURUN_API_ENTER("MPI_Request_get_status_any");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  return any(call, count, requests, index, flag, status, false, true);
}

extern "C" int PMPI_Request_get_status_all(int count, MPI_Request requests[], int* flag,
                                           MPI_Status statuses[]) {
  GPURUN_API_ENTER("MPI_Request_get_status_all");
  return test_all(call, count, requests, flag, statuses, true);
}

extern "C" int PMPI_Request_get_status_some(int incount, MPI_Request requests[], int* outcount,
                                            int indices[], MPI_Status statuses[]) {
  GPURUN_API_ENTER("MPI_Request_get_status_some");
  return some(call, incount, requests, outcount, indices, statuses, false, true);
}

GPURUN_MPI_ALIAS(MPI_Wait)
GPURUN_MPI_ALIAS(MPI_Test)
GPURUN_MPI_ALIAS(MPI_Waitall)
GPURUN_MPI_ALIAS(MPI_Testall)
GPURUN_MPI_ALIAS(MPI_Waitany)
GPURUN_MPI_ALIAS(MPI_Testany)
GPURUN_MPI_ALIAS(MPI_Waitsome)
GPURUN_MPI_ALIAS(MPI_Testsome)
GPURUN_MPI_ALIAS(MPI_Request_free)
GPURUN_MPI_ALIAS(MPI_Request_get_status_any)
GPURUN_MPI_ALIAS(MPI_Request_get_status_all)
GPURUN_MPI_ALIAS(MPI_Request_get_status_some)
