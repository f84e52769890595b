// One-sided communication: creating and freeing windows (MPI_Win_create, MPI_Win_allocate,
// MPI_Win_allocate_shared, MPI_Win_create_dynamic and their _c forms, MPI_Win_attach/detach,
// MPI_Win_free) and MPI_Win_shared_query.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "api/agree.h"
#include "api/checks.h"
#include "api/info.h"
#include "api/state.h"
#include "api/win.h"
#include "api/win_remote.h"

namespace gpurun::api {
namespace {

namespace shm = transport::shm;

constexpr int kDescriptorChars = 256;

// What a window being made asks for.
struct WinArgs {
  int flavor;
  MPI_Aint size;
  MPI_Aint disp_unit;
  void* user_base;  // MPI_Win_create's memory
  MPI_Info info;
};

// What each member tells the others.
struct Part {
  long long size, disp_unit, base, pid;
};

int check_args(const Call& call, MPI_Comm comm, const WinArgs& a, const void* baseptr,
               const MPI_Win* win) {
  if (a.size < 0)
    return raise(call, comm, MPI_ERR_SIZE, "argument size %lld is negative", (long long)a.size);
  if (a.disp_unit <= 0 || a.disp_unit > INT32_MAX) {
    return raise(call, comm, MPI_ERR_DISP, "argument disp_unit %lld is not positive",
                 (long long)a.disp_unit);
  }
  if (a.info != MPI_INFO_NULL && find_info(a.info) == nullptr) {
    return raise(call, comm, MPI_ERR_INFO, "argument info (0x%x) is not an info",
                 static_cast<unsigned>(a.info));
  }
  if (a.flavor != MPI_WIN_FLAVOR_CREATE && a.flavor != MPI_WIN_FLAVOR_DYNAMIC &&
      baseptr == nullptr) {
    return raise(call, comm, MPI_ERR_ARG, "argument baseptr is a null pointer");
  }
  if (win == nullptr) return raise(call, comm, MPI_ERR_ARG, "argument win is a null pointer");
  return MPI_SUCCESS;
}

// Whether every member of `comm` runs on this host.
bool one_host(MPI_Comm comm) {
  MPI_Comm local;
  PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int all = 0, here = 0;
  PMPI_Comm_size(comm, &all);
  PMPI_Comm_size(local, &here);
  PMPI_Comm_free(&local);
  return all == here;
}

// The first member makes the segment, every other maps it from its descriptor, and its name
// (if it has one) goes once all have it. Null when it could not be made or mapped anywhere.
std::unique_ptr<shm::Segment> share_segment(MPI_Comm comm, int rank, std::size_t bytes,
                                            Status& failure) {
  static std::atomic<int> windows{0};
  std::unique_ptr<shm::Segment> segment;
  char descriptor[kDescriptorChars] = "";
  if (rank == 0) {
    std::string name = "/gpurun-win-" + std::to_string(getpid()) + "-" + std::to_string(windows++);
    auto made = shm::Segment::create(std::max<std::size_t>(bytes, 64), name, true);
    if (made.ok()) {
      segment = std::move(made.value());
      std::strncpy(descriptor, segment->descriptor().c_str(), sizeof descriptor - 1);
    } else {
      failure = made.status();
    }
  }
  PMPI_Bcast(descriptor, kDescriptorChars, MPI_CHAR, 0, comm);
  if (rank != 0 && descriptor[0] != '\0') {
    auto mapped = shm::Segment::attach(descriptor);
    if (mapped.ok()) {
      segment = std::move(mapped.value());
    } else {
      failure = mapped.status();
    }
  }
  bool everywhere = all_agree(comm, segment != nullptr);
  if (rank == 0 && segment) segment->unlink();
  return everywhere ? std::move(segment) : nullptr;
}

// The room a part takes in the data segment: MPI_Win_allocate_shared's parts follow each other
// (contiguous, as the standard's default asks); MPI_Win_allocate's start on cache lines, so that
// every part is aligned for any type.
long long room(int flavor, long long size) {
  return flavor == MPI_WIN_FLAVOR_ALLOCATE ? (size + 63) / 64 * 64 : size;
}

// Every member's part, and where it lies in the shared data segment (allocating flavors).
void fill_targets(Win& w, const std::vector<Part>& parts) {
  std::int64_t offset = 0;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    WinTarget& t = w.targets[r];
    t.size = parts[r].size;
    t.disp_unit = static_cast<int>(parts[r].disp_unit);
    t.pid = static_cast<int>(parts[r].pid);
    t.base = static_cast<std::uintptr_t>(parts[r].base);
    t.self = static_cast<int>(r) == w.rank;
    if (w.data) {
      t.mapped = static_cast<std::byte*>(w.data->base()) + offset;
      offset += room(w.flavor, t.size);
    }
  }
}

// Everything after the checks, on every member. Returns the error code or MPI_SUCCESS.
int make_win(const Call& call, MPI_Comm comm, const WinArgs& a, void* baseptr, MPI_Win* win,
             bool served) {
  auto w = std::make_unique<Win>();
  w->served = served;
  w->flavor = a.flavor;
  w->size = a.flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : a.size;
  w->disp_unit = static_cast<int>(a.disp_unit);
  PMPI_Comm_dup(comm, &w->comm);
  PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
  int size = 0;
  PMPI_Comm_rank(w->comm, &w->rank);
  PMPI_Comm_size(w->comm, &size);
  long long mine = room(w->flavor, w->size), total = 0, before = 0;
  PMPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
  PMPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
  if (w->rank == 0) before = 0;
  bool allocates = a.flavor == MPI_WIN_FLAVOR_ALLOCATE || a.flavor == MPI_WIN_FLAVOR_SHARED;
  if (served) {
    if (allocates) {  // on a cache line, as on one host
      w->memory = std::make_unique<std::byte[]>(static_cast<std::size_t>(mine) + 64);
      auto at = reinterpret_cast<std::uintptr_t>(w->memory.get());
      w->base = reinterpret_cast<std::byte*>((at + 63) / 64 * 64);
    } else {
      w->base = a.user_base;
    }
    Status st = serve_window(*w);
    if (!all_agree(w->comm, st.ok())) {
      stop_serving(*w);
      PMPI_Comm_free(&w->comm);
      return st.ok() ? raise(call, comm, MPI_ERR_OTHER, "%s", kRefusedByAnother)
                     : raise_status(call, comm, st);
    }
  } else {
    Status failure;
    w->control = share_segment(w->comm, w->rank, sizeof(WinControl) * size, failure);
    if (w->control && allocates)
      w->data = share_segment(w->comm, w->rank, static_cast<std::size_t>(total), failure);
    if (!w->control || (allocates && !w->data)) {
      PMPI_Comm_free(&w->comm);
      return raise(call, comm, MPI_ERR_NO_MEM, "the window's shared memory: %s",
                   failure.ok() ? "another member could not map it" : failure.to_string().c_str());
    }
    w->base = allocates ? static_cast<std::byte*>(w->data->base()) + before : a.user_base;
  }
  Part part{w->size, a.disp_unit, static_cast<long long>(reinterpret_cast<std::uintptr_t>(w->base)),
            getpid()};
  std::vector<Part> parts(static_cast<std::size_t>(size));
  PMPI_Allgather(&part, 4, MPI_LONG_LONG, parts.data(), 4, MPI_LONG_LONG, w->comm);
  w->targets.resize(parts.size());
  w->locked.assign(parts.size(), 0);
  fill_targets(*w, parts);
  if (allocates) *static_cast<void**>(baseptr) = w->base;
  *win = insert_win(std::move(w));
  return MPI_SUCCESS;
}

int create(const Call& call, MPI_Comm comm, const WinArgs& a, void* baseptr, MPI_Win* win) {
  GPURUN_CHECK_COMM(entry, comm);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return raise(call, comm, MPI_ERR_COMM, "argument comm is an intercommunicator");
  int rc = check_args(call, comm, a, baseptr, win);
  if (!all_agree(comm, rc == MPI_SUCCESS))
    return rc != MPI_SUCCESS ? rc : raise(call, comm, MPI_ERR_ARG, "%s", kRefusedByAnother);
  bool served = !one_host(comm);
  if (served && a.flavor == MPI_WIN_FLAVOR_SHARED) {
    return raise(call, comm, MPI_ERR_RMA_SHARED,
                 "the members of comm run on several hosts: they share no memory");
  }
  return make_win(call, comm, a, baseptr, win, served);
}

// MPI_Win_shared_query: the part of `rank` (MPI_PROC_NULL: the first one with memory).
template <class Unit>
int shared_query(const Call& call, MPI_Win win, int rank, MPI_Aint* size, Unit* disp_unit,
                 void* baseptr) {
  GPURUN_CHECK_WIN(w, win);
  if (w->flavor != MPI_WIN_FLAVOR_SHARED && w->flavor != MPI_WIN_FLAVOR_ALLOCATE) {
    return raise_win(call, win, MPI_ERR_RMA_FLAVOR,
                     "argument win was not made by MPI_Win_allocate_shared or MPI_Win_allocate");
  }
  int n = static_cast<int>(w->targets.size());
  if ((rank < 0 || rank >= n) && rank != MPI_PROC_NULL) {
    return raise_win(call, win, MPI_ERR_RANK, "argument rank %d is not a rank of the window (%d)",
                     rank, n);
  }
  if (size == nullptr || disp_unit == nullptr || baseptr == nullptr)
    return raise_win(call, win, MPI_ERR_ARG, "an output argument is a null pointer");
  if (rank == MPI_PROC_NULL) {
    rank = 0;
    while (rank + 1 < n && w->targets[rank].size == 0) ++rank;
  }
  const WinTarget& t = w->targets[rank];
  bool reached = !w->served || rank == w->rank;  // a served window shares no memory
  *size = reached ? t.size : 0;
  *disp_unit = t.disp_unit;
  *static_cast<void**>(baseptr) = !w->served ? t.mapped : reached ? w->base : nullptr;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_create");
  return create(call, comm, {MPI_WIN_FLAVOR_CREATE, size, disp_unit, base, info}, nullptr, win);
}

extern "C" int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_create_c");
  return create(call, comm, {MPI_WIN_FLAVOR_CREATE, size, disp_unit, base, info}, nullptr, win);
}

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void* baseptr, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_allocate");
  return create(call, comm, {MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, nullptr, info}, baseptr,
                win);
}

