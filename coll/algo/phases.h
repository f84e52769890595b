// Phases that several algorithms chain in one schedule (reduce_scatter is a reduce and a
// scatterv; more composite algorithms come the same way). Each appends rounds to a builder and
// leaves it on a fresh round.
#pragma once

#include <cstdint>

#include "coll/schedule.h"

namespace gpurun::coll::algo {

// A buffer split among the ranks: block i is counts[i] elements at displs[i] (in elements of
// `type`), or `count` elements at i * count when counts is null.
struct Blocks {
  void* base = nullptr;
  const core::Datatype* type = nullptr;
  std::int64_t count = 0;
  const std::int64_t* counts = nullptr;
  const std::int64_t* displs = nullptr;

  Buf operator[](int i) const {
    Buf whole{base, 0, type};
    if (counts == nullptr) return whole.slice(i * count, count);
    return whole.slice(displs[i], counts[i]);
  }
};

// `in` of every rank combined with the builder's op, in rank order, into `out` at `root`
// (`out` is not used elsewhere; it may be `in` at the root). Binomial tree: ceil(log2 p)
// rounds. A non-commutative op is reduced towards rank 0, whose result then goes to the root.
void reduce_binomial(ScheduleBuilder& b, const Buf& in, const Buf& out, int root);
// `data` of `root` into `data` of every rank. Binomial tree: ceil(log2 p) hops.
void bcast_binomial(ScheduleBuilder& b, const Buf& data, int root);
// Block i of `from` (at the root) to `into` of rank i; the root's own block is copied unless
// `into` is null (MPI_IN_PLACE). One round: the root sends p - 1 messages.
void scatter_linear(ScheduleBuilder& b, int root, const Blocks& from, const Buf* into);
// `from` of rank i into block i of `into` at the root; the root's own block is copied unless
// `from` is null (MPI_IN_PLACE). One round: the root receives p - 1 messages.
void gather_linear(ScheduleBuilder& b, int root, const Buf* from, const Blocks& into);

}  // namespace gpurun::coll::algo
