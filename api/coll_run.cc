// Running collective operations in their three forms (see api/coll.h).
//
// A nonblocking or persistent collective is a Record: its operation, its request and the op
// it holds. Active records sit in a list that a progress-engine poller walks; a record whose
// operation completes writes its request's status and completes it. A nonblocking record then
// goes; a persistent one stays with its request until MPI_Request_free gives the request back
// to the pool, which the record notices (its request slot no longer points at it) the next
// time a persistent collective is created: MPI_Request_free itself knows nothing of
// collectives.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "api/coll.h"
#include "api/connect.h"
#include "api/info.h"
#include "api/memory.h"
#include "api/ops.h"
#include "api/progress_helper.h"
#include "api/requests.h"
#include "coll/engine.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {
namespace {

struct Record {
  std::unique_ptr<coll::Operation> operation;
  core::Request* request = nullptr;
  const core::Op* op = nullptr;  // retained while the record lives
  bool persistent = false;
  bool helped = false;   // progressed by the progress helper while pending
  bool helping = false;  // pending and counted by the helper

  ~Record() {
    if (op != nullptr) op->release();
  }
};

struct Collectives {
  std::vector<Record*> active;
  std::vector<std::unique_ptr<Record>> persistent;
  bool poller_added = false;
};

Collectives& collectives() {
  static auto* c = new Collectives;
  return *c;
}

// Completes `rec`'s request with its operation's outcome. A nonblocking record is destroyed.
void complete(Record* rec) {
  core::Request* r = rec->request;
  if (rec->helping) {
    helper::helped_end();
    rec->helping = false;
  }
  Status st = rec->operation->status();
  r->status = core::MessageStatus{MPI_ANY_SOURCE, MPI_ANY_TAG, st.code(), 0, false};
  bool orphan = r->orphan;
  if (!st.ok() && !orphan) note_failure(r, std::string(st.message()));
  r->set_complete();
  if (orphan && r->pool != nullptr) r->pool->release(r);
  if (!rec->persistent) {
    delete rec;
  } else if (orphan) {
    rec->request = nullptr;  // reclaimed with the other freed persistent records
  }
}

int poll_collectives(void*) {
  auto& active = collectives().active;
  if (active.empty()) [[likely]]
    return 0;
  int events = 0;
  for (std::size_t i = 0; i < active.size();) {
    Record* rec = active[i];
    if (!rec->operation->progress()) {
      ++i;
      continue;
    }
    active[i] = active.back();
    active.pop_back();
    complete(rec);
    ++events;
  }
  return events;
}

void activate(Record* rec) {
  Collectives& c = collectives();
  if (!c.poller_added) {
    // Added from an MPI call, under the API lock: no poll is running.
    progress::engine().add(poll_collectives, nullptr, "coll");
    c.poller_added = true;
  }
  if (rec->operation->progress()) {
    complete(rec);
    return;
  }
  c.active.push_back(rec);
  if (rec->helped) {
    rec->helping = true;
    helper::helped_begin();
  }
}

// Persistent records whose request was freed (or completed as an orphan) go.
void reclaim_persistent() {
  auto& list = collectives().persistent;
  core::RequestPool& pool = the_pml().requests();
  std::erase_if(list, [&](const std::unique_ptr<Record>& rec) {
    core::Request* r = rec->request;
    return r == nullptr || pool.find(r->index) != r || r->owner != rec.get();
  });
}

}  // namespace

void collective_waited(core::Request* r) {
  // Requests of MPI_Comm_idup are kColl too, with another owner: only records are looked at.
  for (Record* rec : collectives().active)
    if (rec == r->owner) rec->operation->waited();
}

namespace {

bool on_one_host(const core::Communicator& comm) {
  const bootstrap::JobInfo& job = state().bootstrap->job();
  if (has_other_jobs(comm.group())) return false;  // no shared memory with other jobs
  if (job.num_nodes <= 1) return true;
  for (int i = 0; i < comm.size(); ++i)
    if (!std::binary_search(job.local_ranks.begin(), job.local_ranks.end(),
                            comm.group().job_rank(i)))
      return false;
  return true;
}

int run_blocking(const Call& call, MPI_Comm comm, const coll::Args& args, MPI_Datatype type_handle,
                 const RepeatKey* key) {
  drop_repeat(args.collective);  // the engine may replace the operation it points at
  Result<coll::Operation*> made = coll::blocking_operation(args);
  if (!made.ok()) return raise_status(call, comm, made.status());
  coll::Operation& operation = **made;
  // Only a user op's function asks for the handle: predefined ops skip the two thread-local
  // writes (each a __tls_get_addr call in a shared library; 7% of osu_barrier's cycles).
  const bool user_op = args.op != nullptr && !args.op->is_predefined();
  std::optional<TypeHandleScope> scope;
  if (user_op) scope.emplace(args.type, type_handle);
  int rc = run_operation(call, comm, operation);
  if (rc == MPI_SUCCESS && key != nullptr && !user_op) keep_repeat(*key, operation);
  return rc;
}

}  // namespace

