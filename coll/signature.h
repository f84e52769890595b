// What an operation was built for, as far as running it again for another call goes: the
// call's scalars and the values in the v and w forms' arrays (one entry per rank of the
// communicator). Neighbourhood collectives' lists are not kept, so those calls never count as
// a repeat. Shared by the operations that a repeated blocking call may rearm (schedule.cc,
// staging.cc, coll/shm/op.cc).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "coll/algorithm.h"

namespace gpurun::coll {

struct CallSignature {
  Collective collective = Collective::kBarrier;
  const core::Communicator* comm = nullptr;
  const void* sendbuf = nullptr;
  const void* recvbuf = nullptr;
  bool in_place = false;
  std::int64_t count = 0, recvcount = 0;
  const core::Datatype* type = nullptr;
  const core::Datatype* recvtype = nullptr;
  const core::Op* op = nullptr;
  int root = 0;
  accel::MemoryKind memory = accel::MemoryKind::kHost;
  bool neighbors = false;
  // Which of the arrays were given (bit i: the i-th of arrays_of()), and their values.
  unsigned present = 0;
  std::vector<std::int64_t> values;
  std::vector<const core::Datatype*> types;

  explicit CallSignature(const Args& a)
      : collective(a.collective),
        comm(a.comm),
        sendbuf(a.sendbuf),
        recvbuf(a.recvbuf),
        in_place(a.in_place),
        count(a.count),
        recvcount(a.recvcount),
        type(a.type),
        recvtype(a.recvtype),
        op(a.op),
        root(a.root),
        memory(a.memory),
        neighbors(a.sources != nullptr || a.destinations != nullptr),
        present(present_in(a)) {
    if (present == 0 || neighbors) return;
    const std::size_t p = static_cast<std::size_t>(a.comm->size());
    for (const std::int64_t* array : arrays_of(a))
      if (array != nullptr) values.insert(values.end(), array, array + p);
    for (const core::Datatype* const* array : {a.sendtypes, a.recvtypes})
      if (array != nullptr) types.insert(types.end(), array, array + p);
  }
  bool operator==(const CallSignature&) const = default;

  // Whether `a` is the call this signature was made from, field by field and array value by
  // array value, building nothing (rearming runs on every blocking collective); a
  // neighbourhood collective never is.
  bool matches(const Args& a) const {
    // root and memory are compared apart: one wide load over both, which the compiler
    // would make, waits for the caller's two recent stores to reach the cache.
    return !neighbors && collective == a.collective && memory == a.memory && comm == a.comm &&
           sendbuf == a.sendbuf && recvbuf == a.recvbuf && count == a.count && op == a.op &&
           type == a.type && in_place == a.in_place && recvcount == a.recvcount &&
           recvtype == a.recvtype && root == a.root && a.sources == nullptr &&
           a.destinations == nullptr && present == present_in(a) &&
           (present == 0 || same_arrays(a));
  }

 private:
  static std::array<const std::int64_t*, 4> arrays_of(const Args& a) {
    return {a.sendcounts, a.sdispls, a.recvcounts, a.rdispls};
  }

  static unsigned present_in(const Args& a) {
    unsigned bits = 0, bit = 1;
    for (const std::int64_t* array : arrays_of(a)) {
      if (array != nullptr) bits |= bit;
      bit <<= 1;
    }
    if (a.sendtypes != nullptr) bits |= 1u << 4;
    if (a.recvtypes != nullptr) bits |= 1u << 5;
    return bits;
  }

  // The arrays of `a` (those present_in() found, as in this signature) hold the kept values.
  bool same_arrays(const Args& a) const {
    const std::size_t p = static_cast<std::size_t>(a.comm->size());
    std::size_t at = 0;
    for (const std::int64_t* array : arrays_of(a)) {
      if (array == nullptr) continue;
      if (!std::equal(array, array + p, values.begin() + static_cast<std::ptrdiff_t>(at)))
        return false;
      at += p;
    }
    at = 0;
    for (const core::Datatype* const* array : {a.sendtypes, a.recvtypes}) {
      if (array == nullptr) continue;
      if (!std::equal(array, array + p, types.begin() + static_cast<std::ptrdiff_t>(at)))
        return false;
      at += p;
    }
    return true;
  }
};

}  // namespace gpurun::coll
