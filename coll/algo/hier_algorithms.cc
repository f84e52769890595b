// barrier, bcast, reduce, allreduce, allgather and allgatherv "hierarchical".
//
// Idea: on a communicator that spans several hosts, a phase among the ranks of each host (over
// shared memory) and a phase among one leader per host (the lowest rank of each host, over
// the network), so that each host sends and receives one vector on the network per step
// instead of one per rank:
//   barrier     host fan-in to the leader, leaders' dissemination, host fan-out
//   bcast       bcast on the root's host from the root, leaders' bcast from the root's
//               leader, bcast on the other hosts from their leaders
//   reduce      host reduce to the leader, leaders' reduce to the root's leader, which hands
//               the result to the root when it is not the leader
//   allreduce   host reduce to the leader, leaders' allreduce, host bcast
//   allgather(v) host gather to the leader, leaders exchange their hosts' blocks (one message
//               per host when its ranks are consecutive), host bcast of the whole result
// The hosts come from coll/algo/hier.h (built once per communicator). With one host the
// algorithms run the host phases only.
// Requirements: host memory; the ranks' nodes known (Args::job_nodes) on a multi-host
// communicator. reduce and allreduce with a non-commutative op: each host's ranks consecutive
// in the communicator (then host partial results follow each other in rank order).
// Cost (H hosts, k ranks per host, alpha_s/beta_s: shared memory, alpha_n/beta_n: network):
//   allreduce  2 log2 k (alpha_s + n beta_s) + log2 H (alpha_n + n beta_n) (+ n gamma each
//   reduce step); allgather: k n beta_s + (H - 1)(alpha_n + k n beta_n) + log2 k p n beta_s.
#include <vector>

#include "coll/algo/common.h"
#include "coll/algo/hier.h"

namespace gpurun::coll::algo::hier {
namespace {

// This rank's host team and, on a leader, the leaders' team (me = -1 elsewhere).
struct Teams {
  const Layout& l;
  int host;  // this rank's host index
  Team mine, leaders;
  Teams(const Layout& layout, int rank)
      : l(layout),
        host(layout.host_of[static_cast<std::size_t>(rank)]),
        mine(team_of(layout.hosts[static_cast<std::size_t>(host)], rank)),
        leaders(team_of(layout.leaders, rank)) {}
  bool leader() const { return mine.me == 0; }
  const std::vector<int>& members(int h) const { return l.hosts[static_cast<std::size_t>(h)]; }
};

Status barrier_plan(ScheduleBuilder& b) {
  Teams t(*layout_of(b.args()), b.rank());
  if (!t.leader()) {
    b.send(t.mine[0], packed(nullptr, 0));
  } else {
    for (int i = 1; i < t.mine.size(); ++i) b.recv(t.mine[i], packed(nullptr, 0));
  }
  b.next_round();
  barrier(b, t.leaders);
  Buf none = packed(nullptr, 0);
  bcast(b, t.mine, {&none, 1}, 0);
  return ok_status();
}

Status bcast_plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Teams t(*layout_of(a), b.rank());
  const Buf data{a.recvbuf, a.count, a.type};
  const int root_host = t.l.host_of[static_cast<std::size_t>(a.root)];
  if (t.host == root_host) bcast(b, t.mine, {&data, 1}, team_of(t.mine.ranks, a.root).me);
  bcast(b, t.leaders, {&data, 1}, root_host);
  if (t.host != root_host) bcast(b, t.mine, {&data, 1}, 0);
  return ok_status();
}

Status reduce_plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Teams t(*layout_of(a), b.rank());
  const int r = b.rank();
  const Buf in = send_buf(a, a.count);
  const Buf out{a.recvbuf, a.count, a.type};  // the root's
  const int root_host = t.l.host_of[static_cast<std::size_t>(a.root)];
  const int root_leader = t.l.leaders[static_cast<std::size_t>(root_host)];
  Buf part;  // a leader's host result
  if (t.leader()) part = r == a.root ? out : t.mine.size() == 1 ? in : b.scratch(a.count, *a.type);
  reduce(b, t.mine, in, part, 0);
  Buf result;  // at the root's leader
  if (r == root_leader) result = r == a.root ? out : b.scratch(a.count, *a.type);
  reduce(b, t.leaders, part, result, root_host);
  if (root_leader != a.root) {
    if (r == root_leader) b.send(a.root, result);
    if (r == a.root) b.recv(root_leader, out);
    b.next_round();
  }
  return ok_status();
}

