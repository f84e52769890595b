// What an operation was built for, as far as running it again for another call goes: the
// call's scalars. The v and w forms' arrays (and neighbourhood lists) are not kept, so calls
// that have them never count as a repeat. Shared by the operations that a repeated blocking
// call may rearm (schedule.cc, staging.cc).
#pragma once

#include <cstdint>

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
  bool has_arrays = false;

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
        has_arrays(has_arrays_in(a)) {}
  bool operator==(const CallSignature&) const = default;

  // Whether `a` is the call this signature was made from, field by field, building nothing
  // (rearming runs on every blocking collective); a call with arrays never is.
  bool matches(const Args& a) const {
    return !has_arrays && collective == a.collective && comm == a.comm && sendbuf == a.sendbuf &&
           recvbuf == a.recvbuf && count == a.count && op == a.op && type == a.type &&
           in_place == a.in_place && recvcount == a.recvcount && recvtype == a.recvtype &&
           root == a.root && memory == a.memory && !has_arrays_in(a);
  }

  static bool has_arrays_in(const Args& a) {
    return a.sendcounts != nullptr || a.recvcounts != nullptr || a.sdispls != nullptr ||
           a.rdispls != nullptr || a.sendtypes != nullptr || a.recvtypes != nullptr ||
           a.sources != nullptr || a.destinations != nullptr;
  }
};

}  // namespace gpurun::coll
