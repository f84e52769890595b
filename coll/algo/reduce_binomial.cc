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
// with a root other than 0. Scratch: up to 2 n per rank.
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
  Buf acc = in;  // the partial result; `in` itself is never written
  bool writable = false;
  if (r == root && top == root && commutative) {
    if (in.base != out.base) b.copy(in, out);
    b.next_round();
    acc = out;
    writable = true;
  }
  Buf tmp, spare;
  for (int m = 1; m < p && (vr & m) == 0; m <<= 1) {
    if (vr + m >= p) continue;
    if (tmp.type == nullptr) tmp = b.scratch(in.count, *in.type);
    b.recv((vr + m + top) % p, tmp);
    if (writable && commutative) {
      b.reduce(tmp, acc);
    } else {
      b.reduce(acc, tmp);  // acc holds the lower ranks
      Buf old = acc;
      acc = tmp;
      if (writable) {
        tmp = old;
      } else {
        tmp = spare.type != nullptr ? spare : (spare = b.scratch(in.count, *in.type));
      }
      writable = true;
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
                          .usable = ::gpurun::coll::algo::always,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .summary = "binomial tree; ceil(log2 p)(alpha + n beta + n gamma)")
