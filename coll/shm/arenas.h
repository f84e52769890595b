// The arenas of this process, one per communicator that has run a shared-memory collective,
// by context id. An arena and its segment go with their communicator (release()).
//
// Threading: not thread-safe; the API layer serialises callers.
#pragma once

#include <cstdint>

#include "coll/shm/arena.h"
#include "runtime/core/communicator.h"

namespace gpurun::coll::shm {

// The arena of `comm`, made (without a segment yet) on first use.
Arena& arena_of(const core::Communicator& comm);
// Whether `comm`'s arena tried to set up its segment and failed (on every member alike).
bool arena_broken(const core::Communicator& comm);
// Leaves (Arena::leave) and unmaps the segment of a freed communicator (no collective of it
// may be in flight).
void release(std::uint32_t context_id);
// MPI_Finalize: this rank leaves every arena (the segments stay mapped until the process ends:
// persistent collectives the application did not free still point into them).
void leave_all();

}  // namespace gpurun::coll::shm
