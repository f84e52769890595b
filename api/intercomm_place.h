// Where the two groups of an intercommunicator agree on what they make of it (api/intercomm.cc,
// api/intercomm_idup.cc): MPI_COMM_WORLD, or between two jobs the intercommunicator's span
// (CommEntry::span), whose ranks both groups number alike; and the creation tags both groups
// derive alike.
#pragma once

#include <mpi.h>

#include <vector>

#include "api/state.h"
#include "runtime/core/group.h"

namespace gpurun::api {

struct Place {
  CommEntry* entry;
  // The rank there of process `id` (a number of this process's).
  int rank_of(int id) const;
  // The ranks there of the members of `a` and `b`, ascending.
  std::vector<int> ranks(const core::Group& a, const core::Group& b) const;
};
// The place of an intercommunicator whose span is `span` (MPI_COMM_NULL: within one job).
Place place_of(MPI_Comm span);

// A creation tag that every member of both groups derives alike: from the union's lowest and
// highest ranks in the place (`members`) and a number both sides share.
int shared_tag(const std::vector<int>& members, int salt);

// The salt of the next duplicate of intercommunicator `entry`: both groups dup in the same
// order, so the count of its constructions and its context id name this one.
int dup_salt(CommEntry& entry);

}  // namespace gpurun::api