int check_form(const Call& call, MPI_Comm comm, const CollForm& form) {
  if (form.kind == CollForm::Kind::kBlocking) return MPI_SUCCESS;
  if (form.request == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument request is a null pointer");
  if (form.kind == CollForm::Kind::kPersistent && form.info != MPI_INFO_NULL &&
      find_info(form.info) == nullptr) {
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(form.info));
  }
  return MPI_SUCCESS;
}

int run_operation(const Call& call, MPI_Comm comm, coll::Operation& operation) {
  bool done = false;
  if (Status st = operation.start_blocking(done); !st.ok()) return raise_status(call, comm, st);
  if (!done) wait_until([&operation] { return operation.progress(); });
  if (!operation.ok()) [[unlikely]]
    return raise_status(call, comm, operation.status());
  return MPI_SUCCESS;
}

void complete_args(const CommEntry& entry, coll::Args& args) {
  args.pml = &the_pml();
  args.comm = entry.comm.get();
  args.one_host = on_one_host(*args.comm);
  if (!args.one_host) args.job_nodes = state().bootstrap->job().node_ids;
  args.device_only = entry.device_only;
  // One kind for the call: device memory if either buffer is (algorithms say what they take).
  args.memory = memory_of(args.recvbuf);
  if (args.memory == accel::MemoryKind::kHost && args.sendbuf != args.recvbuf)
    args.memory = memory_of(args.sendbuf);
}

int run_collective(const Call& call, MPI_Comm comm, CommEntry& entry, coll::Args& args,
                   const CollForm& form, MPI_Datatype type_handle, const RepeatKey* key) {
  complete_args(entry, args);
  if (form.kind == CollForm::Kind::kBlocking)
    return run_blocking(call, comm, args, type_handle, key);
  Result<std::unique_ptr<coll::Operation>> made = coll::create(args);
  if (!made.ok()) return raise_status(call, comm, made.status());
  bool helped = args.memory == accel::MemoryKind::kHost &&
                (args.op == nullptr || args.op->is_predefined()) &&
                helper::wanted(coll::selection_bytes(args));
  return hand_over(call, comm, *args.comm, std::move(made).value(), form, args.op, helped);
}

int hand_over(const Call& call, MPI_Comm comm, const core::Communicator& on,
              std::unique_ptr<coll::Operation> operation, const CollForm& form, const core::Op* op,
              bool helped) {
  auto rec = std::make_unique<Record>();
  rec->operation = std::move(operation);
  rec->persistent = form.kind == CollForm::Kind::kPersistent;
  rec->helped = helped;
  if (op != nullptr && !op->is_predefined()) {
    op->retain();
    rec->op = op;
  }
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kColl;
  r->comm = &on;  // keeps a freed communicator's context until the request goes
  r->owner = rec.get();
  r->persistent = rec->persistent;
  rec->request = r;
  *form.request = handle_of(r);
  if (rec->persistent) {
    reclaim_persistent();
    collectives().persistent.push_back(std::move(rec));
    return MPI_SUCCESS;
  }
  r->active = true;
  Record* raw = rec.release();
  if (Status st = raw->operation->start(); !st.ok()) {
    the_pml().requests().release(r);
    delete raw;
    *form.request = MPI_REQUEST_NULL;
    return raise_status(call, comm, st);
  }
  activate(raw);
  return MPI_SUCCESS;
}

int start_collective(const Call& call, core::Request* r) {
  auto* rec = static_cast<Record*>(r->owner);
  r->active = true;
  r->reset_complete();
  r->status = core::MessageStatus{};
  if (Status st = rec->operation->start(); !st.ok()) {
    r->active = false;
    return raise_status(call, comm_handle_of(r), st);
  }
  activate(rec);
  return MPI_SUCCESS;
}

}  // namespace gpurun::api
