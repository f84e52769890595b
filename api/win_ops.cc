// One-sided communication: the operations (MPI_Put, MPI_Get, MPI_Accumulate,
// MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, their request forms and _c
// forms). The origin moves the data at the call (api/win.h): the origin's data packed, the
// target's blocks of the target datatype reached directly in shared memory or by CMA.
// Accumulates read the target's span, combine in place with the op's loop on the target
// datatype, and write the target's blocks back, holding the target's mutex.
#include <sched.h>

#include <cstring>
#include <memory>
#include <vector>

#include "api/datatypes.h"
#include "api/ops.h"
#include "api/requests.h"
#include "api/win.h"
#include "api/win_remote.h"
#include "runtime/core/datatype_layout.h"
#include "runtime/transport/shm/cma.h"

namespace gpurun::api {
namespace {

struct Buf {
  const void* addr;
  MPI_Count count;
  MPI_Datatype type;
};

// One operation as its call gives it; `result` for the fetching ones, `op` for accumulates.
struct RmaOp {
  Buf origin;
  Buf result{nullptr, 0, MPI_DATATYPE_NULL};
  int rank;
  MPI_Aint disp;
  MPI_Count target_count;
  MPI_Datatype target_type;
  MPI_Op op = MPI_OP_NULL;
  enum class Kind : std::uint8_t { kPut, kGet, kAccumulate, kGetAccumulate } kind;
};

// Moves `n` bytes between `local` and address `remote` of target `rank`.
Status target_io(const Win& w, int rank, bool write, std::byte* local, std::uintptr_t remote,
                 std::size_t n) {
  const WinTarget& t = w.targets[rank];
  if (t.mapped != nullptr || t.self) {
    std::byte* there =
        t.mapped != nullptr ? t.mapped + (remote - t.base) : reinterpret_cast<std::byte*>(remote);
    std::memcpy(write ? there : local, write ? local : there, n);
    return ok_status();
  }
  return write ? transport::shm::cma_write(t.pid, local, remote, n)
               : transport::shm::cma_read(t.pid, local, remote, n);
}

// The target's blocks of `count` elements of `type` at `remote`, to or from `packed`.
Status target_blocks(const Win& w, int rank, bool write, std::byte* packed, std::uintptr_t remote,
                     std::int64_t count, const core::Datatype& type) {
  std::int64_t bytes = count * type.size();
  if (bytes == 0) return ok_status();
  if (type.contiguous()) {
    return target_io(w, rank, write, packed, remote + static_cast<std::uintptr_t>(type.true_lb()),
                     static_cast<std::size_t>(bytes));
  }
  Status st;
  std::int64_t done = 0;
  core::layout::for_each_block(*type.layout(), count, type.extent(), remote, 0, bytes,
                               [&](std::uintptr_t at, std::int64_t n) {
                                 if (st.ok())
                                   st = target_io(w, rank, write, packed + done, at,
                                                  static_cast<std::size_t>(n));
                                 done += n;
                               });
  return st;
}

class TargetMutex {
 public:
  explicit TargetMutex(WinControl& c) : c_(c) {
    std::int32_t free = 0;
    while (!c_.mutex.compare_exchange_weak(free, 1, std::memory_order_acquire)) {
      free = 0;
      sched_yield();
    }
  }
  ~TargetMutex() { c_.mutex.store(0, std::memory_order_release); }
  TargetMutex(const TargetMutex&) = delete;
  TargetMutex& operator=(const TargetMutex&) = delete;

