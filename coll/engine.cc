#include "coll/engine.h"

#include <array>
#include <bit>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "coll/params.h"
#include "coll/select_guard.h"
#include "coll/selector.h"
#include "coll/staging.h"
#include "coll/tuning.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

constexpr std::size_t kCollectives = static_cast<std::size_t>(Collective::kCount);

// The last operation of a blocking call, for the next one (blocking_operation()).
struct BlockingSlot {
  const Algorithm* algorithm = nullptr;
  std::unique_ptr<Operation> operation;
};

struct CommState {
  const core::Communicator* comm = nullptr;
  int size = 0;
  bool one_host = true;
  bool device_only = false;  // Args::device_only (a state never serves another value)
  CommShape shape;
  std::array<std::optional<std::vector<Candidate>>, kCollectives> candidates;
  std::array<std::uint64_t, kCollectives> logged{};  // size buckets whose decision was logged
  std::array<BlockingSlot, kCollectives> blocking;
};

std::optional<topo::HostCopy> g_host_copy;

std::string forced_knob(Collective collective) {
  return params::forced_algorithm(collective).get();
}

// The hosts a communicator spans and its most ranks on one host, from every job rank's node id
// (Args::job_nodes); a communicator whose node ids are unknown counts as spread one rank per
// host unless it is on one host.
CommShape shape_of(const Args& args) {
  const int p = args.comm->size();
  CommShape shape{.ranks = p, .one_host = args.one_host, .nodes = 1, .ranks_per_node = p};
  if (args.one_host) {
    shape.copy = g_host_copy;
    return shape;
  }
  std::unordered_map<int, int> per_node;
  for (int i = 0; i < p; ++i) {
    auto job_rank = static_cast<std::size_t>(args.comm->group().job_rank(i));
    if (job_rank >= args.job_nodes.size()) return CommShape{p, false, p, 1};
    ++per_node[args.job_nodes[job_rank]];
  }
  shape.nodes = static_cast<int>(per_node.size());
  shape.ranks_per_node = 0;
  for (const auto& [node, ranks] : per_node)
    shape.ranks_per_node = std::max(shape.ranks_per_node, ranks);
  return shape;
}

struct Engine {
  bool table_loaded = false;
  Status table_status;
  std::optional<TuningTable> table;
  std::optional<Selector> selector;
  std::unordered_map<std::uint32_t, CommState> comms;
  // The state looked up last (calls in a loop go to one communicator); elements of an
  // unordered_map stay where they are until erased.
  std::uint32_t last_context = 0;
  CommState* last_state = nullptr;

  Status load_table() {
    if (table_loaded) return table_status;
    table_loaded = true;
    const std::string& path = params::tuning_file().get();
    Result<TuningTable> t = path.empty() ? TuningTable::built_in() : TuningTable::load(path);
    if (!t.ok()) {
      table_status = t.status();
      GPURUN_LOG(error, coll, "%s", table_status.to_string().c_str());
      return table_status;
    }
    table.emplace(std::move(t).value());
    selector.emplace(&*table, forced_knob);
    return ok_status();
  }

  CommState& state_of(const Args& args) {
    std::uint32_t context = args.comm->context_id();
    if (last_state == nullptr || last_context != context) {
      last_state = &comms[context];
      last_context = context;
    }
    CommState& s = *last_state;
    if (s.comm != args.comm || s.size != args.comm->size() || s.one_host != args.one_host ||
        s.device_only != args.device_only) {
      s = CommState{};
      s.comm = args.comm;
      s.size = args.comm->size();
      s.one_host = args.one_host;
      s.device_only = args.device_only;
      s.shape = shape_of(args);
    }
    return s;
  }
};

Engine& engine() {
  static auto* e = new Engine;
  return *e;
}

std::int64_t sum(const std::int64_t* counts, int n) {
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) total += counts[i];
  return total;
}

void log_decision(CommState& s, const Args& args, std::int64_t bytes, const Algorithm& a) {
  int bucket = std::min(63, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(bytes))));
  std::uint64_t& logged = s.logged[static_cast<std::size_t>(args.collective)];
  if ((logged >> bucket) & 1) return;
  logged |= std::uint64_t{1} << bucket;
  GPURUN_LOG(debug, coll, "%.*s of %lld bytes (bucket up to %llu) on %d ranks: %.*s",
             static_cast<int>(collective_name(args.collective).size()),
             collective_name(args.collective).data(), static_cast<long long>(bytes),
             bucket == 0 ? 0ULL : (1ULL << bucket) - 1, s.size, static_cast<int>(a.name.size()),
             a.name.data());
}

}  // namespace

