// Collective calls that check their arguments on every member agree on the outcome before
// acting (an allreduce on the call's communicator), so that a member with a bad argument does
// not leave the others waiting in the call's later steps (MPI-IO, one-sided communication).
#pragma once

#include <mpi.h>

namespace gpurun::api {

// Whether every member of `comm` found its arguments good.
inline bool all_agree(MPI_Comm comm, bool mine_ok) {
  int ok = mine_ok ? 1 : 0, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

// Whether every member of `comm` passed the same `value` (a collective call's argument).
inline bool same_everywhere(MPI_Comm comm, long long value) {
  long long both[2] = {value, -value}, out[2] = {0, 0};
  PMPI_Allreduce(both, out, 2, MPI_LONG_LONG, MPI_MAX, comm);
  return out[0] == value && -out[1] == value;
}

// What a member whose own arguments were good says when another's were not.
inline constexpr const char* kRefusedByAnother =
    "another member of the group passed a bad argument to this collective call, which did "
    "nothing";

}  // namespace gpurun::api
