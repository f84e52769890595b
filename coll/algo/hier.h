// What the "hierarchical" algorithms (coll/algo/hier_algorithms.cc) share: where the ranks of a
// communicator run (its hosts, one leader per host), kept per communicator, and phases that
// run on a team (a subset of the communicator's ranks: a host's ranks or the leaders) inside
// one schedule of the whole communicator.
//
// The teams are not communicators of their own: their messages are the communicator's, on the
// pml's collective channel with the call's tag, addressed by communicator rank. Phases run one
// after the other on each rank, and messages between two ranks with one tag match in the order
// they were posted, so a phase never meets another's messages. Between ranks of a host the pml
// takes the shared-memory transport, between leaders the network.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "coll/schedule.h"

namespace gpurun::coll::algo::hier {

// The hosts of a communicator: each host's ranks (ascending), hosts ordered by their lowest
// rank, which is the host's leader. Every rank computes the same layout.
struct Layout {
  std::vector<std::vector<int>> hosts;
  std::vector<int> host_of;  // host index of each communicator rank
  std::vector<int> leaders;  // hosts[h][0] for each host h, ascending
  bool contiguous = true;    // each host's ranks are consecutive communicator ranks
  int num_hosts() const { return static_cast<int>(hosts.size()); }
};

// The layout of args.comm: one host when args.one_host, else from args.job_nodes; null when a
// multi-host communicator's nodes are not known. Built on first use per communicator (by
// context id) and kept until release(); valid until the next call.
const Layout* layout_of(const Args& args);
// Drops the layout kept for `context_id` (Algorithm::release).
void release(std::uint32_t context_id);

// Host memory and a known layout.
bool usable(const Args& args);
// As usable(), and an op whose operands can be taken in rank order: commutative, or each
// host's ranks consecutive (the hosts' partial results then follow each other in rank order).
bool usable_ordered(const Args& args);

// A subset of the communicator's ranks, in team order, and this rank's index in it (-1: not a
// member; a phase then adds nothing).
struct Team {
  std::span<const int> ranks;
  int me = -1;
  int size() const { return static_cast<int>(ranks.size()); }
  int operator[](int i) const { return ranks[static_cast<std::size_t>(i)]; }
};
// The team of `ranks` as seen by communicator rank `rank`.
Team team_of(std::span<const int> ranks, int rank);

// `in` of every member combined (the builder's op, in team order) into `out` at member `root`
// (`out` may be `in` there; unused elsewhere). Binomial tree, as reduce "binomial".
void reduce(ScheduleBuilder& b, const Team& t, const Buf& in, const Buf& out, int root);
// `data` of member `root` to every member: each Buf of `data` in turn, in one message each per
// hop. Binomial tree, as bcast "binomial".
void bcast(ScheduleBuilder& b, const Team& t, std::span<const Buf> data, int root);
// Every member's `data` combined in team order into `data` of every member. Recursive
// doubling, non-powers of two folded, as allreduce "recursive_doubling".
void allreduce(ScheduleBuilder& b, const Team& t, const Buf& data);
// Returns on every member once all have entered: dissemination, zero-byte messages.
void barrier(ScheduleBuilder& b, const Team& t);

}  // namespace gpurun::coll::algo::hier