Status allreduce_plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Teams t(*layout_of(a), b.rank());
  const Buf data{a.recvbuf, a.count, a.type};
  const Buf in = a.in_place ? data : send_buf(a, a.count);
  reduce(b, t.mine, in, t.leader() ? data : Buf{}, 0);
  allreduce(b, t.leaders, data);
  bcast(b, t.mine, {&data, 1}, 0);
  return ok_status();
}

// Rank m's block of the result.
Buf block(const Args& a, int m) {
  Buf whole{a.recvbuf, 0, a.recvtype};
  if (a.recvcounts == nullptr) return whole.slice(m * a.recvcount, a.recvcount);
  return whole.slice(a.rdispls[m], a.recvcounts[m]);
}

// The blocks of `members`: one Buf for consecutive ranks of equal blocks, else one per rank.
std::vector<Buf> blocks_of(const Args& a, std::span<const int> members) {
  auto n = static_cast<std::int64_t>(members.size());
  if (a.recvcounts == nullptr && members.back() - members.front() + 1 == n)
    return {Buf{a.recvbuf, 0, a.recvtype}.slice(members.front() * a.recvcount, n * a.recvcount)};
  std::vector<Buf> out;
  for (int m : members) out.push_back(block(a, m));
  return out;
}

Status allgather_plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  Teams t(*layout_of(a), b.rank());
  const Buf mine = block(a, b.rank());
  const Buf from = a.in_place ? mine : send_buf(a, a.count);
  if (!t.leader()) {
    b.send(t.mine[0], from);
  } else {
    for (int i = 1; i < t.mine.size(); ++i) b.recv(t.mine[i], block(a, t.mine[i]));
    if (!a.in_place) b.copy(from, mine);
  }
  b.next_round();
  if (t.leaders.me >= 0 && t.leaders.size() > 1) {
    std::vector<Buf> own = blocks_of(a, t.members(t.host));
    for (int h = 0; h < t.l.num_hosts(); ++h) {
      if (h == t.host) continue;
      for (const Buf& x : own) b.send(t.leaders[h], x);
      for (const Buf& x : blocks_of(a, t.members(h))) b.recv(t.leaders[h], x);
    }
    b.next_round();
  }
  std::vector<int> every(static_cast<std::size_t>(b.size()));
  for (int i = 0; i < b.size(); ++i) every[static_cast<std::size_t>(i)] = i;
  bcast(b, t.mine, blocks_of(a, every), 0);
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo::hier

#define GPURUN_HIER_REGISTER(id, kind, usable_fn, plan_fn, text)                        \
  GPURUN_REGISTER_ALGORITHM(                                                            \
      id, .name = "hierarchical", .collective = ::gpurun::coll::Collective::kind,       \
      .usable = ::gpurun::coll::algo::hier::usable_fn,                                  \
      .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::hier::plan_fn>, \
      .device_steps = true, .summary = text, .release = ::gpurun::coll::algo::hier::release)

GPURUN_HIER_REGISTER(barrier_hierarchical, kBarrier, usable, barrier_plan,
                     "host fan-in, leaders' dissemination, host fan-out")
GPURUN_HIER_REGISTER(bcast_hierarchical, kBcast, usable, bcast_plan,
                     "binomial on the root's host, among leaders, on the other hosts")
GPURUN_HIER_REGISTER(reduce_hierarchical, kReduce, usable_ordered, reduce_plan,
                     "host binomial reduce, leaders' binomial reduce; non-commutative ops need "
                     "hosts of consecutive ranks")
GPURUN_HIER_REGISTER(allreduce_hierarchical, kAllreduce, usable_ordered, allreduce_plan,
                     "host reduce, leaders' recursive doubling, host bcast; 2 log2 k shm + "
                     "log2 H network steps")
GPURUN_HIER_REGISTER(allgather_hierarchical, kAllgather, usable, allgather_plan,
                     "host gather, leaders exchange hosts' blocks, host bcast")
GPURUN_HIER_REGISTER(allgatherv_hierarchical, kAllgatherv, usable, allgather_plan,
                     "host gather, leaders exchange hosts' blocks, host bcast")