std::int64_t selection_bytes(const Args& a) {
  int p = a.comm->size();
  auto bytes = [](std::int64_t count, const core::Datatype* type) {
    return type != nullptr ? count * type->size() : 0;
  };
  switch (a.collective) {
    case Collective::kBcast:
    case Collective::kReduce:
    case Collective::kAllreduce:
    case Collective::kScan:
    case Collective::kExscan:
      return bytes(a.count, a.type);
    case Collective::kReduceScatterBlock:
      return bytes(a.count, a.type) * p;
    case Collective::kReduceScatter:
      return a.recvcounts != nullptr ? bytes(sum(a.recvcounts, p), a.type) : 0;
    case Collective::kGather:  // the root's receive side (its send side may be MPI_IN_PLACE)
      return a.recvtype != nullptr ? bytes(a.recvcount, a.recvtype) : bytes(a.count, a.type);
    case Collective::kScatter:  // the root's send side (its receive side may be MPI_IN_PLACE)
      return a.type != nullptr ? bytes(a.count, a.type) : bytes(a.recvcount, a.recvtype);
    case Collective::kAllgather:
    case Collective::kAlltoall:
      return bytes(a.recvcount, a.recvtype);
    case Collective::kAllgatherv:
      return a.recvcounts != nullptr ? bytes(sum(a.recvcounts, p), a.recvtype) / p : 0;
    default:
      return 0;
  }
}

namespace {

Result<const Algorithm*> select_in(Engine& e, CommState& s, const Args& args,
                                   const Algorithm* instead_of = nullptr) {
  auto& candidates = s.candidates[static_cast<std::size_t>(args.collective)];
  if (!candidates) candidates = e.selector->candidates(args.collective, s.shape);
  std::int64_t bytes = selection_bytes(args);
  GPURUN_ASSIGN_OR_RETURN(const Algorithm* a,
                          e.selector->pick(*candidates, args, bytes, instead_of));
  if (instead_of == nullptr) log_decision(s, args, bytes, *a);
  return a;
}

// Stands for host staging (coll/staging.h) where an algorithm is expected: a call on device
// memory that its algorithm cannot run there is staged around that algorithm.
Result<std::unique_ptr<Operation>> create_staged_op(const Args& args) {
  return create_staged(args, create);
}
const Algorithm kStaged{.name = "staged",
                        .create = create_staged_op,
                        .summary = "host staging around the host algorithm"};

bool device_algorithm_runs(const Args& args) {
  for (const Algorithm* a : Registry::of(args.collective))
    if (is_device_algorithm(*a) && a->usable != nullptr && a->usable(args)) return true;
  return false;
}

// A call on device memory: a device algorithm (device_<name>) where the table's rules for
// device memory pick one that runs the call; else the algorithm the table picks for the same
// call on host memory, which every rank picks whatever its buffers' kind, so that ranks with
// buffers of different kinds meet: run on the device where that algorithm can (schedules,
// coll/device_steps.h), else staged around it. A device-only communicator (Args::device_only)
// skips the first step: its selection never depends on memory kinds.
Result<const Algorithm*> select_for_device(Engine& e, CommState& s, const Args& args) {
  if (!args.device_only && device_algorithm_runs(args)) {
    GPURUN_ASSIGN_OR_RETURN(const Algorithm* a, select_in(e, s, args));
    if (is_device_algorithm(*a)) return a;
  }
  Args host = args;
  host.memory = accel::MemoryKind::kHost;
  GPURUN_ASSIGN_OR_RETURN(const Algorithm* a, select_in(e, s, host));
  if (a->usable != nullptr && a->usable(args)) return a;
  return &kStaged;
}

Result<const Algorithm*> select_in_engine(Engine& e, CommState& s, const Args& args) {
  if (accel::is_host(args.memory)) return select_in(e, s, args);
  return select_for_device(e, s, args);
}

// An algorithm's plan takes its scratch memory (ScheduleBuilder::scratch): a count beyond
// what this process can hold (an unset variable, most often) ends the call in kNoMemory,
// MPI_ERR_NO_MEM through the error handler, rather than the process; members that wait in the
// call learn of it (select_guard.h: guard_failed).
// (std::length_error: a size beyond what a vector may hold, as api/call.h's guard_memory.)
Result<std::unique_ptr<Operation>> plan(const Algorithm& a, const Args& args) {
  auto no_memory = [&] {
    std::int64_t bytes = selection_bytes(args);
    guard_failed(args, a, bytes, ErrorCode::kNoMemory);
    return Status(ErrorCode::kNoMemory, "algorithm " + std::string(a.name) +
                                            " found no memory for the scratch of a " +
                                            std::to_string(bytes) + "-byte call");
  };
  try {
    return a.create(args);
  } catch (const std::bad_alloc&) {
    return no_memory();
  } catch (const std::length_error&) {
    return no_memory();
  }
}

}  // namespace

