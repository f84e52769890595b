// reduce "binomial": a binomial tree towards the root.
//
// Idea: at step k a rank whose relative rank has bit k set sends its partial result (its own
// data combined with its subtree's) to the rank 2^k below it and leaves; the others receive
// and combine. A commutative op uses a tree rooted at the root itself. A non-commutative op
// needs operands in rank order: the tree is rooted at rank 0, where relative and real ranks
// agree, so every combination is (lower ranks) op (higher ranks); rank 0 then sends the result
// to the root (one more hop).
// Requirements: none (any p, any op, any datatype).
// Cost: ceil(log2 p) (alpha + n beta + n gamma), plus alpha + n beta for a non-commutative op
// with a root other than 0. The first child's data is received where the partial result will
// live (the root's receive buffer), so no rank copies its input first. Scratch: up to 2 n.
#include <utility>

#include "coll/algo/common.h"
#include "coll/algo/phases.h"

namespace gpurun::coll::algo {

void reduce_binomial(ScheduleBuilder& b, const Buf& in, const Buf& out, int root) {
  const int p = b.size(), r = b.rank();
  const core::Op& op = *b.args().op;
  const bool commutative = op.commutative();
  const int top = commutative ? root : 0;
  const int vr = (r - top + p) % p;
  const int parent = vr == 0 ? -1 : ((vr & (vr - 1)) + top) % p;
  const bool final_root = r == root && top == root;
  Buf acc = in;  // the partial result; `in` itself is never written
  bool writable = final_root && commutative && in.base == out.base;  // in place: acc is out
  Buf tmp;
  for (int m = 1; m < p && (vr & m) == 0; m <<= 1) {
    if (vr + m >= p) continue;
    int child = (vr + m + top) % p;
    if (!writable) {
      // The first child's data goes straight where the result will be: dest = in op child.
      Buf dest = final_root && in.base != out.base ? out : b.scratch(in.count, *in.type);
      b.recv(child, dest);
      b.reduce(acc, dest);
      acc = dest;
      writable = true;
    } else {
      if (tmp.type == nullptr) tmp = b.scratch(in.count, *in.type);
      b.recv(child, tmp);
      if (commutative) {
        b.reduce(tmp, acc);
      } else {
        b.reduce(acc, tmp);  // acc holds the lower ranks
        std::swap(acc, tmp);
      }
    }
    b.next_round();
  }
  if (parent >= 0) {
    b.send(parent, acc);
  } else if (top == root) {
    if (acc.base != out.base) b.copy(acc, out);
  } else {
    b.send(root, acc);
  }
  b.next_round();
  if (r == root && top != root) b.recv(top, out);
  b.next_round();
}

namespace {

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Buf out = b.rank() == a.root ? Buf{a.recvbuf, a.count, a.type} : Buf{};
  reduce_binomial(b, send_buf(a, a.count), out, a.root);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(reduce_binomial, .name = "binomial",
                          .collective = ::gpurun::coll::Collective::kReduce,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary = "binomial tree; ceil(log2 p)(alpha + n beta + n gamma)")
