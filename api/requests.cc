#include "api/requests.h"

#include <string>
#include <unordered_map>

#include "api/state.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {

int bad_request(const Call& call, const char* arg, MPI_Request handle) {
  if (handle == MPI_REQUEST_NULL)
    return raise(call, MPI_COMM_NULL, MPI_ERR_REQUEST, "argument %s is MPI_REQUEST_NULL", arg);
  return raise(call, MPI_COMM_NULL, MPI_ERR_REQUEST,
               "argument %s (0x%x) is not an active request (freed, already completed, or never "
               "created)",
               arg, static_cast<unsigned>(handle));
}

int refuse_enqueued(const Call& call, const char* arg, MPI_Request handle) {
  core::Request* r = find_request(handle);
  return raise(call, r != nullptr ? comm_handle_of(r) : MPI_COMM_NULL, MPI_ERR_REQUEST,
               "argument %s (0x%x) is a request of an operation enqueued on a CUDA stream: only "
               "MPIX_Wait_enqueue or MPIX_Waitall_enqueue completes it",
               arg, static_cast<unsigned>(handle));
}

void write_status_to(MPI_Status* status, const core::MessageStatus& m) {
  status->MPI_SOURCE = m.source;
  status->MPI_TAG = m.tag;
  set_status_bytes(status, m.bytes);
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (m.cancelled ? 1 : 0);
}

void write_empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
}

// MPICH's layout: count_lo holds the low 32 bits of the byte count; count_hi_and_cancelled the
// higher bits shifted left by one, and the cancelled flag in bit 0.
std::uint64_t status_bytes(const MPI_Status& status) {
  auto lo = static_cast<std::uint32_t>(status.count_lo);
  auto hi =
      static_cast<std::uint64_t>(static_cast<std::uint32_t>(status.count_hi_and_cancelled) >> 1);
  return (hi << 32) | lo;
}

void set_status_bytes(MPI_Status* status, std::uint64_t bytes) {
  status->count_lo = static_cast<int>(static_cast<std::uint32_t>(bytes));
  int cancelled = status->count_hi_and_cancelled & 1;
  status->count_hi_and_cancelled = static_cast<int>((bytes >> 32) << 1) | cancelled;
}

namespace {
// Only persistent requests hold a reference of their own; predefined types are never counted.
bool counted(const core::Request* r) {
  return r->persistent && r->datatype != nullptr && !r->datatype->predefined();
}

void drop_datatype(core::Request* r) {
  if (counted(r)) r->datatype->release();
}
}  // namespace

void hold_datatype(core::Request* r) {
  if (counted(r)) r->datatype->retain();
}

namespace detail {
std::unordered_map<const core::Request*, std::string>* g_failure_notes = nullptr;

void release_request_slow(core::Request* r) {
  if (any_failure_notes()) g_failure_notes->erase(r);
  drop_datatype(r);
  the_pml().requests().release(r);
}
}  // namespace detail

void note_failure(const core::Request* r, std::string message) {
  if (detail::g_failure_notes == nullptr)
    detail::g_failure_notes = new std::unordered_map<const core::Request*, std::string>();
  (*detail::g_failure_notes)[r] = std::move(message);
}

void orphan_request(core::Request* r) {
  // The pml runs on_complete, then returns an orphan to its pool.
  if (r->persistent) r->on_complete = drop_datatype;
  r->orphan = true;
}

core::Request* completed_request(const core::MessageStatus& m) {
  core::Request* r = the_pml().requests().allocate();
  r->status = m;
  r->active = true;
  r->set_complete();
  return r;
}

namespace {
// Where ranks outnumber cores, a rank waiting for a small message from a peer bound to another
// core polls this many times between yields, not GPURUN_PROGRESS_YIELD_POLLS: that peer is
// often running, and answers sooner than a context switch would take. A larger message takes
// longer than the switch, which then lets a rank on this core work meanwhile (osu_multi_lat
// -np 4 on 2 cores, pairs across the cores, medians of 5 interleaved runs: 8 B 1.11 -> 0.20 us,
// 1 KiB 1.50 -> 0.97; at 64 KiB polling longer made it 4.81 -> 6.15). Up to 16 KiB a message
// now takes less than the switch (one packet up to 4 KiB, CMA above; 9 interleaved runs, polling
// up to 1 KiB against up to 16 KiB: 2 KiB 1.40 -> 0.50 us, 4 KiB 1.67 -> 1.18, 8 KiB 2.11 ->
// 1.26, 16 KiB 2.45 -> 1.98, 32 KiB 3.11 -> 3.01 and 64 KiB 4.03 -> 4.16 unchanged).
constexpr std::uint64_t kAlongsideYieldPolls = 256;
constexpr std::int64_t kAlongsideMaxBytes = 16 << 10;
}  // namespace

std::uint64_t yield_polls_for(const core::Request* r) {
  if (progress::engine().policy() != progress::WaitPolicy::kYield) return 0;  // count unused
  bool message = r->kind == core::RequestKind::kSend || r->kind == core::RequestKind::kRecv;
  if (!message || r->comm == nullptr || r->datatype == nullptr) return 0;
  if (r->count * static_cast<std::int64_t>(r->datatype->size()) > kAlongsideMaxBytes) return 0;
  return the_pml().peer_alongside(*r->comm, r->peer) ? kAlongsideYieldPolls : 0;
}

