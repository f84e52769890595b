// MPI_Comm_idup of an intercommunicator, within one job or between two (MPI_Comm_spawn,
// MPI_Comm_accept/connect): the duplicate of its local group's communicator, the agreement of
// both groups on the new intercommunicator's context id in their place (api/intercomm_place.h)
// and, between two jobs, the duplicate of the span all start at once, without waiting; the
// request completes from progress once every one has ended.
#include <memory>
#include <utility>
#include <vector>

#include "api/attr.h"
#include "api/comm_build.h"
#include "api/errhandler.h"
#include "api/intercomm_place.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

// The parts of a pending MPI_Comm_idup of an intercommunicator, in the order they are
// installed: the local communicator's duplicate, the intercommunicator, and between two jobs
// the span's duplicate.
enum Part : std::size_t { kLocal, kInter, kSpan };

struct InterDup {
  std::vector<std::unique_ptr<Creation>> parts;
  core::Request* request = nullptr;
  MPI_Comm* newcomm = nullptr;
  std::size_t pending = 0;
};

// Finished ones, destroyed at the next MPI_Comm_idup of an intercommunicator (a creation may
// be calling inter_dup_done).
std::vector<std::unique_ptr<InterDup>>& finished_inter_dups() {
  static auto* list = new std::vector<std::unique_ptr<InterDup>>();
  return *list;
}

// A communicator that this process made for a call that failed: it goes again.
void drop(MPI_Comm made) {
  if (made != MPI_COMM_NULL) retire(state().comms.release(handle_index(made)));
}

// Installs the parts in order (the local duplicate and the span's go into the
// intercommunicator's entry); the first failure's code, after dropping what was made.
ErrorCode install_parts(InterDup& d, MPI_Comm* inter) {
  std::vector<MPI_Comm> made;
  ErrorCode error = ErrorCode::kOk;
  for (std::size_t i = 0; i < d.parts.size(); ++i) {
    if (i == kInter && error == ErrorCode::kOk) d.parts[i]->spec().local = made[kLocal];
    Result<MPI_Comm> one = d.parts[i]->finish();
    made.push_back(one.ok() ? *one : MPI_COMM_NULL);
    if (!one.ok() && error == ErrorCode::kOk) error = one.status().code();
  }
  if (error == ErrorCode::kOk) {
    if (made.size() > kSpan) find_comm(made[kInter])->span = made[kSpan];
    *inter = made[kInter];
    return error;
  }
  // The local duplicate belongs to the intercommunicator once that was made.
  if (made[kInter] != MPI_COMM_NULL) made[kLocal] = MPI_COMM_NULL;
  for (MPI_Comm c : made) drop(c);
  *inter = MPI_COMM_NULL;
  return error;
}

void inter_dup_done(void* context) {
  auto* d = static_cast<InterDup*>(context);
  if (--d->pending > 0) return;
  core::Request* r = d->request;
  r->status.error = install_parts(*d, d->newcomm);
  r->set_complete();
  if (r->orphan) the_pml().requests().release(r);
  finished_inter_dups().emplace_back(d);
}

// The duplicate of intracommunicator `entry` (its group and handler only), started.
std::unique_ptr<Creation> start_dup(CommEntry& entry) {
  CommSpec spec;
  spec.group = entry.comm->shared_group();
  spec.errhandler = entry.errhandler;
  coll::Team team = whole_team(entry, /*blocking=*/false);
  std::uint64_t key = creation_key(entry, team.tag);
  return Creation::start(std::move(team), key, std::move(spec));
}

}  // namespace

int idup_inter(const Call& call, MPI_Comm comm, CommEntry& entry, std::unique_ptr<core::Info> hints,
               MPI_Comm* newcomm, MPI_Request* request) {
  finished_inter_dups().clear();
  reclaim_retired();
  CommSpec spec;
  spec.group = entry.comm->shared_local_group();
  spec.remote = entry.comm->shared_group();
  spec.errhandler = entry.errhandler;
  spec.session = entry.session;
  spec.hints = std::move(hints);
  int failed_keyval = MPI_KEYVAL_INVALID;
  if (int rc = copy_attributes(comm, entry, &spec.attributes, &failed_keyval); rc != MPI_SUCCESS)
    return raise_callback_error(call, comm, "copy", failed_keyval, rc);
  Place place = place_of(entry.span);
  std::vector<int> members = place.ranks(*spec.group, *spec.remote);
  int tag = shared_tag(members, dup_salt(entry));
  auto* d = new InterDup;
  d->parts.push_back(start_dup(*find_comm(entry.local)));
  d->parts.push_back(start_among(*place.entry, std::move(members), tag, std::move(spec), false));
  if (entry.span != MPI_COMM_NULL) d->parts.push_back(start_dup(*find_comm(entry.span)));
  d->pending = d->parts.size();
  core::Request* r = the_pml().requests().allocate();
  r->kind = core::RequestKind::kColl;
  r->active = true;
  r->comm = entry.comm.get();
  r->owner = d;
  d->request = r;
  d->newcomm = newcomm;
  *request = handle_of(r);
  // The last check may complete the request and hand `d` over: nothing reads it after.
  std::vector<Creation*> parts;
  for (auto& p : d->parts) parts.push_back(p.get());
  for (Creation* c : parts) {
    if (c->done()) {
      inter_dup_done(d);
    } else {
      c->agreement().on_done(inter_dup_done, d);
    }
  }
  return MPI_SUCCESS;
}

}  // namespace gpurun::api
