// What the shared-memory algorithms share at registration: usable() conditions, create() on
// the communicator's arena, and the fallback for an arena whose segment fails to set up.
#include "coll/shm/algorithms.h"
#include "coll/shm/arenas.h"

namespace gpurun::coll::shm {
namespace {

constexpr std::string_view kName = "shm";

// The first other registered algorithm that can run `args`, for a collective that has to run
// without the segment. Its operation takes this call's tag; the setup's messages had their
// own (coll/shm/setup.h), so the two never mix.
std::unique_ptr<Operation> make_fallback(const Args& args) {
  for (const Algorithm* algorithm : Registry::of(args.collective)) {
    if (algorithm->name == kName || algorithm->usable == nullptr || !algorithm->usable(args))
      continue;
    auto op = algorithm->create(args);
    if (op.ok()) return std::move(op).value();
  }
  return nullptr;
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