void wait_for(core::Request* r) {
  StuckReceives stuck;
  wait_until(
      [r, &stuck] {
        stuck.next_look();
        return request_done(r) || stuck.fail(r);
      },
      yield_polls_for(r));
}

int request_error_class(const core::Request* r) {
  if (r->status.error == ErrorCode::kOk) return MPI_SUCCESS;
  return error_class_of(r->status.error);
}

namespace {
// The last request that finish() saw fail, for its report (set and read under the lock).
struct Failure {
  ErrorCode code = ErrorCode::kOk;
  std::uint64_t size = 0;   // message bytes
  std::uint64_t bytes = 0;  // bytes received
  int peer = -1;            // the rank in the communicator it was with (-2: any source)
  bool peer_left = false;   // that rank finalized or was lost (pml/leave.cc)
  bool peer_lost = false;   // that rank was lost: its connection failed
  std::string note;         // note_failure()'s message
};
Failure& last_failure() {
  static Failure failure;
  return failure;
}
void remember_failure(const core::Request* r) {
  bool left = r->comm != nullptr &&
              (r->kind == core::RequestKind::kSend || r->kind == core::RequestKind::kRecv) &&
              the_pml().left(*r->comm, r->peer);
  bool lost = left && the_pml().lost(r->comm->group().job_rank(r->peer));
  Failure& f = last_failure();
  f = Failure{r->status.error, r->size, r->status.bytes, r->peer, left, lost, {}};
  if (lost && r->status.error == ErrorCode::kPeerFailed)
    f.note = the_pml().lost_message(*r->comm, r->peer);
  if (r->kind == core::RequestKind::kRecv && r->peer == pml::kAnySource &&
      r->status.error == ErrorCode::kPeerFailed)
    f.note =
        "every other rank of the communicator called MPI_Finalize before a message "
        "matched this receive from MPI_ANY_SOURCE";
  if (!detail::any_failure_notes()) return;
  auto& notes = *detail::g_failure_notes;
  if (auto it = notes.find(r); it != notes.end()) {
    f.note = std::move(it->second);
    notes.erase(it);
  }
}
}  // namespace

void note_last_failure(std::string message) {
  last_failure() = Failure{ErrorCode::kInternal, 0, 0, -1, false, false, std::move(message)};
}

MPI_Comm comm_handle_of(const core::Request* r) {
  // The error handler to run: the request's communicator's (found by identity).
  if (r->comm == nullptr || r->comm == state().world.comm.get()) return MPI_COMM_WORLD;
  if (r->comm == state().self.comm.get()) return MPI_COMM_SELF;
  return r->comm->handle();
}

int finish_failed(core::Request* r, MPI_Request* handle, MPI_Comm* comm) {
  int error_class = request_error_class(r);
  *comm = comm_handle_of(r);
  remember_failure(r);
  if (r->persistent) {
    r->active = false;
  } else {
    release_request(r);
    *handle = MPI_REQUEST_NULL;
  }
  return error_class;
}

int raise_request_error(const Call& call, MPI_Comm comm, int error_class) {
  if (error_class != MPI_ERR_IN_STATUS && !last_failure().note.empty())
    return raise(call, comm, error_class, "%s", last_failure().note.c_str());
  if (error_class == MPI_ERR_TRUNCATE) {
    return raise(call, comm, error_class,
                 "a message of %llu bytes does not fit the receive buffer (%llu bytes)",
                 static_cast<unsigned long long>(last_failure().size),
                 static_cast<unsigned long long>(last_failure().bytes));
  }
  if (error_class == MPI_ERR_IN_STATUS)
    return raise(call, comm, error_class, "an operation failed: see the MPI_ERROR of the statuses");
  if (last_failure().code == ErrorCode::kPeerFailed && last_failure().peer_lost) {
    return raise(call, comm, error_class,
                 "rank %d is lost (its process ended or its connection failed) before this "
                 "operation with it could complete",
                 last_failure().peer);
  }
  if (last_failure().code == ErrorCode::kPeerFailed && last_failure().peer_left) {
    return raise(call, comm, error_class,
                 "rank %d called MPI_Finalize before this operation with it could complete",
                 last_failure().peer);
  }
  std::string_view why = error_code_name(last_failure().code);
  return raise(call, comm, error_class, "the operation failed (%.*s)", static_cast<int>(why.size()),
               why.data());
}

int raise_request(const Call& call, const core::Request* r) {
  int error_class = request_error_class(r);
  if (error_class == MPI_SUCCESS) return MPI_SUCCESS;
  remember_failure(r);
  return raise_request_error(call, comm_handle_of(r), error_class);
}

int report_status(const Call& call, core::Request* r, MPI_Status* status) {
  if (r->kind == core::RequestKind::kGeneralized) return generalized_status(call, r, status);
  write_status(status, r->status);
  return raise_request(call, r);
}

int collect(const Call& call, core::Request* r, MPI_Request* handle, MPI_Status* status) {
  MPI_Comm comm;
  int error_class = finish(r, handle, status, &comm);
  if (error_class == MPI_SUCCESS) [[likely]]
    return MPI_SUCCESS;
  return raise_request_error(call, comm, error_class);
}

}  // namespace gpurun::api
