// The MPI collective calls' shared machinery: argument checks, and running the operation the
// collective engine (coll/engine.h) creates for a call, in the call's form:
//   blocking     MPI_Allreduce:       created, started and progressed to the end here, through
//                                     wait_until (the wait policy and the MULTIPLE-mode lock);
//   nonblocking  MPI_Iallreduce:      a core::Request (kind kColl) whose operation the progress
//                                     engine advances (a poller registered on first use) and
//                                     completes;
//   persistent   MPI_Allreduce_init:  the same request, persistent and inactive: MPI_Start
//                                     (api/persistent.cc) calls start_collective(), and the
//                                     operation and its buffers are reused at every start.
// A nonblocking or persistent operation holds references on its datatypes (its schedule does)
// and on its op, so MPI_Type_free and MPI_Op_free may come before it completes. A persistent
// collective keeps the tag of its *_init call, as all its starts run in order on every rank.
//
// Threading: everything here runs under the API lock (GPURUN_API_ENTER).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "api/call.h"
#include "api/checks.h"
#include "api/coll_repeat.h"
#include "api/state.h"
#include "coll/algorithm.h"
#include "runtime/core/request.h"

namespace gpurun::api {

// The form of a collective call.
struct CollForm {
  enum class Kind : std::uint8_t { kBlocking, kNonblocking, kPersistent };
  Kind kind = Kind::kBlocking;
  MPI_Info info = MPI_INFO_NULL;   // *_init only
  MPI_Request* request = nullptr;  // nonblocking and *_init
};
inline CollForm blocking() { return CollForm{}; }
inline CollForm nonblocking(MPI_Request* request) {
  return CollForm{CollForm::Kind::kNonblocking, MPI_INFO_NULL, request};
}
inline CollForm persistent(MPI_Info info, MPI_Request* request) {
  return CollForm{CollForm::Kind::kPersistent, info, request};
}
// The key of a call in `form` that may repeat or be repeated (api/coll_repeat.h): blocking
// calls only.
inline const RepeatKey* repeat_key(const CollForm& form, const RepeatKey& key) {
  return form.kind == CollForm::Kind::kBlocking ? &key : nullptr;
}

// Checks the form's own arguments (request not null, info valid); MPI_SUCCESS or the error.
int check_form(const Call& call, MPI_Comm comm, const CollForm& form);

// Runs the collective of `args` (buffers, counts, types, op and root already checked; tag from
// GPURUN_COLL_ENTER) on `entry` in `form`; fills in the engine's other fields (pml,
// communicator, one_host).
// `type_handle` is the handle of args.type, shown to user ops of blocking calls.
// `key`: the call's arguments as passed, when a repeat of it may skip the checks
// (api/coll_repeat.h).
int run_collective(const Call& call, MPI_Comm comm, CommEntry& entry, coll::Args& args,
                   const CollForm& form, MPI_Datatype type_handle = MPI_DATATYPE_NULL,
                   const RepeatKey* key = nullptr);
// Fills in the engine's fields of `args` for a call on `entry`: pml, communicator, one_host,
// job nodes, device_only, and the memory kind of its buffers.
void complete_args(const CommEntry& entry, coll::Args& args);
// Gives `operation`, made for a call in nonblocking or persistent `form` on communicator `on`
// (handle `comm`), a request (*form.request): started (nonblocking) or kept inactive until
// MPI_Start (persistent). `op`: the call's op, retained while the request lives when it is a
// user op; `helped`: the progress helper may advance it (api/progress_helper.h).
int hand_over(const Call& call, MPI_Comm comm, const core::Communicator& on,
              std::unique_ptr<coll::Operation> operation, const CollForm& form, const core::Op* op,
              bool helped);
// Starts a blocking call's operation, waits for it and reports its outcome (MPI_SUCCESS or the
// error, raised on `comm`).
int run_operation(const Call& call, MPI_Comm comm, coll::Operation& operation);

// MPI_Allreduce_init with MPI_INFO_NULL (api/coll_reduce.cc), for calls of other names.
int allreduce_init(const Call& call, const void* sendbuf, void* recvbuf, std::int64_t count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);

// MPI_Wait is about to wait for collective request `r` (r->kind == kColl) alone: its
// operation learns that the process is held in it (coll::Operation::waited).
void collective_waited(core::Request* r);

// MPI_Start of a persistent collective request (r->kind == kColl, r->persistent): starts its
// operation again. Called by MPI_Start and MPI_Startall once they have checked the request.
int start_collective(const Call& call, core::Request* r);

// ---- argument checks shared by the calls ---------------------------------------------------

// An array of per-rank counts or displacements, widened to int64 (the int and MPI_Count /
// MPI_Aint forms alike). Up to kInline ranks the values live in the object itself, so that
// the v-form calls of small communicators allocate nothing.
class WideArray {
 public:
  // User-provided, so that a value-initialized array (a Side's) is not zeroed first: the
  // inline values are written by assign() before any read.
  WideArray() {}  // NOLINT(modernize-use-equals-default)
  template <class T>
  void assign(const T* values, int n) {
    size_ = n;
    given_ = true;
    if (n > kInline) heap_.resize(static_cast<std::size_t>(n));
    std::int64_t* out = n > kInline ? heap_.data() : inline_.data();
    for (int i = 0; i < n; ++i) out[i] = static_cast<std::int64_t>(values[i]);
  }
  // The values; nullptr when none were assigned.
  const std::int64_t* data() const {
    if (!given_) return nullptr;
    return size_ > kInline ? heap_.data() : inline_.data();
  }
  std::int64_t operator[](int i) const { return data()[i]; }
  const std::int64_t* begin() const { return data(); }
  const std::int64_t* end() const { return data() + (given_ ? size_ : 0); }