 private:
  WinControl& c_;
};

struct Resolved {
  const core::Datatype* origin = nullptr;
  const core::Datatype* result = nullptr;
  const core::Datatype* target = nullptr;
  const core::Op* op = nullptr;
  std::uintptr_t remote = 0;
};

int check_buf(const Call& call, const Win& w, const Buf& b, const char* count_arg,
              const char* type_arg, const core::Datatype** type) {
  if (b.count < 0) {
    return raise_win(call, w.handle, MPI_ERR_COUNT, "argument %s %lld is negative", count_arg,
                     (long long)b.count);
  }
  *type = find_datatype(b.type);
  if (*type == nullptr) {
    return raise_win(call, w.handle, MPI_ERR_TYPE, "argument %s %s", type_arg,
                     b.type == MPI_DATATYPE_NULL ? "is MPI_DATATYPE_NULL" : "is not a datatype");
  }
  if (!(*type)->committed())
    return raise_win(call, w.handle, MPI_ERR_TYPE, "argument %s is not committed", type_arg);
  return MPI_SUCCESS;
}

bool epoch_open(const Win& w, int rank) {
  if (w.fence || w.lock_all || w.locked[rank] != 0) return true;
  if (!w.started) return false;
  for (int r : w.access_group)
    if (r == rank) return true;
  return false;
}

// The target's address and range, the epoch.
int check_target(const Call& call, const Win& w, const RmaOp& o, const core::Datatype& type,
                 std::uintptr_t* remote) {
  const WinTarget& t = w.targets[o.rank];
  if (!epoch_open(w, o.rank)) {
    return raise_win(call, w.handle, MPI_ERR_RMA_SYNC,
                     "argument win: no access epoch is open on target_rank %d (MPI_Win_fence, "
                     "MPI_Win_lock, MPI_Win_lock_all or MPI_Win_start)",
                     o.rank);
  }
  if (o.disp < 0 && w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    return raise_win(call, w.handle, MPI_ERR_DISP, "argument target_disp %lld is negative",
                     (long long)o.disp);
  }
  *remote = t.base + static_cast<std::uintptr_t>(o.disp) * static_cast<std::uintptr_t>(t.disp_unit);
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    *remote = static_cast<std::uintptr_t>(o.disp);
    return MPI_SUCCESS;
  }
  std::int64_t span =
      o.target_count == 0 ? 0 : (o.target_count - 1) * type.extent() + type.true_extent();
  std::int64_t lo =
      static_cast<std::int64_t>(*remote - t.base) + (o.target_count ? type.true_lb() : 0);
  if (o.target_count > 0 && (lo < 0 || lo + span > t.size)) {
    return raise_win(call, w.handle, MPI_ERR_RMA_RANGE,
                     "argument target_disp %lld: bytes %lld to %lld lie outside rank %d's window "
                     "of %lld bytes",
                     (long long)o.disp, (long long)lo, (long long)(lo + span), o.rank,
                     (long long)t.size);
  }
  return MPI_SUCCESS;
}

int resolve(const Call& call, const Win& w, const RmaOp& o, Resolved& r) {
  if (int rc = check_buf(call, w, o.origin, "origin_count", "origin_datatype", &r.origin))
    return rc;
  if (o.kind == RmaOp::Kind::kGetAccumulate) {
    if (int rc = check_buf(call, w, o.result, "result_count", "result_datatype", &r.result))
      return rc;
  }
  Buf target{nullptr, o.target_count, o.target_type};
  if (int rc = check_buf(call, w, target, "target_count", "target_datatype", &r.target)) return rc;
  int n = static_cast<int>(w.targets.size());
  if ((o.rank < 0 || o.rank >= n) && o.rank != MPI_PROC_NULL) {
    return raise_win(call, w.handle, MPI_ERR_RANK,
                     "argument target_rank %d is not a rank of the window (size %d)", o.rank, n);
  }
  bool accumulates = o.kind == RmaOp::Kind::kAccumulate || o.kind == RmaOp::Kind::kGetAccumulate;
  if (accumulates) {
    r.op = find_op(o.op);
    if (r.op == nullptr || !r.op->is_predefined())
      return raise_win(call, w.handle, MPI_ERR_OP, "argument op is not a predefined op");
    if (Status st = r.op->check(*r.target); !st.ok())
      return raise_win(call, w.handle, MPI_ERR_OP, "argument op: %s",
                       std::string(st.message()).c_str());
  }
  bool origin_used =
      !(o.kind == RmaOp::Kind::kGetAccumulate && r.op->kind() == core::OpKind::kNoOp);
  std::int64_t obytes =
      origin_used ? o.origin.count * r.origin->size() : o.target_count * r.target->size();
  if (obytes != o.target_count * r.target->size()) {
    return raise_win(call, w.handle, MPI_ERR_TYPE,
                     "the origin's data (%lld bytes) and the target's (%lld bytes) differ",
                     (long long)obytes, (long long)(o.target_count * r.target->size()));
  }
  if (r.result != nullptr &&
      o.result.count * r.result->size() != o.target_count * r.target->size()) {
    return raise_win(call, w.handle, MPI_ERR_TYPE,
                     "argument result_count: the result's room (%lld bytes) and the target's data "
                     "(%lld bytes) differ",
                     (long long)(o.result.count * r.result->size()),
                     (long long)(o.target_count * r.target->size()));
  }
  if (o.rank == MPI_PROC_NULL) return MPI_SUCCESS;
  return check_target(call, w, o, *r.target, &r.remote);
}

// The target's memory at `remote` where this process reaches it directly (a shared segment, or
// its own part), else null (CMA).
std::byte* direct_view(const Win& w, int rank, std::uintptr_t remote) {
  const WinTarget& t = w.targets[rank];
  if (t.mapped != nullptr) return t.mapped + (remote - t.base);
  return t.self ? reinterpret_cast<std::byte*>(remote) : nullptr;
}

// An accumulate whose target data is one block, from an origin in one block: where this process
// maps the target's memory, the op runs on it in place, under its mutex (MPI_SUM of 64 KiB took
// 33 us through copies, against 1.3 us for a put); elsewhere (CMA) the block is read, reduced
// with the origin's data where it lies and written back, with no packing. False when it cannot.
bool accumulate_contiguous(const Win& w, const RmaOp& o, const Resolved& r,
                           std::vector<std::byte>* fetched, Status* st) {
  const core::Datatype& tt = *r.target;
  bool noop = r.op->kind() == core::OpKind::kNoOp;
  if (!tt.contiguous() || (!noop && !r.origin->contiguous())) return false;
  auto bytes = static_cast<std::size_t>(o.target_count * tt.size());
  const std::byte* data = static_cast<const std::byte*>(o.origin.addr) + r.origin->true_lb();
  std::uintptr_t at = r.remote + static_cast<std::uintptr_t>(tt.true_lb());
  std::byte* block = direct_view(w, o.rank, at);
  std::unique_ptr<std::byte[]> copy;
  if (block == nullptr) {
    copy = std::make_unique_for_overwrite<std::byte[]>(bytes);
  } else if (!noop && data != block && data < block + bytes && block < data + bytes) {
    return false;  // the origin overlaps the target's block
  }
  TargetMutex hold(w.control_of(o.rank));
  if (copy) {
    if (*st = target_io(w, o.rank, false, copy.get(), at, bytes); !st->ok()) return true;
    block = copy.get();
  }
  if (fetched != nullptr) fetched->assign(block, block + bytes);
  if (noop) return true;
  *st = r.op->apply(data - tt.true_lb(), block - tt.true_lb(), o.target_count, tt);
  if (st->ok() && copy) *st = target_io(w, o.rank, true, block, at, bytes);
  return true;
}

// Accumulate-style update of the target under its mutex; `fetched` gets the old data.
Status accumulate(const Win& w, const RmaOp& o, const Resolved& r,
                  std::vector<std::byte>* fetched) {
  if (Status st; accumulate_contiguous(w, o, r, fetched, &st)) return st;
  const core::Datatype& tt = *r.target;
  std::int64_t count = o.target_count, bytes = count * tt.size();
  std::int64_t span = (count - 1) * tt.extent() + tt.true_extent();
  std::vector<std::byte> old(static_cast<std::size_t>(span)), in(static_cast<std::size_t>(span));
  std::byte* old_origin = old.data() - tt.true_lb();
  std::uintptr_t lo = r.remote + static_cast<std::uintptr_t>(tt.true_lb());
  TargetMutex hold(w.control_of(o.rank));
  GPURUN_TRY(target_io(w, o.rank, false, old.data(), lo, static_cast<std::size_t>(span)));
  if (fetched != nullptr) {
    fetched->resize(static_cast<std::size_t>(bytes));
    tt.pack(old_origin, count, 0, fetched->data(), static_cast<std::size_t>(bytes));
  }
  if (r.op->kind() == core::OpKind::kNoOp) return ok_status();
  std::vector<std::byte> packed(static_cast<std::size_t>(bytes));
  r.origin->pack(o.origin.addr, o.origin.count, 0, packed.data(), static_cast<std::size_t>(bytes));
  tt.unpack(in.data() - tt.true_lb(), count, 0, packed.data(), static_cast<std::size_t>(bytes));
  GPURUN_TRY(r.op->apply(in.data() - tt.true_lb(), old_origin, count, tt));
  tt.pack(old_origin, count, 0, packed.data(), static_cast<std::size_t>(bytes));
  return target_blocks(w, o.rank, true, packed.data(), r.remote, count, tt);
}

// A served window's operation (api/win_remote.h): the origin's data packed, the target's
// answers unpacked.
Status move_served(const Win& w, const RmaOp& o, const Resolved& r) {
  auto bytes = static_cast<std::size_t>(o.target_count * r.target->size());
  std::vector<std::byte> packed(bytes), fetched;
  bool reads_origin = o.kind == RmaOp::Kind::kPut || o.kind == RmaOp::Kind::kAccumulate ||
                      (o.kind == RmaOp::Kind::kGetAccumulate &&
                       r.op->kind() != core::OpKind::kNoOp);
  if (reads_origin) r.origin->pack(o.origin.addr, o.origin.count, 0, packed.data(), bytes);
  switch (o.kind) {
    case RmaOp::Kind::kPut:
      return remote_put(w, o.rank, packed.data(), r.remote, o.target_count, *r.target);
    case RmaOp::Kind::kGet:
      GPURUN_TRY(remote_get(w, o.rank, packed.data(), r.remote, o.target_count, *r.target));
      r.origin->unpack(const_cast<void*>(o.origin.addr), o.origin.count, 0, packed.data(), bytes);
      return ok_status();
    case RmaOp::Kind::kAccumulate:
      return remote_accumulate(w, o.rank, o.op, packed.data(), r.remote, o.target_count,
                               *r.target, nullptr);
    case RmaOp::Kind::kGetAccumulate:
      fetched.resize(bytes);
      GPURUN_TRY(remote_accumulate(w, o.rank, o.op, packed.data(), r.remote, o.target_count,
                                   *r.target, fetched.data()));
      r.result->unpack(const_cast<void*>(o.result.addr), o.result.count, 0, fetched.data(), bytes);
      return ok_status();
  }
  return ok_status();
}

Status move(const Win& w, const RmaOp& o, const Resolved& r) {
  std::int64_t bytes = o.target_count * r.target->size();
  if (bytes == 0 || o.rank == MPI_PROC_NULL) return ok_status();
  if (w.served) return move_served(w, o, r);
  // The origin's data itself where it is one block, else a packed copy.
  auto* origin = static_cast<std::byte*>(const_cast<void*>(o.origin.addr));
  bool direct = r.origin->contiguous();
  std::vector<std::byte> packed(direct ? 0 : static_cast<std::size_t>(bytes));
  std::byte* data = direct ? origin + r.origin->true_lb() : packed.data();
  switch (o.kind) {
    case RmaOp::Kind::kPut:
      if (!direct) r.origin->pack(origin, o.origin.count, 0, data, packed.size());
      return target_blocks(w, o.rank, true, data, r.remote, o.target_count, *r.target);
    case RmaOp::Kind::kGet:
      GPURUN_TRY(target_blocks(w, o.rank, false, data, r.remote, o.target_count, *r.target));
      if (!direct) r.origin->unpack(origin, o.origin.count, 0, data, packed.size());
      return ok_status();
    case RmaOp::Kind::kAccumulate:
      return accumulate(w, o, r, nullptr);
    case RmaOp::Kind::kGetAccumulate: {
      std::vector<std::byte> fetched;
      GPURUN_TRY(accumulate(w, o, r, &fetched));
      r.result->unpack(const_cast<void*>(o.result.addr), o.result.count, 0, fetched.data(),
                       fetched.size());
      return ok_status();
    }
  }
  return ok_status();
}

// One block at both ends of an operation, to a target whose memory this process maps, inside an
// open epoch, at a place inside the target's window: the target's block (`there`), the
// origin's (`here`), their bytes and the target's type. False when anything is otherwise: the
// full path then checks, reports and moves.
struct DirectBlock {
  std::byte* there = nullptr;
  std::byte* here = nullptr;
  std::int64_t bytes = 0;
  const core::Datatype* type = nullptr;
};
inline bool find_directly(const Win& w, const RmaOp& o, DirectBlock& d) {
  if (w.served || w.flavor == MPI_WIN_FLAVOR_DYNAMIC) return false;
  if (o.rank < 0 || o.rank >= static_cast<int>(w.targets.size()) || o.disp < 0 ||
      o.origin.count < 0 || o.target_count <= 0 || !epoch_open(w, o.rank))
    return false;
  const core::Datatype* from = find_datatype(o.origin.type);
  const core::Datatype* to = find_datatype(o.target_type);
  if (from == nullptr || to == nullptr || !from->committed() || !to->committed() ||
      !from->contiguous() || !to->contiguous())
    return false;
  const WinTarget& t = w.targets[o.rank];
  std::int64_t origin_bytes = 0, offset = 0;
  if (__builtin_mul_overflow(o.target_count, to->size(), &d.bytes) ||
      __builtin_mul_overflow(o.origin.count, from->size(), &origin_bytes) ||
      origin_bytes != d.bytes || (t.mapped == nullptr && !t.self) ||
      __builtin_mul_overflow(o.disp, static_cast<std::int64_t>(t.disp_unit), &offset) ||
      offset > t.size)
    return false;
  std::int64_t lo = offset + to->true_lb();  // the block's first byte (contiguous())
  if (lo < 0 || d.bytes > t.size - lo) return false;
  d.there = (t.mapped != nullptr ? t.mapped : reinterpret_cast<std::byte*>(t.base)) + lo;
  d.here = static_cast<std::byte*>(const_cast<void*>(o.origin.addr)) + from->true_lb();
  d.type = to;
  return true;
}

// The common put or get, checked and done in one pass (osu_put_latency -np 2 8 B, with the
// inline find_win: 33 -> 22 ns; callgrind, MPI_Put: 369 -> 209 instructions).
inline bool copy_directly(Win& w, const RmaOp& o) {
  bool put = o.kind == RmaOp::Kind::kPut;
  DirectBlock d;
  if ((!put && o.kind != RmaOp::Kind::kGet) || !find_directly(w, o, d)) return false;
  w.stores_pending |= put;
  std::memcpy(put ? d.there : d.here, put ? d.here : d.there, static_cast<std::size_t>(d.bytes));
  return true;
}

// The loop of `op` over `type`, kept for the last predefined type asked for: the lookup was
// a third of MPI_Accumulate's instructions (osu_acc_latency). Predefined ops and types live as
// long as the library, so the pair kept never names other objects.
core::Op::PackedLoop loop_of(const core::Op& op, const core::Datatype& type) {
  static const core::Op* last_op = nullptr;
  static const core::Datatype* last_type = nullptr;
  static core::Op::PackedLoop last;
  if (&op == last_op && &type == last_type) [[likely]]
    return last;
  core::Op::PackedLoop loop = op.packed_loop(type);
  if (op.is_predefined() && type.predefined()) {
    last_op = &op;
    last_type = &type;
    last = loop;
  }
  return loop;
}

// The common accumulate: a predefined op with a loop for the target's type, on blocks that do
// not overlap, combined in place under the target's mutex (osu_acc_latency -np 2 8 B: 45 -> 35
// ns).
inline bool accumulate_directly(Win& w, const RmaOp& o) {
  const core::Op* op = o.kind == RmaOp::Kind::kAccumulate ? find_op(o.op) : nullptr;
  DirectBlock d;
  if (op == nullptr || !op->is_predefined() || !find_directly(w, o, d)) return false;
  core::Op::PackedLoop loop = loop_of(*op, *d.type);
  auto a = reinterpret_cast<std::uintptr_t>(d.here), b = reinterpret_cast<std::uintptr_t>(d.there);
  if (loop.loop == nullptr || ((a | b) & static_cast<std::uintptr_t>(loop.alignment - 1)) != 0 ||
      (d.here < d.there + d.bytes && d.there < d.here + d.bytes))
    return false;
  w.stores_pending = true;
  TargetMutex hold(w.control_of(o.rank));
  loop.loop(d.here, d.there, o.target_count * loop.per_item);
  return true;
}

// `request`: the R forms' output, checked (null for the others).
int run(const Call& call, MPI_Win win, const RmaOp& o, MPI_Request** request = nullptr) {
  GPURUN_CHECK_WIN(w, win);
  Resolved r;
  if (int rc = resolve(call, *w, o, r); rc != MPI_SUCCESS) return rc;
  if (request != nullptr && *request == nullptr)
    return raise_win(call, win, MPI_ERR_ARG, "argument request is a null pointer");
  w->stores_pending |= o.kind != RmaOp::Kind::kGet;
  if (Status st = move(*w, o, r); !st.ok()) return raise_win_status(call, win, st);
  if (request != nullptr) **request = handle_of(completed_request(core::MessageStatus{}));
  return MPI_SUCCESS;
}

// MPI_Compare_and_swap: one element, swapped when the target's equals *compare_addr.
int compare_and_swap(const Call& call, MPI_Win win, const RmaOp& o, const void* compare) {
  GPURUN_CHECK_WIN(w, win);
  Resolved r;
  if (int rc = resolve(call, *w, o, r); rc != MPI_SUCCESS) return rc;
  // The standard's C integer, Fortran integer, logical and byte types: those MPI_BAND or MPI_LAND
  // take.
  using core::Op;
  using core::OpKind;
  if (!r.target->predefined() || !(Op::predefined(OpKind::kBand).defined_for(*r.target) ||
                                   Op::predefined(OpKind::kLand).defined_for(*r.target))) {
    return raise_win(call, win, MPI_ERR_TYPE,
                     "argument datatype is not an integer, logical or byte type");
  }
  if (o.rank == MPI_PROC_NULL) return MPI_SUCCESS;
  auto n = static_cast<std::size_t>(r.target->size());
  w->stores_pending = true;
  if (w->served) {
    Status st = remote_compare_and_swap(*w, o.rank, o.origin.addr, compare,
                                        const_cast<void*>(o.result.addr), r.remote, n);
    return st.ok() ? MPI_SUCCESS : raise_win_status(call, win, st);
  }
  std::vector<std::byte> old(n);
  TargetMutex hold(w->control_of(o.rank));
  Status st = target_io(*w, o.rank, false, old.data(), r.remote, n);
  if (st.ok() && std::memcmp(old.data(), compare, n) == 0) {
    std::vector<std::byte> next(static_cast<const std::byte*>(o.origin.addr),
                                static_cast<const std::byte*>(o.origin.addr) + n);
    st = target_io(*w, o.rank, true, next.data(), r.remote, n);
  }
  if (!st.ok()) return raise_win_status(call, win, st);
  std::memcpy(o.result.addr == nullptr ? nullptr : const_cast<void*>(o.result.addr), old.data(), n);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
using Kind = RmaOp::Kind;

// The entry points: `params` and `op` are macros of the parameter list (all but the window and
// the request) and of the RmaOp it makes.
#define GPURUN_RMA_CALL(name, params, op)                                                         \
  extern "C" int P##name(params, MPI_Win win) {                                                   \
    GPURUN_API_ENTER(#name);                                                                      \
    const RmaOp o = op;                                                                           \
    Win* w = find_win(win);                                                                       \
    if (w != nullptr && (copy_directly(*w, o) || accumulate_directly(*w, o))) return MPI_SUCCESS; \
    return run(call, win, o);                                                                     \
  }                                                                                               \
  GPURUN_MPI_ALIAS(name)
#define GPURUN_RMA_RCALL(name, params, op)                            \
  extern "C" int P##name(params, MPI_Win win, MPI_Request* request) { \
    GPURUN_API_ENTER(#name);                                          \
    return run(call, win, op, &request);                              \
  }                                                                   \
  GPURUN_MPI_ALIAS(name)

#define GPURUN_RMA_TARGET_PARAMS(count_t) \
  int target_rank, MPI_Aint target_disp, count_t target_count, MPI_Datatype target_datatype
#define GPURUN_RMA_MOVE_PARAMS(buf_t, count_t)                           \
  buf_t origin_addr, count_t origin_count, MPI_Datatype origin_datatype, \
      GPURUN_RMA_TARGET_PARAMS(count_t)
#define GPURUN_RMA_ACC_PARAMS(count_t) GPURUN_RMA_MOVE_PARAMS(const void*, count_t), MPI_Op op
#define GPURUN_RMA_GACC_PARAMS(count_t)                                                           \
  const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype, void *result_addr, \
      count_t result_count, MPI_Datatype result_datatype, GPURUN_RMA_TARGET_PARAMS(count_t),      \
      MPI_Op op
#define GPURUN_RMA_OP(result, op, kind)                                                           \
  {                                                                                               \
    {origin_addr, origin_count, origin_datatype}, result, target_rank, target_disp, target_count, \
        target_datatype, op, kind                                                                 \
  }
#define GPURUN_RMA_NO_RESULT \
  { nullptr, 0, MPI_DATATYPE_NULL }
#define GPURUN_RMA_RESULT \
  { result_addr, result_count, result_datatype }

#define GPURUN_RMA_PUT GPURUN_RMA_OP(GPURUN_RMA_NO_RESULT, MPI_OP_NULL, Kind::kPut)
#define GPURUN_RMA_GET GPURUN_RMA_OP(GPURUN_RMA_NO_RESULT, MPI_OP_NULL, Kind::kGet)
#define GPURUN_RMA_ACC GPURUN_RMA_OP(GPURUN_RMA_NO_RESULT, op, Kind::kAccumulate)
#define GPURUN_RMA_GACC GPURUN_RMA_OP(GPURUN_RMA_RESULT, op, Kind::kGetAccumulate)

GPURUN_RMA_CALL(MPI_Put, GPURUN_RMA_MOVE_PARAMS(const void*, int), GPURUN_RMA_PUT)
GPURUN_RMA_CALL(MPI_Put_c, GPURUN_RMA_MOVE_PARAMS(const void*, MPI_Count), GPURUN_RMA_PUT)
GPURUN_RMA_CALL(MPI_Get, GPURUN_RMA_MOVE_PARAMS(void*, int), GPURUN_RMA_GET)
GPURUN_RMA_CALL(MPI_Get_c, GPURUN_RMA_MOVE_PARAMS(void*, MPI_Count), GPURUN_RMA_GET)
GPURUN_RMA_RCALL(MPI_Rput, GPURUN_RMA_MOVE_PARAMS(const void*, int), GPURUN_RMA_PUT)
GPURUN_RMA_RCALL(MPI_Rput_c, GPURUN_RMA_MOVE_PARAMS(const void*, MPI_Count), GPURUN_RMA_PUT)
GPURUN_RMA_RCALL(MPI_Rget, GPURUN_RMA_MOVE_PARAMS(void*, int), GPURUN_RMA_GET)
GPURUN_RMA_RCALL(MPI_Rget_c, GPURUN_RMA_MOVE_PARAMS(void*, MPI_Count), GPURUN_RMA_GET)
GPURUN_RMA_CALL(MPI_Accumulate, GPURUN_RMA_ACC_PARAMS(int), GPURUN_RMA_ACC)
GPURUN_RMA_CALL(MPI_Accumulate_c, GPURUN_RMA_ACC_PARAMS(MPI_Count), GPURUN_RMA_ACC)
GPURUN_RMA_RCALL(MPI_Raccumulate, GPURUN_RMA_ACC_PARAMS(int), GPURUN_RMA_ACC)
GPURUN_RMA_RCALL(MPI_Raccumulate_c, GPURUN_RMA_ACC_PARAMS(MPI_Count), GPURUN_RMA_ACC)
GPURUN_RMA_CALL(MPI_Get_accumulate, GPURUN_RMA_GACC_PARAMS(int), GPURUN_RMA_GACC)
GPURUN_RMA_CALL(MPI_Get_accumulate_c, GPURUN_RMA_GACC_PARAMS(MPI_Count), GPURUN_RMA_GACC)
GPURUN_RMA_RCALL(MPI_Rget_accumulate, GPURUN_RMA_GACC_PARAMS(int), GPURUN_RMA_GACC)
GPURUN_RMA_RCALL(MPI_Rget_accumulate_c, GPURUN_RMA_GACC_PARAMS(MPI_Count), GPURUN_RMA_GACC)

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Fetch_and_op");
  if (const gpurun::core::Datatype* type = find_datatype(datatype); type && !type->predefined())
    return raise_win(call, win, MPI_ERR_TYPE, "argument datatype is not a predefined type");
  return run(call, win,
             {{origin_addr, 1, datatype},
              {result_addr, 1, datatype},
              target_rank,
              target_disp,
              1,
              datatype,
              op,
              Kind::kGetAccumulate});
}

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr,
                                     void* result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win) {
  GPURUN_API_ENTER("MPI_Compare_and_swap");
  if (origin_addr == nullptr || compare_addr == nullptr || result_addr == nullptr) {
    return raise_win(call, win, MPI_ERR_BUFFER, "argument %s is a null pointer",
                     !origin_addr    ? "origin_addr"
                     : !compare_addr ? "compare_addr"
                                     : "result_addr");
  }
  return compare_and_swap(call, win,
                          {{origin_addr, 1, datatype},
                           {result_addr, 1, datatype},
                           target_rank,
                           target_disp,
                           1,
                           datatype,
                           MPI_OP_NULL,
                           Kind::kPut},
                          compare_addr);
}

GPURUN_MPI_ALIAS(MPI_Fetch_and_op)
GPURUN_MPI_ALIAS(MPI_Compare_and_swap)
