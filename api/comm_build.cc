#include "api/comm_build.h"

#include <algorithm>

#include "api/attr.h"
#include "api/coll_repeat.h"
#include "api/memory_kinds.h"
#include "api/requests.h"
#include "coll/engine.h"
#include "coll/select_guard.h"
#include "runtime/base/log.h"

namespace gpurun::api {
namespace {

// Freed communicators that requests still refer to.
std::vector<std::unique_ptr<CommEntry>>& retired() {
  static auto* list = new std::vector<std::unique_ptr<CommEntry>>();
  return *list;
}

}  // namespace

coll::Team whole_team(CommEntry& entry, bool blocking) {
  return coll::Team{.comm = entry.comm.get(),
                    .members = {},
                    .tag = coll::creation_tag(entry.next_coll_tag()),
                    .blocking = blocking};
}

std::uint64_t creation_key(const CommEntry& entry, int tag) {
  return (static_cast<std::uint64_t>(entry.comm->context_id()) << 32) |
         static_cast<std::uint32_t>(tag);
}

Status wait_collective(coll::BasicCollective& c) {
  wait_until([&c] { return c.done(); });
  return c.status();
}

std::unique_ptr<Creation> Creation::start(coll::Team team, std::uint64_t key, CommSpec spec) {
  auto c = std::make_unique<Creation>();
  c->spec_ = std::move(spec);
  // A process that gets MPI_COMM_NULL leaves the members' agreement on their assertion alone.
  bool device_only = !c->spec_.group || asserts_device_only(c->spec_.hints.get());
  c->agreement_ = CidAgreement::start(std::move(team), key, device_only);
  return c;
}

Result<MPI_Comm> Creation::finish() {
  if (!agreement_->status().ok()) {
    drop_attributes(spec_.attributes);
    return agreement_->status();
  }
  int id = agreement_->id();
  if (!spec_.group) {
    release_context_id(id);  // took part, but is not in the new communicator
    return MPI_COMM_NULL;
  }
  spec_.device_only = agreement_->device_only();
  return install(std::move(spec_), id);
}

int create_over(const Call& call, MPI_Comm parent_handle, CommEntry& parent, CommSpec spec,
                MPI_Comm* newcomm) {
  return create_over_team(call, parent_handle, parent, std::move(spec), newcomm,
                          whole_team(parent));
}

int create_over_team(const Call& call, MPI_Comm parent_handle, CommEntry& parent, CommSpec spec,
                     MPI_Comm* newcomm, coll::Team team) {
  reclaim_retired();
  std::uint64_t key = creation_key(parent, team.tag);
  std::unique_ptr<Creation> c = Creation::start(std::move(team), key, std::move(spec));
  wait_until([&c] { return c->done(); });
  Result<MPI_Comm> made = c->finish();
  if (!made.ok()) return raise_status(call, parent_handle, made.status());
  *newcomm = *made;
  return MPI_SUCCESS;
}

Result<MPI_Comm> install(CommSpec spec, int id) {
  int rank = spec.group->rank_of(world_rank());
  auto entry = std::make_unique<CommEntry>();
  entry->comm = spec.remote
                    ? std::make_unique<core::Communicator>(spec.remote, rank, id, spec.group)
                    : std::make_unique<core::Communicator>(spec.group, rank, id);
  entry->local = spec.local;
  entry->errhandler = std::move(spec.errhandler);
  entry->hints = std::move(spec.hints);
  entry->device_only = spec.device_only;
  entry->attributes = std::move(spec.attributes);
  entry->topology = std::move(spec.topology);
  entry->session = spec.session;
  CommEntry* raw = entry.get();
  std::uint32_t index = state().comms.insert(std::move(entry));
  if (index == ObjectTable<CommEntry>::kFull) {
    release_context_id(id);
    return Status(ErrorCode::kNoResource, "too many communicators; free some with MPI_Comm_free");
  }
  MPI_Comm handle = make_handle(HandleKind::kIndirect, ObjectType::kComm, index);
  raw->comm->set_handle(handle);
  state().pml->add_comm(*raw->comm);
  if (!raw->comm->inter()) coll::watch_comm(*state().pml, *raw->comm);  // collectives' guard
  GPURUN_LOG(debug, init, "communicator 0x%x: context %d, rank %d of %d",
             static_cast<unsigned>(handle), id, rank, spec.group->size());
  return handle;
}

void retire(std::unique_ptr<CommEntry> entry) {
  forget_repeats();  // the handle may come back; the engine drops the kept operations later
  // The guard's receive for notices of mismatched calls (coll/select_guard.h) is a request
  // on the communicator that only this cancels: left posted, it would keep the communicator
  // and its context id in use for ever (a program that created and freed communicators ran
  // out of context ids after 2046 of them).
  coll::forget_guard(entry->comm->context_id());
  retired().push_back(std::move(entry));
  reclaim_retired();
}

bool comm_in_use(const core::Communicator* comm) {
  core::RequestPool& pool = state().pml->requests();
  std::uint32_t live = pool.live();
  std::uint32_t seen = 0;
  for (std::uint32_t i = 0; seen < live; ++i) {
    const core::Request* r = pool.find(i);
    if (r == nullptr) continue;
    ++seen;
    if (r->comm == comm) return true;
  }
  return false;
}

void reclaim_retired() {
  auto& list = retired();
  // An intercommunicator's local communicator goes with it: its collectives still in flight
  // run phases there (api/intercomm_ops.h).
  std::vector<MPI_Comm> locals;
  for (std::size_t i = 0; i < list.size();) {
    if (comm_in_use(list[i]->comm.get())) {
      ++i;
      continue;
    }
    std::unique_ptr<CommEntry> entry = std::move(list[i]);
    list[i] = std::move(list.back());
    list.pop_back();
    state().pml->remove_comm(*entry->comm);
    coll::forget_comm(entry->comm->context_id());  // before another communicator gets the id
    release_context_id(static_cast<int>(entry->comm->context_id()));
    if (entry->local != MPI_COMM_NULL) locals.push_back(entry->local);
    if (entry->span != MPI_COMM_NULL) locals.push_back(entry->span);
  }
  for (MPI_Comm local : locals) PMPI_Comm_free(&local);
}

int finalize_communicators() {
  int failed_keyval = MPI_KEYVAL_INVALID;
  int rc = delete_attributes(MPI_COMM_SELF, state().self, &failed_keyval);
  if (rc != MPI_SUCCESS) {
    const Call call{"MPI_Finalize"};
    return raise_callback_error(call, MPI_COMM_SELF, "delete", failed_keyval, rc);
  }
  return MPI_SUCCESS;
}

namespace {
constexpr std::uint32_t kFnvBasis = 2166136261u, kFnvPrime = 16777619u;
int fold(std::uint32_t h) { return static_cast<int>(h & 0x3fffffffu); }
}  // namespace

int string_tag(const char* text) {
  std::uint32_t h = kFnvBasis;
  for (const char* c = text; *c != '\0'; ++c) h = (h ^ static_cast<unsigned char>(*c)) * kFnvPrime;
  return fold(h);
}

int numbers_tag(std::initializer_list<int> values) {
  std::uint32_t h = kFnvBasis;
  for (int v : values) h = (h ^ static_cast<std::uint32_t>(v)) * kFnvPrime;
  return fold(h);
}

}  // namespace gpurun::api