 private:
  static constexpr int kInline = 16;
  std::array<std::int64_t, kInline> inline_;
  std::vector<std::int64_t> heap_;
  int size_ = 0;
  bool given_ = false;
};

// `root` is a rank of the communicator (MPI_ERR_ROOT).
int check_root(const Call& call, MPI_Comm comm, const CommEntry& entry, int root);
// A buffer argument named `what` (e.g. "sendbuf") is not MPI_IN_PLACE where the call does not
// take it (MPI_ERR_BUFFER); `where` says where it is allowed ("" when nowhere).
int check_not_in_place(const Call& call, MPI_Comm comm, const void* buf, const char* what,
                       const char* where);
// sendbuf and recvbuf are not the same memory when count > 0 (MPI_ERR_BUFFER: use
// MPI_IN_PLACE).
int check_not_aliased(const Call& call, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                      std::int64_t count);
// A count array named `what` of `n` entries: not null, no negative entry; and its buffer, of
// datatype `type`, not null when some entry is positive.
int check_counts(const Call& call, MPI_Comm comm, const std::int64_t* counts, int n,
                 const char* what);
// The datatype `handle` (argument `what`) is valid and committed; sets *type.
int check_type(const Call& call, MPI_Comm comm, MPI_Datatype handle, const char* what,
               const core::Datatype** type);
// A buffer with `count` elements of `type` to move is not null.
int check_buffer(const Call& call, MPI_Comm comm, const void* buf, std::int64_t count,
                 const core::Datatype* type, const char* what);
// A count argument named `what` is not negative.
int check_count(const Call& call, MPI_Comm comm, std::int64_t count, const char* what);

}  // namespace gpurun::api

// Looks up communicator `handle` into `entry` (MPI_ERR_COMM) and takes the call's tag into
// `coll_tag` at once: a rank that then fails an argument check has still moved on in the
// sequence that the other ranks follow, so later collectives keep matching.
#define GPURUN_COLL_ENTER(entry, handle) \
  GPURUN_CHECK_INTRACOMM(entry, handle); \
  const int coll_tag = entry->next_coll_tag()

// Returns from the calling function when `expr` (an MPI error code) is not MPI_SUCCESS.
#define GPURUN_COLL_TRY(expr)                                                      \
  do {                                                                             \
    if (int gpurun_coll_rc_ = (expr); gpurun_coll_rc_ != MPI_SUCCESS) [[unlikely]] \
      return gpurun_coll_rc_;                                                      \
  } while (0)

#define GPURUN_UNPAREN(...) __VA_ARGS__
// The blocking, nonblocking and persistent entry points of one collective (and their MPI_
// aliases): `params` is the parenthesised parameter list before the communicator, `body` a
// parenthesised expression of those parameters, `call` and `form` (the CollForm of the entry
// point) that does the work.
#define GPURUN_COLL_FORMS(name, iname, initname, params, body)                          \
  extern "C" int P##name(GPURUN_UNPAREN params, MPI_Comm comm) {                        \
    GPURUN_API_ENTER(#name);                                                            \
    const ::gpurun::api::CollForm form = ::gpurun::api::blocking();                     \
    return body;                                                                        \
  }                                                                                     \
  extern "C" int P##iname(GPURUN_UNPAREN params, MPI_Comm comm, MPI_Request* request) { \
    GPURUN_API_ENTER(#iname);                                                           \
    const ::gpurun::api::CollForm form = ::gpurun::api::nonblocking(request);           \
    return body;                                                                        \
  }                                                                                     \
  extern "C" int P##initname(GPURUN_UNPAREN params, MPI_Comm comm, MPI_Info info,       \
                             MPI_Request* request) {                                    \
    GPURUN_API_ENTER(#initname);                                                        \
    const ::gpurun::api::CollForm form = ::gpurun::api::persistent(info, request);      \
    return body;                                                                        \
  }                                                                                     \
  GPURUN_MPI_ALIAS(name)                                                                \
  GPURUN_MPI_ALIAS(iname)                                                               \
  GPURUN_MPI_ALIAS(initname)