extern "C" int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                   void* baseptr, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_allocate_c");
  return create(call, comm, {MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, nullptr, info}, baseptr,
                win);
}

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void* baseptr, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_allocate_shared");
  return create(call, comm, {MPI_WIN_FLAVOR_SHARED, size, disp_unit, nullptr, info}, baseptr, win);
}

extern "C" int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                          MPI_Comm comm, void* baseptr, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_allocate_shared_c");
  return create(call, comm, {MPI_WIN_FLAVOR_SHARED, size, disp_unit, nullptr, info}, baseptr, win);
}

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_create_dynamic");
  return create(call, comm, {MPI_WIN_FLAVOR_DYNAMIC, 0, 1, nullptr, info}, nullptr, win);
}

// Memory attached to a dynamic window is reached at its address by CMA: nothing to record.
extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  GPURUN_API_ENTER("MPI_Win_attach");
  GPURUN_CHECK_WIN(w, win);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raise_win(call, win, MPI_ERR_RMA_FLAVOR, "argument win is not a dynamic window");
  if (size < 0)
    return raise_win(call, win, MPI_ERR_SIZE, "argument size %lld is negative", (long long)size);
  if (base == nullptr && size > 0)
    return raise_win(call, win, MPI_ERR_ARG, "argument base is a null pointer");
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  GPURUN_API_ENTER("MPI_Win_detach");
  GPURUN_CHECK_WIN(w, win);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raise_win(call, win, MPI_ERR_RMA_FLAVOR, "argument win is not a dynamic window");
  (void)base;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_free(MPI_Win* win) {
  GPURUN_API_ENTER("MPI_Win_free");
  if (win == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument win is a null pointer");
  GPURUN_CHECK_WIN(w, *win);
  bool locked = w->lock_all;
  for (std::int8_t l : w->locked) locked = locked || l != 0;
  if (locked || w->started || w->posted) {
    return raise_win(
        call, *win, MPI_ERR_RMA_SYNC,
        "argument win: an access or exposure epoch is still open on the window (unlock, complete "
        "or wait first)");
  }
  if (int rc = delete_win_attributes(call, *w); rc != MPI_SUCCESS) return rc;
  PMPI_Barrier(w->comm);  // every member is done with every part
  stop_serving(*w);
  PMPI_Comm_free(&w->comm);
  erase_win(*win);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                     void* baseptr) {
  GPURUN_API_ENTER("MPI_Win_shared_query");
  return shared_query(call, win, rank, size, disp_unit, baseptr);
}

extern "C" int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                                       void* baseptr) {
  GPURUN_API_ENTER("MPI_Win_shared_query_c");
  return shared_query(call, win, rank, size, disp_unit, baseptr);
}

GPURUN_MPI_ALIAS(MPI_Win_create)
GPURUN_MPI_ALIAS(MPI_Win_create_c)
GPURUN_MPI_ALIAS(MPI_Win_allocate)
GPURUN_MPI_ALIAS(MPI_Win_allocate_c)
GPURUN_MPI_ALIAS(MPI_Win_allocate_shared)
GPURUN_MPI_ALIAS(MPI_Win_allocate_shared_c)
GPURUN_MPI_ALIAS(MPI_Win_create_dynamic)
GPURUN_MPI_ALIAS(MPI_Win_attach)
GPURUN_MPI_ALIAS(MPI_Win_detach)
GPURUN_MPI_ALIAS(MPI_Win_free)
GPURUN_MPI_ALIAS(MPI_Win_shared_query)
GPURUN_MPI_ALIAS(MPI_Win_shared_query_c)