Result<const Algorithm*> select(const Args& args) {
  Engine& e = engine();
  GPURUN_TRY(e.load_table());
  return select_in_engine(e, e.state_of(args), args);
}

Result<const Algorithm*> select_instead_of(const Args& args, const Algorithm& instead_of) {
  Engine& e = engine();
  GPURUN_TRY(e.load_table());
  return select_in(e, e.state_of(args), args, &instead_of);
}

Result<std::unique_ptr<Operation>> create(const Args& args) {
  GPURUN_ASSIGN_OR_RETURN(const Algorithm* a, select(args));
  GPURUN_ASSIGN_OR_RETURN(std::unique_ptr<Operation> op, plan(*a, args));
  return guard_operation(std::move(op), args, *a, selection_bytes(args), /*blocking=*/false);
}

Result<Operation*> blocking_operation(const Args& args) {
  Engine& e = engine();
  GPURUN_TRY(e.load_table());
  CommState& s = e.state_of(args);
  BlockingSlot& slot = s.blocking[static_cast<std::size_t>(args.collective)];
  // A call that repeats the previous one of its collective on this communicator (rearm()
  // compares every scalar that selection looks at and the values of the v and w forms'
  // arrays: the same selection and the same plan) runs the kept operation again without
  // selecting anew (selection and the usable() checks were about a quarter of the
  // instructions of an 8-byte allreduce; osu_allreduce -np 2 at 8 B, 5 interleaved runs:
  // 0.18 -> 0.17 us, osu_bcast 0.14 -> 0.13; osu_alltoallv 8 B 0.40 -> 0.25 us).
  if (slot.operation && slot.operation->rearm(args)) return slot.operation.get();
  GPURUN_ASSIGN_OR_RETURN(const Algorithm* a, select_in_engine(e, s, args));
  slot.operation.reset();  // its scratch goes back to the pool first
  GPURUN_ASSIGN_OR_RETURN(std::unique_ptr<Operation> op, plan(*a, args));
  slot.operation =
      guard_operation(std::move(op), args, *a, selection_bytes(args), /*blocking=*/true);
  slot.algorithm = a;
  return slot.operation.get();
}

bool device_native(Collective collective, bool device_only) {
  // The w forms' per-rank types are never run on the device (schedule_on_device).
  if (collective == Collective::kAlltoallw || collective == Collective::kNeighborAlltoallw)
    return false;
  bool all_steps = true, some_steps = false;
  for (const Algorithm* a : Registry::of(collective)) {
    if (is_device_algorithm(*a) && !device_only) return true;
    all_steps = all_steps && a->device_steps;
    some_steps = some_steps || a->device_steps;
  }
  return device_only ? some_steps : all_steps && !Registry::of(collective).empty();
}

void forget_comm(std::uint32_t context_id) {
  Engine& e = engine();
  e.comms.erase(context_id);  // its kept operations first: they may use what release() frees
  e.last_state = nullptr;
  forget_guard(context_id);
  for (int c = 0; c < static_cast<int>(Collective::kCount); ++c)
    for (const Algorithm* algorithm : Registry::of(static_cast<Collective>(c)))
      if (algorithm->release != nullptr) algorithm->release(context_id);
}

void set_host_copy(std::optional<topo::HostCopy> copy) { g_host_copy = copy; }

void reset_engine() {
  Engine& e = engine();
  e.comms.clear();
  e.last_state = nullptr;
  e.selector.reset();
  e.table.reset();
  e.table_loaded = false;
  e.table_status = ok_status();
}

}  // namespace gpurun::coll
