// Recursive halving: the reduce-scatter phase that reduce "reduce_scatter_gather" (Rabenseifner)
// and reduce_scatter(_block) "recursive_halving" share. Implemented in
// reduce_scatter_recursive_halving.cc.
//
// With p' = floor_pow2(p) and rem = p - p', the first 2 rem ranks fold first: each even one
// sends its whole vector to the odd one above it, which combines it with its own, and leaves.
// The p' remaining ranks ("doubling ranks" d = 0 .. p'-1; see doubling_rank) then halve: in
// step k (mask = p'/2, p'/4, .. 1) a rank keeps one half of its current range of groups, sends
// the other half to d XOR mask and combines what that rank sends. Group g is the element range
// [bounds[g], bounds[g+1]); at the end doubling rank d holds group d fully reduced in `acc`.
// Operands are combined in no fixed order: commutative ops only.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/schedule.h"

namespace gpurun::coll::algo {

// Rank among the p' doubling ranks (-1 for an even rank of a folded pair), and back.
inline int doubling_rank(int r, int rem) {
  return r < 2 * rem ? (r % 2 == 1 ? r / 2 : -1) : r - rem;
}
inline int real_rank(int d, int rem) { return d < rem ? 2 * d + 1 : d + rem; }

// The halving described above. `input`: this rank's whole vector (read only); `acc`: a buffer
// laid out like it where partial results go (it may be `input` itself, in place: then the
// input is overwritten). `bounds` holds p' + 1 element offsets. Leaves the builder on a fresh
// round; returns this rank's doubling rank (-1: it left after the fold, `acc` unused).
int reduce_scatter_halving(ScheduleBuilder& b, const Buf& input, const Buf& acc,
                           const std::vector<std::int64_t>& bounds);

}  // namespace gpurun::coll::algo
