// Phases on a team of the communicator's ranks (coll/algo/hier.h): the binomial reduce and
// bcast, recursive-doubling allreduce and dissemination barrier of coll/algo, with team
// indices in place of communicator ranks. Costs as theirs, with p the team's size.
#include <bit>
#include <utility>

#include "coll/algo/common.h"
#include "coll/algo/hier.h"

namespace gpurun::coll::algo::hier {

void reduce(ScheduleBuilder& b, const Team& t, const Buf& in, const Buf& out, int root) {
  if (t.me < 0) return;
  const int p = t.size(), r = t.me;
  const bool commutative = b.args().op->commutative();
  const int top = commutative ? root : 0;  // non-commutative: rank order towards member 0
  const int vr = (r - top + p) % p;
  const int parent = vr == 0 ? -1 : ((vr & (vr - 1)) + top) % p;
  const bool final_root = r == root && top == root;
  Buf acc = in;  // the partial result; `in` itself is never written
  bool writable = final_root && commutative && in.base == out.base;
  Buf tmp;
  for (int m = 1; m < p && (vr & m) == 0; m <<= 1) {
    if (vr + m >= p) continue;
    int child = t[(vr + m + top) % p];
    if (!writable) {
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
        b.reduce(acc, tmp);
        std::swap(acc, tmp);
      }
    }
    b.next_round();
  }
  if (parent >= 0) {
    b.send(t[parent], acc);
  } else if (top == root) {
    if (acc.base != out.base) b.copy(acc, out);
  } else {
    b.send(t[root], acc);
  }
  b.next_round();
  if (r == root && top != root) b.recv(t[top], out);
  b.next_round();
}

void bcast(ScheduleBuilder& b, const Team& t, std::span<const Buf> data, int root) {
  if (t.me < 0 || t.size() == 1) return;
  const int p = t.size();
  const int vr = (t.me - root + p) % p;
  if (vr != 0)
    for (const Buf& d : data) b.recv(t[((vr & (vr - 1)) + root) % p], d);
  b.next_round();
  int low = vr == 0 ? static_cast<int>(std::bit_ceil(static_cast<unsigned>(p))) : vr & -vr;
  for (int m = low / 2; m >= 1; m /= 2)
    if (vr + m < p)
      for (const Buf& d : data) b.send(t[(vr + m + root) % p], d);
  b.next_round();
}

namespace {

// Receives member `peer`'s partial result and combines it with `data`, lower member first.
void combine_from(ScheduleBuilder& b, const Team& t, int peer, const Buf& data, Buf& tmp) {
  if (tmp.type == nullptr) tmp = b.scratch(data.count, *data.type);
  b.recv(t[peer], tmp);
  if (peer < t.me || b.args().op->commutative()) {
    b.reduce(tmp, data);
  } else {
    b.reduce(data, tmp);
    b.copy(tmp, data);
  }
}

}  // namespace

void allreduce(ScheduleBuilder& b, const Team& t, const Buf& data) {
  if (t.me < 0 || t.size() == 1) return;
  const int p = t.size(), r = t.me, p2 = floor_pow2(p), rem = p - p2;
  Buf tmp;
  if (r < 2 * rem) {  // fold: the even member of a pair hands its data to the odd one
    if (r % 2 == 0)
      b.send(t[r + 1], data);
    else
      combine_from(b, t, r - 1, data, tmp);
    b.next_round();
  }
  int d = r < 2 * rem ? (r % 2 == 1 ? r / 2 : -1) : r - rem;
  if (d >= 0) {
    for (int mask = 1; mask < p2; mask <<= 1) {
      int pd = d ^ mask;
      int peer = pd < rem ? 2 * pd + 1 : pd + rem;
      b.send(t[peer], data);
      combine_from(b, t, peer, data, tmp);
      b.next_round();
    }
  }
  if (r < 2 * rem) {
    if (r % 2 == 1)
      b.send(t[r - 1], data);
    else
      b.recv(t[r + 1], data);
    b.next_round();
  }
}

void barrier(ScheduleBuilder& b, const Team& t) {
  if (t.me < 0) return;
  const int p = t.size(), r = t.me;
  for (int k = 1; k < p; k <<= 1) {
    b.send(t[(r + k) % p], packed(nullptr, 0));
    b.recv(t[(r - k + p) % p], packed(nullptr, 0));
    b.next_round();
  }
}

}  // namespace gpurun::coll::algo::hier
