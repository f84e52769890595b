// What the shared-memory algorithms share at registration: usable() conditions, create() on
// the communicator's arena, and the fallback for an arena whose segment fails to set up.
#include "coll/engine.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/arenas.h"

namespace gpurun::coll::shm {
namespace {

constexpr std::string_view kName = "shm";

// The operation of what selection runs for `args` without "shm" (coll/engine.h; nor "cma",
// which falls back for the same reason), for a collective that has to run without the
// segment: the members that already know that the segment failed select it for the same
// call, so the two meet. It takes this call's tag; the setup's messages had their own
// (coll/shm/setup.h), so the two never mix.
std::unique_ptr<Operation> make_fallback(const Args& args) {
  const Algorithm* shm = Registry::find(args.collective, kName);
  if (shm == nullptr) return nullptr;
  Result<const Algorithm*> other = select_instead_of(args, *shm);
  if (!other.ok()) return nullptr;
  auto op = other.value()->create(args);
  return op.ok() ? std::move(op).value() : nullptr;
}

}  // namespace

bool usable_common(const Args& args) {
  return args.comm != nullptr && (args.one_host || args.comm->size() == 1) &&
         accel::is_host(args.memory) && !arena_broken(*args.comm);
}

Result<std::unique_ptr<Operation>> create_on_arena(const Args& args, Factory make) {
  Arena& arena = arena_of(*args.comm);
  std::unique_ptr<ShmOp> op = make(arena, args);
  op->remember(args);
  if (arena.state() != Arena::State::kReady) op->prepare_setup(args, make_fallback(args));
  return std::unique_ptr<Operation>(std::move(op));
}

void release_comm(std::uint32_t context_id) { release(context_id); }

}  // namespace gpurun::coll::shm
